import { Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import type { TimeToConvertResult } from '../../../api/insights';
import { Chart, colourOf } from './chart';
import { formatDuration } from './format';

/**
 * Time to convert: how many persons took how long from the first step to the last, as a histogram
 * of PostHog's bins (`[seconds, persons]`, each bin from its seconds to the next one's).
 */
export function TimeToConvert({ result, height }: { result: TimeToConvertResult; height: number }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const bins = result.bins;
  const labels = bins.map(([seconds]) => formatDuration(seconds));
  const counts = bins.map(([, count]) => count);
  const described = JSON.stringify(result.bins);

  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: { labels, datasets: [{ label: 'Persons', data: counts, backgroundColor: colourOf(0) }] },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
  }, [described]);

  return (
    <Stack gap="xs" data-testid="time-to-convert">
      <Text size="sm">
        Average time to convert: <b data-testid="average-conversion-time">{formatDuration(result.average_conversion_time)}</b>
      </Text>
      <div style={{ position: 'relative', height }}>
        <canvas
          ref={canvas}
          role="img"
          data-bins={described}
          aria-label={bins.map(([seconds, count]) => `${formatDuration(seconds)}: ${count}`).join('; ')}
        />
      </div>
    </Stack>
  );
}
