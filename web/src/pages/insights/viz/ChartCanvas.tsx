import { useLayoutEffect, useRef } from 'react';
import type { ChartConfiguration } from 'chart.js';
import { Chart } from './chart';

/**
 * A Chart.js canvas that carries what it draws: `data-series` (JSON, for reading back) and an
 * `aria-label` in words. The chart is rebuilt only when `described` changes: the description is
 * everything the configuration is made from.
 */
export function ChartCanvas({
  config,
  described,
  label,
  testId,
  height,
}: {
  config: () => ChartConfiguration;
  described: string;
  label: string;
  testId: string;
  height: number;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);

  // Drawn as the canvas is placed (Chart.js draws at once without animation), not in a later task:
  // a chart that is in the page is drawn.
  useLayoutEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, config());
    return () => chart.destroy();
    // `config` is rebuilt on every render; `described` says when what it draws changed.
  }, [described]);

  return (
    <div style={{ position: 'relative', height }}>
      <canvas ref={canvas} role="img" data-testid={testId} data-series={described} aria-label={label} />
    </div>
  );
}
