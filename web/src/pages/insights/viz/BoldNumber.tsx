import { Group, Stack, Text, UnstyledButton } from '@mantine/core';
import type { TrendsResult } from '../../../api/insights';
import { formatNumber, formatPercent } from './format';
import { shownSeries, totalOf, type ShownSeries } from './series';

/**
 * PostHog's BoldNumber: each series' total over the range in large type; with the previous period,
 * its total and the change.
 */
export function BoldNumber({ results, onValue }: { results: TrendsResult[]; onValue?: (series: ShownSeries) => void }) {
  const series = shownSeries(results);
  const current = series.filter((s) => !s.previous);
  return (
    <Group gap="xl" justify="center" py="md" data-testid="bold-number">
      {current.map((s) => {
        const before = series.find((p) => p.previous && p.index === s.index);
        const change = before ? totalOf(s.result) - totalOf(before.result) : null;
        return (
          <Stack key={s.key} gap={0} align="center" data-testid="bold-number-series" data-label={s.label}>
            <UnstyledButton onClick={onValue && (() => onValue(s))} disabled={!onValue} title={onValue ? 'Show the persons' : undefined}>
              <Text fz={48} fw={700} lh={1.1} data-testid="bold-number-value">
                {formatNumber(totalOf(s.result))}
              </Text>
            </UnstyledButton>
            <Text size="sm" c="dimmed" truncate="end" maw={320} title={s.label} data-testid="bold-number-label">
              {s.label}
            </Text>
            {before && change !== null && (
              <Text size="sm" c={change > 0 ? 'green' : change < 0 ? 'red' : 'dimmed'} data-testid="bold-number-change">
                {change > 0 ? '▲' : change < 0 ? '▼' : '='} {formatPercent(Math.abs(change), totalOf(before.result))} from{' '}
                {formatNumber(totalOf(before.result))} the period before
              </Text>
            )}
          </Stack>
        );
      })}
    </Group>
  );
}
