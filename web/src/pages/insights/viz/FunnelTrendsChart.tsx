import { ColorSwatch, Group, Stack, Text } from '@mantine/core';
import type { FunnelTrendsResult } from '../../../api/insights';
import { colourOf, overTimeOptions } from './chart';
import { ChartCanvas } from './ChartCanvas';
import { breakdownLabel } from './format';

/** A trends view's line as shown: the breakdown value in words, or "Conversion rate". */
export const funnelTrendLabel = (result: FunnelTrendsResult): string =>
  result.breakdown_value === undefined ? 'Conversion rate' : breakdownLabel(result.breakdown_value[0]);

/** A bucket on the axis: PostHog's day label, with the hour when the buckets are hours. */
const axisLabel = (result: FunnelTrendsResult, i: number): string => {
  const day = result.days[i] ?? '';
  return day.length > 10 ? `${result.labels[i] ?? day} ${day.slice(11, 16)}` : (result.labels[i] ?? day);
};

/**
 * A funnel's historical trends (PostHog's FunnelLineGraph): the conversion percentage per interval
 * of the first step, a line per breakdown value, with their names under it.
 */
export function FunnelTrendsChart({ results, height }: { results: FunnelTrendsResult[]; height: number }) {
  const lines = results.map((result, index) => ({ label: funnelTrendLabel(result), result, index }));
  const labels = results[0]?.days.map((_, i) => axisLabel(results[0]!, i)) ?? [];
  return (
    <Stack gap="xs">
      <ChartCanvas
        testId="funnel-trends-chart"
        height={height}
        described={JSON.stringify(lines.map((l) => ({ label: l.label, data: l.result.data, days: l.result.days })))}
        label={lines.map((l) => `${l.label}: ${l.result.data.map((v) => `${v}%`).join(', ')}`).join('; ')}
        config={() => ({
          type: 'line',
          data: {
            labels,
            datasets: lines.map((l) => ({
              label: l.label,
              data: l.result.data,
              borderColor: colourOf(l.index),
              backgroundColor: colourOf(l.index),
              pointRadius: 2,
              tension: 0,
            })),
          },
          options: overTimeOptions({ beginAtZero: true, suggestedMax: 100, ticks: { callback: (value) => `${value}%` } }),
        })}
      />
      <Group gap="md" data-testid="funnel-trends-legend">
        {lines.map((l) => (
          <Group key={`${l.index}:${l.label}`} gap={6} wrap="nowrap" data-testid="funnel-trend-row" data-label={l.label}>
            <ColorSwatch color={colourOf(l.index)} size={10} />
            <Text size="sm" truncate="end" maw={240} title={l.label}>
              {l.label}
            </Text>
          </Group>
        ))}
      </Group>
    </Stack>
  );
}
