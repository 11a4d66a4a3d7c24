import type { TrendsResult } from '../../../api/insights';
import { colourOf } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { shownSeries, totalOf } from './series';

/**
 * PostHog's "total value" bars (ActionsBarValue): one horizontal bar per series (or breakdown
 * value) with its value over the range.
 */
export function BarValueChart({ results, height }: { results: TrendsResult[]; height: number }) {
  const series = shownSeries(results);
  return (
    <ChartCanvas
      testId="trends-bar-value"
      height={height}
      described={JSON.stringify(series.map((s) => ({ label: s.label, value: totalOf(s.result) })))}
      label={series.map((s) => `${s.label}: ${totalOf(s.result)}`).join('; ')}
      config={() => ({
        type: 'bar',
        data: {
          labels: series.map((s) => s.label),
          datasets: [{ data: series.map((s) => totalOf(s.result)), backgroundColor: series.map((s) => colourOf(s.index)) }],
        },
        options: {
          indexAxis: 'y',
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
        },
      })}
    />
  );
}
