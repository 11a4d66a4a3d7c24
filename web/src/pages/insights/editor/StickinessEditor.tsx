import { Group, Stack, Switch } from '@mantine/core';
import type { StickinessQuery } from '../../../api/insights';
import { DateRangeControl } from '../../../components/DateRangeControl';
import { GlobalFilters, IntervalSelect } from './QueryControls';
import { SeriesList } from './SeriesRow';

/** The stickiness builder: the series, filters, range, interval and whether counts are "or more". */
export function StickinessEditor({
  environmentId,
  query,
  onChange,
}: {
  environmentId: number;
  query: StickinessQuery;
  onChange: (query: StickinessQuery) => void;
}) {
  const set = (change: Partial<StickinessQuery>) => onChange({ ...query, ...change });
  return (
    <Stack gap="sm" data-testid="stickiness-editor">
      <SeriesList
        environmentId={environmentId}
        series={query.series}
        onChange={(series) => set({ series })}
        noun="Series"
        withMath={false}
        min={1}
        added={{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'dau' }}
      />
      <GlobalFilters environmentId={environmentId} filters={query.properties ?? []} onChange={(properties) => set({ properties })} />
      <Group gap="sm" align="flex-end">
        <DateRangeControl value={query.dateRange} onChange={(dateRange) => set({ dateRange })} />
        <IntervalSelect value={query.interval} onChange={(interval) => set({ interval })} />
        <Switch
          label="Or more (cumulative)"
          mb={8}
          checked={query.stickinessFilter?.computedAs === 'cumulative'}
          onChange={(e) => set({ stickinessFilter: { computedAs: e.currentTarget.checked ? 'cumulative' : 'non_cumulative' } })}
        />
      </Group>
    </Stack>
  );
}
