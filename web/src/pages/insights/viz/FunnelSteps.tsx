import { Anchor, Box, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { colourOf } from './chart';
import { formatNumber, formatPercent } from './format';
import { stepName, type FunnelGroup } from './funnel';

/**
 * The steps chart: a bar per step (per breakdown value), as wide as the share of the first step's
 * persons who got there, with the conversion from the first and from the previous step in words.
 * With `onPersons`, the persons who reached a step and those who dropped off before it are links.
 */
export function FunnelSteps({
  groups,
  height,
  onPersons,
}: {
  groups: FunnelGroup[];
  height?: number;
  /** `step` 0-based; `reached` false: those who dropped off before it. */
  onPersons?: (group: FunnelGroup, step: number, reached: boolean) => void;
}) {
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
                  <PersonsLink
                    onClick={onPersons && reached > 0 ? () => onPersons(group, i, true) : undefined}
                    label="Show the persons who reached this step"
                  >
                    <span data-testid="funnel-count">{formatNumber(reached)}</span> {reached === 1 ? 'person' : 'persons'}
                  </PersonsLink>{' '}
                  · <span data-testid="funnel-conversion">{formatPercent(reached, first)}</span>
                  {i > 0 && ' of first'}
                  {i > 0 && (
                    <>
                      {' '}
                      · <span data-testid="funnel-from-previous">{formatPercent(reached, previous)}</span> from previous
                    </>
                  )}
                  {i > 0 && onPersons && previous > reached && (
                    <>
                      {' '}
                      ·{' '}
                      <PersonsLink onClick={() => onPersons(group, i, false)} label="Show the persons who dropped off before this step">
                        <span data-testid="funnel-dropped">{formatNumber(previous - reached)}</span> dropped off
                      </PersonsLink>
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

/** A count that lists its persons when clicked (plain text without a handler, or with no one to list). */
function PersonsLink({ onClick, label, children }: { onClick: (() => void) | undefined; label: string; children: ReactNode }) {
  if (!onClick) return <>{children}</>;
  return (
    <Anchor component="button" type="button" fz="sm" onClick={onClick} title={label} data-testid="funnel-persons">
      {children}
    </Anchor>
  );
}
