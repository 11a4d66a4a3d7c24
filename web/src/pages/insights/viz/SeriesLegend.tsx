import { ColorSwatch, Group, Table, Text } from '@mantine/core';
import type { TrendsResult } from '../../../api/insights';
import { colourOf } from './chart';
import { formatNumber } from './format';
import { shownSeries, totalOf } from './series';

/** Under a chart: each series with its total over the range, as text a reader (or a test) can read. */
export function SeriesLegend({ results }: { results: TrendsResult[] }) {
  return (
    <Table data-testid="series-legend" withRowBorders={false} verticalSpacing={2}>
      <Table.Tbody>
        {shownSeries(results).map((s) => (
          <Table.Tr key={s.key} data-testid="series-row" data-label={s.label} data-total={totalOf(s.result)}>
            {/* Width 100% with max-width 0: the label takes the room the total leaves and is cut there
                (a breakdown value can be thousands of characters), the whole of it in its title. */}
            <Table.Td w="100%" maw={0}>
              <Group gap={6} wrap="nowrap">
                <ColorSwatch color={colourOf(s.index)} size={10} style={s.previous ? { opacity: 0.4 } : undefined} />
                <Text size="sm" truncate="end" miw={0} title={s.label} data-testid="series-label">
                  {s.label}
                </Text>
              </Group>
            </Table.Td>
            <Table.Td ta="right">
              <Text size="sm" fw={600} data-testid="series-total">
                {formatNumber(totalOf(s.result))}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
