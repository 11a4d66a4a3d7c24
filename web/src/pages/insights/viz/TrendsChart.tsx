import type { TrendsResult } from '../../../api/insights';
import { colourOf, overTimeOptions } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { shownSeries } from './series';

/** Trends over time, as lines or bars. */
export function TrendsChart({ results, type, height }: { results: TrendsResult[]; type: 'line' | 'bar'; height: number }) {
  const series = shownSeries(results);
  const labels = series.find((s) => !s.previous)?.result.labels ?? series[0]?.result.labels ?? [];
  return (
    <ChartCanvas
      key={type}
      testId="trends-chart"
      height={height}
      described={JSON.stringify(series.map((s) => ({ label: s.label, data: s.result.data, days: s.result.days })))}
      label={series.map((s) => `${s.label}: ${s.result.data.join(', ')}`).join('; ')}
      config={() => ({
        type,
        data: {
          labels,
          datasets: series.map((s) => ({
            label: s.label,
            data: s.result.data,
            borderColor: colourOf(s.index),
            backgroundColor: s.previous ? `${colourOf(s.index)}55` : colourOf(s.index),
            borderDash: s.previous ? [6, 4] : [],
            pointRadius: 2,
            tension: 0,
          })),
        },
        options: overTimeOptions({ beginAtZero: true, ticks: { precision: 0 } }),
      })}
    />
  );
}
