import { ScrollArea, Table } from '@mantine/core';
import { formatDuration, formatNumber, formatPercent } from './format';
import { stepName, type FunnelGroup } from './funnel';

/** The conversion table: every step (per breakdown value) with its persons, conversion, drop-off and times. */
export function FunnelTable({ groups }: { groups: FunnelGroup[] }) {
  const broken = groups.some((g) => g.label !== null);
  return (
    <ScrollArea>
      <Table striped data-testid="funnel-table" withTableBorder>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Step</Table.Th>
            {broken && <Table.Th>Breakdown</Table.Th>}
            <Table.Th ta="right">Persons</Table.Th>
            <Table.Th ta="right">Conversion</Table.Th>
            <Table.Th ta="right">From previous</Table.Th>
            <Table.Th ta="right">Dropped off</Table.Th>
            <Table.Th ta="right">Average time</Table.Th>
            <Table.Th ta="right">Median time</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {groups.flatMap((group) =>
            group.steps.map((step, i) => {
              const first = group.steps[0]?.count ?? 0;
              const previous = i === 0 ? step.count : (group.steps[i - 1]?.count ?? 0);
              return (
                <Table.Tr key={`${group.key}:${i}`} data-testid="funnel-table-row" data-step={i} data-breakdown={group.label ?? ''}>
                  <Table.Td>
                    {i + 1}. {stepName(step)}
                  </Table.Td>
                  {broken && <Table.Td>{group.label}</Table.Td>}
                  <Table.Td ta="right">{formatNumber(step.count)}</Table.Td>
                  <Table.Td ta="right">{formatPercent(step.count, first)}</Table.Td>
                  <Table.Td ta="right">{i === 0 ? '' : formatPercent(step.count, previous)}</Table.Td>
                  <Table.Td ta="right">{i === 0 ? '' : formatNumber(previous - step.count)}</Table.Td>
                  <Table.Td ta="right">{i === 0 ? '' : formatDuration(step.average_conversion_time)}</Table.Td>
                  <Table.Td ta="right">{i === 0 ? '' : formatDuration(step.median_conversion_time)}</Table.Td>
                </Table.Tr>
              );
            }),
          )}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
