import { useEffect, useRef } from 'react';
import type { TrendsResult } from '../../../api/insights';
import { Chart, colourOf } from './chart';
import { shownSeries } from './series';

/**
 * Trends over time, as lines or bars (Chart.js on a canvas). The canvas carries the values it
 * draws (`data-series`, and an `aria-label` in words) so what it shows can be read back.
 */
export function TrendsChart({ results, type, height }: { results: TrendsResult[]; type: 'line' | 'bar'; height: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const series = shownSeries(results);
  const labels = series.find((s) => !s.previous)?.result.labels ?? series[0]?.result.labels ?? [];
  const datasets = series.map((s) => ({
    label: s.label,
    data: s.result.data,
    borderColor: colourOf(s.index),
    backgroundColor: s.previous ? `${colourOf(s.index)}55` : colourOf(s.index),
    borderDash: s.previous ? [6, 4] : [],
    pointRadius: 2,
    tension: 0,
  }));
  const described = JSON.stringify(series.map((s) => ({ label: s.label, data: s.result.data, days: s.result.days })));

  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type,
      data: { labels, datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
    // The chart is redrawn when what it shows changes (the description says it all).
  }, [described, type]);

  return (
    <div style={{ position: 'relative', height }}>
      <canvas
        ref={canvas}
        role="img"
        data-testid="trends-chart"
        data-series={described}
        aria-label={series.map((s) => `${s.label}: ${s.result.data.join(', ')}`).join('; ')}
      />
    </div>
  );
}
