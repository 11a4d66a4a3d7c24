import { Group, NativeSelect, NumberInput, Stack, Text } from '@mantine/core';
import type { BreakdownFilter, Interval } from '../../../api/insights';
import type { PropertyFilter } from '../../../api/types';
import { FilterList } from './FilterList';
import { PropertyPicker } from './PropertyPicker';

/** The filters over every series or step, as both builders show them. */
export function GlobalFilters({
  environmentId,
  filters,
  onChange,
}: {
  environmentId: number;
  filters: PropertyFilter[];
  onChange: (filters: PropertyFilter[]) => void;
}) {
  return (
    <Stack gap={6}>
      <Text fw={600}>Filters</Text>
      <FilterList environmentId={environmentId} name="Filter" filters={filters} onChange={onChange} />
    </Stack>
  );
}

/** The server's bounds on `breakdown_limit` (query-fields.ts). */
const DEFAULT_BREAKDOWN_LIMIT = 25;
const MAX_BREAKDOWN_LIMIT = 1000;

/**
 * "Breakdown by" an event property (empty removes the breakdown) and, once there is one, how many
 * of its values are shown.
 */
export function BreakdownPicker({
  environmentId,
  value,
  onChange,
}: {
  environmentId: number;
  value: BreakdownFilter | undefined;
  onChange: (breakdownFilter: BreakdownFilter | undefined) => void;
}) {
  const limit = value?.breakdown_limit;
  return (
    <Group gap="sm" align="flex-end" wrap="nowrap">
      <div>
        <Text size="sm" fw={500}>
          Breakdown by
        </Text>
        <PropertyPicker
          environmentId={environmentId}
          label="Breakdown by"
          placeholder="event property"
          value={value?.breakdown ?? ''}
          onChange={(breakdown) =>
            onChange(breakdown ? { breakdown, breakdown_type: 'event', ...(limit ? { breakdown_limit: limit } : {}) } : undefined)
          }
        />
      </div>
      {value?.breakdown && (
        <NumberInput
          label="Values shown"
          w={110}
          min={1}
          max={MAX_BREAKDOWN_LIMIT}
          allowDecimal={false}
          allowNegative={false}
          clampBehavior="strict"
          placeholder={String(DEFAULT_BREAKDOWN_LIMIT)}
          value={limit ?? ''}
          onChange={(next) => {
            const { breakdown_limit: _unset, ...rest } = value;
            onChange(typeof next === 'number' && next >= 1 ? { ...rest, breakdown_limit: next } : rest);
          }}
        />
      )}
    </Group>
  );
}

const INTERVALS: { value: Interval; label: string }[] = [
  { value: 'hour', label: 'Hour' },
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week' },
  { value: 'month', label: 'Month' },
];

/** The buckets of a trends line or of a funnel's historical trends (`day` when unset). */
export function IntervalSelect({ value, onChange }: { value: Interval | undefined; onChange: (interval: Interval) => void }) {
  return (
    <NativeSelect
      label="Interval"
      w={110}
      data={INTERVALS}
      value={value ?? 'day'}
      onChange={(e) => onChange(e.currentTarget.value as Interval)}
    />
  );
}
