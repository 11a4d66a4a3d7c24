import type { TrendsResult } from '../../../api/insights';
import { colourOf } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { shownSeries, totalOf, type ShownSeries } from './series';

/**
 * Each series' (or breakdown value's) total over the range, as PostHog's total value bars
 * (ActionsBarValue: one horizontal bar each, a compared period's beside its current one) or its pie
 * (ActionsPie: a slice each; one pie shows one period, so a previous period has none).
 */
export function TotalsChart({
  results,
  height,
  as,
  onValue,
}: {
  results: TrendsResult[];
  height: number;
  as: 'bars' | 'pie';
  /** A click on a bar or slice, with its series. */
  onValue?: (series: ShownSeries) => void;
}) {
  const series = shownSeries(results).filter((s) => as === 'bars' || !s.previous);
  const values = series.map((s) => totalOf(s.result));
  return (
    <ChartCanvas
      testId={as === 'bars' ? 'trends-bar-value' : 'trends-pie'}
      height={height}
      onElement={onValue && ((_dataset, index) => onValue(series[index]!))}
      described={JSON.stringify(series.map((s, i) => ({ label: s.label, value: values[i] })))}
      label={series.map((s, i) => `${s.label}: ${values[i]}`).join('; ')}
      config={() => ({
        type: as === 'bars' ? 'bar' : 'pie',
        data: {
          labels: series.map((s) => s.label),
          datasets: [{ data: values, backgroundColor: series.map((s) => colourOf(s.index)) }],
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          ...(as === 'bars' ? { indexAxis: 'y' as const, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } } : {}),
        },
      })}
    />
  );
}
