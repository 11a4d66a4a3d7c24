import { Group, Stack } from '@mantine/core';
import type { LifecycleQuery } from '../../../api/insights';
import { DateRangeControl } from '../../../components/DateRangeControl';
import { GlobalFilters, IntervalSelect } from './QueryControls';
import { SeriesList } from './SeriesRow';

/** The lifecycle builder: one event (PostHog's lifecycle takes one), filters, range and interval. */
export function LifecycleEditor({
  environmentId,
  query,
  onChange,
}: {
  environmentId: number;
  query: LifecycleQuery;
  onChange: (query: LifecycleQuery) => void;
}) {
  const set = (change: Partial<LifecycleQuery>) => onChange({ ...query, ...change });
  return (
    <Stack gap="sm" data-testid="lifecycle-editor">
      <SeriesList
        environmentId={environmentId}
        series={query.series}
        onChange={(series) => set({ series })}
        noun="Series"
        withMath={false}
        min={1}
        max={1}
        added={{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }}
      />
      <GlobalFilters environmentId={environmentId} filters={query.properties ?? []} onChange={(properties) => set({ properties })} />
      <Group gap="sm" align="flex-end">
        <DateRangeControl value={query.dateRange} onChange={(dateRange) => set({ dateRange })} />
        <IntervalSelect value={query.interval} onChange={(interval) => set({ interval })} />
      </Group>
    </Stack>
  );
}
