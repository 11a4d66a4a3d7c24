import type { TrendsResult } from '../../../api/insights';
import { colourOf, overTimeOptions } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { shownSeries, type ShownSeries } from './series';

/** Trends over time, as lines or bars; `onValue`: a click on a point or bar, with its series and bucket. */
export function TrendsChart({
  results,
  type,
  height,
  onValue,
}: {
  results: TrendsResult[];
  type: 'line' | 'bar';
  height: number;
  onValue?: (series: ShownSeries, index: number) => void;
}) {
  const series = shownSeries(results);
  const labels = series.find((s) => !s.previous)?.result.labels ?? series[0]?.result.labels ?? [];
  return (
    <ChartCanvas
      key={type}
      testId="trends-chart"
      height={height}
      onElement={onValue && ((dataset, index) => onValue(series[dataset]!, index))}
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
