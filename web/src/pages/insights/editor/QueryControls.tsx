import { NativeSelect, Stack, Text } from '@mantine/core';
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

/** "Breakdown by" an event property; empty removes the breakdown. */
export function BreakdownPicker({
  environmentId,
  value,
  onChange,
}: {
  environmentId: number;
  value: string;
  onChange: (breakdownFilter: BreakdownFilter | undefined) => void;
}) {
  return (
    <div>
      <Text size="sm" fw={500}>
        Breakdown by
      </Text>
      <PropertyPicker
        environmentId={environmentId}
        label="Breakdown by"
        placeholder="event property"
        value={value}
        onChange={(breakdown) => onChange(breakdown ? { breakdown, breakdown_type: 'event' } : undefined)}
      />
    </div>
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
