import { Group, NativeSelect, NumberInput, Stack, Switch, Text } from '@mantine/core';
import type { RetentionEntity, RetentionPeriod, RetentionQuery, RetentionType } from '../../../api/insights';
import { DateRangeControl } from '../../../components/DateRangeControl';
import { EventPicker } from './EventPicker';
import { FilterList } from './FilterList';
import { GlobalFilters } from './QueryControls';

const PERIODS: RetentionPeriod[] = ['Hour', 'Day', 'Week', 'Month'];
const TYPES: { value: RetentionType; label: string }[] = [
  { value: 'retention_first_time', label: 'for the first time' },
  { value: 'retention_recurring', label: 'recurringly' },
  { value: 'retention_first_ever_occurrence', label: 'for the first time ever' },
];
/** The server's bounds on `totalIntervals` (retention.ts). */
const MAX_INTERVALS = 1000;

/** One event of a retention (the cohort's or the return's), with its own filters. */
function EntityRow({
  environmentId,
  title,
  entity,
  onChange,
}: {
  environmentId: number;
  title: string;
  entity: RetentionEntity | undefined;
  onChange: (entity: RetentionEntity) => void;
}) {
  const current: RetentionEntity = entity ?? { id: '$pageview', name: '$pageview', type: 'events' };
  return (
    <Stack gap={6}>
      <Text fw={600}>{title}</Text>
      <EventPicker
        environmentId={environmentId}
        label={title}
        value={current.id}
        onChange={(id) => onChange({ ...current, id, name: id ?? 'All events' })}
      />
      <FilterList
        environmentId={environmentId}
        name={`${title} filter`}
        filters={current.properties ?? []}
        onChange={(properties) => onChange({ ...current, properties })}
      />
    </Stack>
  );
}

/**
 * The retention builder, as PostHog words it: persons who performed the first event (for the first
 * time, or recurringly), coming back to perform the second, per period, for so many periods.
 */
export function RetentionEditor({
  environmentId,
  query,
  onChange,
}: {
  environmentId: number;
  query: RetentionQuery;
  onChange: (query: RetentionQuery) => void;
}) {
  const filter = query.retentionFilter;
  const setFilter = (change: Partial<RetentionQuery['retentionFilter']>) =>
    onChange({ ...query, retentionFilter: { ...filter, ...change } });
  return (
    <Stack gap="sm" data-testid="retention-editor">
      <Group align="flex-start" gap="xl">
        <EntityRow
          environmentId={environmentId}
          title="Cohort event"
          entity={filter.targetEntity}
          onChange={(targetEntity) => setFilter({ targetEntity })}
        />
        <NativeSelect
          label="Performed"
          w={200}
          data={TYPES}
          value={filter.retentionType ?? 'retention_recurring'}
          onChange={(e) => setFilter({ retentionType: e.currentTarget.value as RetentionType })}
        />
        <EntityRow
          environmentId={environmentId}
          title="Returning event"
          entity={filter.returningEntity}
          onChange={(returningEntity) => setFilter({ returningEntity })}
        />
      </Group>
      <GlobalFilters
        environmentId={environmentId}
        filters={query.properties ?? []}
        onChange={(properties) => onChange({ ...query, properties })}
      />
      <Group gap="sm" align="flex-end">
        <NativeSelect
          label="Period"
          w={110}
          data={PERIODS}
          value={filter.period ?? 'Day'}
          onChange={(e) => setFilter({ period: e.currentTarget.value as RetentionPeriod })}
        />
        <NumberInput
          label="Periods shown"
          w={130}
          min={1}
          max={MAX_INTERVALS}
          allowDecimal={false}
          allowNegative={false}
          clampBehavior="strict"
          value={filter.totalIntervals ?? 7}
          onChange={(next) => typeof next === 'number' && next >= 1 && setFilter({ totalIntervals: next })}
        />
        <DateRangeControl value={query.dateRange} onChange={(dateRange) => onChange({ ...query, dateRange })} />
        <Switch
          label="On or after (cumulative)"
          mb={8}
          checked={filter.cumulative ?? false}
          onChange={(e) => setFilter({ cumulative: e.currentTarget.checked })}
        />
      </Group>
    </Stack>
  );
}
