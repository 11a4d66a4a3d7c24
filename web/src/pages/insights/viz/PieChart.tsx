import type { TrendsResult } from '../../../api/insights';
import { colourOf } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { shownSeries, totalOf } from './series';

/**
 * PostHog's pie (ActionsPie): each series (or breakdown value) as a slice of its total over the
 * range. A comparison's previous period has no slice: one pie shows one period.
 */
export function PieChart({ results, height }: { results: TrendsResult[]; height: number }) {
  const series = shownSeries(results).filter((s) => !s.previous);
  return (
    <ChartCanvas
      testId="trends-pie"
      height={height}
      described={JSON.stringify(series.map((s) => ({ label: s.label, value: totalOf(s.result) })))}
      label={series.map((s) => `${s.label}: ${totalOf(s.result)}`).join('; ')}
      config={() => ({
        type: 'pie',
        data: {
          labels: series.map((s) => s.label),
          datasets: [{ data: series.map((s) => totalOf(s.result)), backgroundColor: series.map((s) => colourOf(s.index)) }],
        },
        options: { responsive: true, maintainAspectRatio: false, animation: false },
      })}
    />
  );
}
