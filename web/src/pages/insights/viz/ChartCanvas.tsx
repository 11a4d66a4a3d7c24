import { useLayoutEffect, useRef } from 'react';
import type { ChartConfiguration, Element } from 'chart.js';
import { Chart } from './chart';

/** Where an element is drawn, in CSS pixels from the canvas' corner: a point's centre, a bar's or a slice's middle. */
function centreOf(element: Element): [number, number] {
  const centre =
    'getCenterPoint' in element && typeof element.getCenterPoint === 'function' ? element.getCenterPoint() : element.tooltipPosition(true);
  return [Math.round(centre.x), Math.round(centre.y)];
}

/**
 * A Chart.js canvas that carries what it draws: `data-series` (JSON, for reading back) and an
 * `aria-label` in words. The chart is rebuilt only when `described` changes: the description is
 * everything the configuration is made from. With `onElement`, a click on a point, bar or slice
 * calls it with the element's dataset and index, and `data-points` holds where each is drawn.
 */
export function ChartCanvas({
  config,
  described,
  label,
  testId,
  height,
  onElement,
}: {
  config: () => ChartConfiguration;
  described: string;
  label: string;
  testId: string;
  height: number;
  onElement?: ((dataset: number, index: number) => void) | undefined;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // The latest handler, read at the click: the chart itself is rebuilt only when what it draws changes.
  const handler = useRef(onElement);
  handler.current = onElement;
  const clickable = onElement !== undefined;

  // Drawn as the canvas is placed (Chart.js draws at once without animation), not in a later task:
  // a chart that is in the page is drawn.
  useLayoutEffect(() => {
    if (!canvas.current) return;
    const base = config();
    const chart = new Chart(
      canvas.current,
      !clickable
        ? base
        : {
            ...base,
            options: {
              ...base.options,
              onHover: (event, _elements, chart) => {
                const over = chart.getElementsAtEventForMode(event.native!, 'nearest', { intersect: true }, false).length > 0;
                chart.canvas.style.cursor = over ? 'pointer' : 'default';
              },
              onClick: (event, _elements, chart) => {
                // On the element clicked; on a line, also the point nearest the click, as points are small.
                const [hit] = chart.getElementsAtEventForMode(event.native!, 'nearest', { intersect: true }, false);
                const [near] =
                  hit || base.type !== 'line' ? [] : chart.getElementsAtEventForMode(event.native!, 'nearest', { intersect: false }, false);
                const element = hit ?? near;
                if (element) handler.current?.(element.datasetIndex, element.index);
              },
            },
          },
    );
    if (clickable) {
      const points = chart.data.datasets.map((_, i) => chart.getDatasetMeta(i).data.map(centreOf));
      canvas.current.dataset.points = JSON.stringify(points);
    }
    return () => chart.destroy();
    // `config` is rebuilt on every render; `described` says when what it draws changed.
  }, [described, clickable]);

  return (
    <div style={{ position: 'relative', height }}>
      <canvas ref={canvas} role="img" data-testid={testId} data-series={described} aria-label={label} />
    </div>
  );
}
