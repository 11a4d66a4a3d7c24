import { Group, NativeSelect, NumberInput, Stack } from '@mantine/core';
import type { FunnelsQuery, FunnelVizType, Interval, WindowUnit } from '../../../api/insights';
import { DateRangeControl } from '../../../components/DateRangeControl';
import { BreakdownPicker, GlobalFilters } from './QueryControls';
import { SeriesList } from './SeriesRow';
import { INTERVALS } from './TrendsEditor';

const UNITS: WindowUnit[] = ['minute', 'hour', 'day', 'week', 'month'];
const VIEWS: { value: FunnelVizType; label: string }[] = [
  { value: 'steps', label: 'Conversion steps' },
  { value: 'time_to_convert', label: 'Time to convert' },
  { value: 'trends', label: 'Historical trends' },
];

/** The funnel builder: steps in order, filters, breakdown, range, conversion window and view (with its interval for trends). */
export function FunnelsEditor({
  environmentId,
  query,
  onChange,
}: {
  environmentId: number;
  query: FunnelsQuery;
  onChange: (query: FunnelsQuery) => void;
}) {
  const set = (change: Partial<FunnelsQuery>) => onChange({ ...query, ...change });
  const filter = query.funnelsFilter ?? {};
  const setFilter = (change: Partial<NonNullable<FunnelsQuery['funnelsFilter']>>) => set({ funnelsFilter: { ...filter, ...change } });
  return (
    <Stack gap="sm" data-testid="funnels-editor">
      <SeriesList
        environmentId={environmentId}
        series={query.series}
        onChange={(series) => set({ series })}
        noun="Step"
        withMath={false}
        min={2}
        added={{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }}
      />
      <GlobalFilters environmentId={environmentId} filters={query.properties ?? []} onChange={(properties) => set({ properties })} />
      <Group gap="sm" align="flex-end">
        <BreakdownPicker
          environmentId={environmentId}
          value={query.breakdownFilter?.breakdown ?? ''}
          onChange={(breakdownFilter) => set({ breakdownFilter })}
        />
        <DateRangeControl value={query.dateRange} onChange={(dateRange) => set({ dateRange })} />
        <NumberInput
          label="Conversion window"
          w={160}
          min={1}
          max={100000}
          allowDecimal={false}
          value={filter.funnelWindowInterval ?? 14}
          onChange={(value) => typeof value === 'number' && value >= 1 && setFilter({ funnelWindowInterval: value })}
        />
        <NativeSelect
          aria-label="Conversion window unit"
          w={110}
          data={UNITS.map((u) => ({ value: u, label: `${u}s` }))}
          value={filter.funnelWindowIntervalUnit ?? 'day'}
          onChange={(e) => setFilter({ funnelWindowIntervalUnit: e.currentTarget.value as WindowUnit })}
        />
        <NativeSelect
          label="View"
          w={170}
          data={VIEWS}
          value={filter.funnelVizType ?? 'steps'}
          onChange={(e) => setFilter({ funnelVizType: e.currentTarget.value as FunnelVizType })}
        />
        {filter.funnelVizType === 'trends' && (
          <NativeSelect
            label="Interval"
            w={110}
            data={INTERVALS}
            value={query.interval ?? 'day'}
            onChange={(e) => set({ interval: e.currentTarget.value as Interval })}
          />
        )}
      </Group>
    </Stack>
  );
}
