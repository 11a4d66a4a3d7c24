import { Group, NativeSelect, Stack, Switch } from '@mantine/core';
import { isTotalDisplay, type TrendsDisplay, type TrendsQuery } from '../../../api/insights';
import { DateRangeControl } from '../../../components/DateRangeControl';
import { BreakdownPicker, GlobalFilters, IntervalSelect } from './QueryControls';
import { SeriesList } from './SeriesRow';

const DISPLAYS: { value: TrendsDisplay; label: string }[] = [
  { value: 'ActionsLineGraph', label: 'Line chart' },
  { value: 'ActionsLineGraphCumulative', label: 'Cumulative line chart' },
  { value: 'ActionsBar', label: 'Bar chart' },
  { value: 'ActionsBarValue', label: 'Total value bars' },
  { value: 'ActionsPie', label: 'Pie chart' },
  { value: 'BoldNumber', label: 'Number' },
  { value: 'ActionsTable', label: 'Table' },
];

/** The trends builder: series, filters, breakdown, range, interval, comparison and display. */
export function TrendsEditor({
  environmentId,
  query,
  onChange,
}: {
  environmentId: number;
  query: TrendsQuery;
  onChange: (query: TrendsQuery) => void;
}) {
  const set = (change: Partial<TrendsQuery>) => onChange({ ...query, ...change });
  const display = query.trendsFilter?.display ?? 'ActionsLineGraph';
  // A display saved elsewhere (PostHog's world map…) is shown as total value bars or a line; the picker says which.
  const displays = DISPLAYS.some((d) => d.value === display)
    ? DISPLAYS
    : [...DISPLAYS, { value: display, label: `${display} (as ${isTotalDisplay(display) ? 'total value bars' : 'a line'})` }];
  return (
    <Stack gap="sm" data-testid="trends-editor">
      <SeriesList
        environmentId={environmentId}
        series={query.series}
        onChange={(series) => set({ series })}
        noun="Series"
        withMath
        min={1}
        added={{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total' }}
      />
      <GlobalFilters environmentId={environmentId} filters={query.properties ?? []} onChange={(properties) => set({ properties })} />
      <Group gap="sm" align="flex-end">
        <BreakdownPicker
          environmentId={environmentId}
          value={query.breakdownFilter}
          onChange={(breakdownFilter) => set({ breakdownFilter })}
        />
        <DateRangeControl value={query.dateRange} onChange={(dateRange) => set({ dateRange })} />
        <IntervalSelect value={query.interval} onChange={(interval) => set({ interval })} />
        <NativeSelect
          label="Display"
          w={210}
          data={displays}
          value={display}
          onChange={(e) => set({ trendsFilter: { ...query.trendsFilter, display: e.currentTarget.value as TrendsDisplay } })}
        />
        <Switch
          label="Compare to previous period"
          mb={8}
          checked={query.compareFilter?.compare ?? false}
          onChange={(e) => set({ compareFilter: e.currentTarget.checked ? { compare: true } : undefined })}
        />
      </Group>
    </Stack>
  );
}
