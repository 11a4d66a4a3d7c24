import { Box, Group, Stack, Text } from '@mantine/core';
import { colourOf } from './chart';
import { formatNumber, formatPercent } from './format';
import { stepName, type FunnelGroup } from './funnel';

/**
 * The steps chart: a bar per step (per breakdown value), as wide as the share of the first step's
 * persons who got there, with the conversion from the first and from the previous step in words.
 */
export function FunnelSteps({ groups, height }: { groups: FunnelGroup[]; height?: number }) {
  const steps = groups[0]?.steps ?? [];
  return (
    <Stack gap="sm" data-testid="funnel-steps" style={height ? { maxHeight: height, overflowY: 'auto' } : undefined}>
      {steps.map((step, i) => (
        <Stack key={i} gap={4} data-testid="funnel-step" data-step={i}>
          <Text size="sm" fw={600}>
            {i + 1}. {stepName(step)}
          </Text>
          {groups.map((group, g) => {
            const reached = group.steps[i]?.count ?? 0;
            const first = group.steps[0]?.count ?? 0;
            const previous = i === 0 ? reached : (group.steps[i - 1]?.count ?? 0);
            return (
              <Group
                key={group.key}
                gap="sm"
                wrap="nowrap"
                data-testid="funnel-bar"
                data-breakdown={group.label ?? ''}
                data-count={reached}
              >
                <Box w={{ base: 120, sm: 180 }} style={{ flexShrink: 0 }}>
                  <Text size="xs" c="dimmed" truncate>
                    {group.label ?? 'All persons'}
                  </Text>
                </Box>
                <Box style={{ flex: 1, minWidth: 80, background: 'var(--mantine-color-gray-1)', borderRadius: 4, height: 22 }}>
                  <Box
                    style={{
                      width: first ? `${(reached / first) * 100}%` : 0,
                      background: colourOf(g),
                      borderRadius: 4,
                      height: '100%',
                    }}
                  />
                </Box>
                {/* Gives way to the bar in a narrow box (a dashboard tile). */}
                <Text size="sm" w={320} style={{ flexShrink: 1, minWidth: 0 }}>
                  <span data-testid="funnel-count">{formatNumber(reached)}</span> {reached === 1 ? 'person' : 'persons'} ·{' '}
                  <span data-testid="funnel-conversion">{formatPercent(reached, first)}</span>
                  {i > 0 && ' of first'}
                  {i > 0 && (
                    <>
                      {' '}
                      · <span data-testid="funnel-from-previous">{formatPercent(reached, previous)}</span> from previous
                    </>
                  )}
                </Text>
              </Group>
            );
          })}
        </Stack>
      ))}
    </Stack>
  );
}
