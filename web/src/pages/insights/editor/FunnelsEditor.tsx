import { Group, NativeSelect, NumberInput, Stack } from '@mantine/core';
import type { FunnelsQuery, FunnelVizType, WindowUnit } from '../../../api/insights';
import { DateRangeControl } from '../../../components/DateRangeControl';
import { BreakdownPicker, GlobalFilters, IntervalSelect } from './QueryControls';
import { SeriesList } from './SeriesRow';

const UNITS: WindowUnit[] = ['minute', 'hour', 'day', 'week', 'month'];
const VIEWS: { value: FunnelVizType; label: string }[] = [
  { value: 'steps', label: 'Conversion steps' },
  { value: 'time_to_convert', label: 'Time to convert' },
  { value: 'trends', label: 'Historical trends' },
];

type FunnelsFilter = NonNullable<FunnelsQuery['funnelsFilter']>;

/** The filter without a from or to step its `steps` no longer have (the server would refuse it). */
function withinSteps(filter: FunnelsFilter, steps: number): FunnelsFilter {
  const { funnelFromStep, funnelToStep, ...rest } = filter;
  return {
    ...rest,
    ...(funnelFromStep !== undefined && funnelFromStep < steps - 1 ? { funnelFromStep } : {}),
    ...(funnelToStep !== undefined && funnelToStep < steps ? { funnelToStep } : {}),
  };
}

/**
 * The funnel builder: steps in order, filters, breakdown, range, conversion window and view; the
 * time to convert and the historical trends between two steps (the first and the last by
 * default), the trends by an interval.
 */
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
  const setFilter = (change: Partial<FunnelsFilter>) => set({ funnelsFilter: { ...filter, ...change } });
  const view = filter.funnelVizType ?? 'steps';
  const lastStep = query.series.length - 1;
  const fromStep = Math.min(filter.funnelFromStep ?? 0, lastStep - 1);
  // PostHog reads an unset or 0 `funnelToStep` as the last step.
  const toStep = Math.min(filter.funnelToStep || lastStep, lastStep);
  const steps = query.series.map((step, i) => ({
    value: String(i),
    label: `${i + 1}. ${step.custom_name || step.name || step.event || 'All events'}`,
  }));
  return (
    <Stack gap="sm" data-testid="funnels-editor">
      <SeriesList
        environmentId={environmentId}
        series={query.series}
        onChange={(series) => set({ series, funnelsFilter: withinSteps(filter, series.length) })}
        noun="Step"
        withMath={false}
        min={2}
        added={{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }}
      />
      <GlobalFilters environmentId={environmentId} filters={query.properties ?? []} onChange={(properties) => set({ properties })} />
      <Group gap="sm" align="flex-end">
        <BreakdownPicker
          environmentId={environmentId}
          value={query.breakdownFilter}
          onChange={(breakdownFilter) => set({ breakdownFilter })}
        />
        <DateRangeControl value={query.dateRange} onChange={(dateRange) => set({ dateRange })} />
        <NumberInput
          label="Conversion window"
          w={160}
          min={1}
          max={100000}
          allowDecimal={false}
          allowNegative={false}
          clampBehavior="strict"
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
        {(view === 'time_to_convert' || view === 'trends') && (
          <>
            <NativeSelect
              label="From step"
              w={170}
              data={steps.slice(0, -1)}
              value={String(fromStep)}
              onChange={(e) => {
                const from = Number(e.currentTarget.value);
                setFilter({ funnelFromStep: from, ...(toStep <= from ? { funnelToStep: from + 1 } : {}) });
              }}
            />
            <NativeSelect
              label="To step"
              w={170}
              data={steps.slice(1)}
              value={String(toStep)}
              onChange={(e) => {
                const to = Number(e.currentTarget.value);
                setFilter({ funnelToStep: to, ...(fromStep >= to ? { funnelFromStep: to - 1 } : {}) });
              }}
            />
          </>
        )}
        {view === 'trends' && <IntervalSelect value={query.interval} onChange={(interval) => set({ interval })} />}
      </Group>
    </Stack>
  );
}
