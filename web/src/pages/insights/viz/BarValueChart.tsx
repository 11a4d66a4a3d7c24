import { useEffect, useRef } from 'react';
import type { TrendsResult } from '../../../api/insights';
import { Chart, colourOf } from './chart';
import { shownSeries, totalOf } from './series';

/**
 * PostHog's "total value" bars (ActionsBarValue): one horizontal bar per series (or breakdown
 * value) with its value over the range. The canvas carries the values (`data-series`).
 */
export function BarValueChart({ results, height }: { results: TrendsResult[]; height: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const series = shownSeries(results);
  const described = JSON.stringify(series.map((s) => ({ label: s.label, value: totalOf(s.result) })));

  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
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
    });
    return () => chart.destroy();
  }, [described]);

  return (
    <div style={{ position: 'relative', height }}>
      <canvas
        ref={canvas}
        role="img"
        data-testid="trends-bar-value"
        data-series={described}
        aria-label={series.map((s) => `${s.label}: ${totalOf(s.result)}`).join('; ')}
      />
    </div>
  );
}
