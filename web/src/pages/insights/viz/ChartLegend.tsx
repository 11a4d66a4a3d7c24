import { ColorSwatch, Group, Text } from '@mantine/core';
import { formatNumber } from './format';

/** Under a chart: each line's colour, name and total, as text. */
export function ChartLegend({
  entries,
}: {
  entries: Array<{ key: string; colour: string; label: string; total: number; faded?: boolean }>;
}) {
  return (
    <Group gap="lg" mt="xs" data-testid="series-legend">
      {entries.map((e) => (
        <Group key={e.key} gap={6} wrap="nowrap" data-testid="series-row" data-label={e.label} data-total={e.total}>
          <ColorSwatch color={e.colour} size={10} style={e.faded ? { opacity: 0.4 } : undefined} />
          <Text size="sm">{e.label}</Text>
          <Text size="sm" fw={600}>
            {formatNumber(e.total)}
          </Text>
        </Group>
      ))}
    </Group>
  );
}
