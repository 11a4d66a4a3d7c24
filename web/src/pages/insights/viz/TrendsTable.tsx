import { Anchor, ScrollArea, Table, Text } from '@mantine/core';
import type { TrendsResult } from '../../../api/insights';
import { formatNumber } from './format';
import { shownSeries, totalOf, type ShownSeries } from './series';

const keyOf = (r: TrendsResult) => `${r.action.order}:${r.breakdown_value ?? ''}:${r.compare_label ?? ''}`;

/** A value, as a button that lists its persons when `onClick` is given and it counts someone. */
function Value({ value, onClick, label }: { value: number; onClick: (() => void) | undefined; label: string }) {
  if (!onClick || value === 0) return formatNumber(value);
  return (
    <Anchor component="button" type="button" fz="sm" fw="inherit" onClick={onClick} aria-label={`Show the persons of ${label}`}>
      {formatNumber(value)}
    </Anchor>
  );
}

/**
 * Series × dates, with each series' total: PostHog's table display. `totals`: the same series
 * answered over the whole range (aggregated_value), for the total column; else the dates' sum.
 * With `onValue`, a value lists its persons: a date's (its index) or the total's (null).
 */
export function TrendsTable({
  results,
  totals = [],
  onValue,
}: {
  results: TrendsResult[];
  totals?: TrendsResult[];
  onValue?: (series: ShownSeries, index: number | null) => void;
}) {
  const series = shownSeries(results);
  const totalOfRow = (r: TrendsResult) => {
    const whole = totals.find((t) => keyOf(t) === keyOf(r));
    return whole ? totalOf(whole) : r.count;
  };
  const first = series.find((s) => !s.previous) ?? series[0];
  const labels = first?.result.labels ?? [];
  return (
    <ScrollArea>
      <Table striped data-testid="trends-table" withTableBorder>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Series</Table.Th>
            <Table.Th ta="right">Total</Table.Th>
            {labels.map((label, i) => (
              <Table.Th key={i} ta="right" style={{ whiteSpace: 'nowrap' }}>
                {label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {series.map((s) => (
            <Table.Tr key={s.key} data-testid="trends-table-row" data-label={s.label}>
              <Table.Td>
                {/* Cut at a width that leaves the numbers in view: a breakdown value can be thousands of characters. */}
                <Text inherit truncate="end" maw={320} title={s.label} data-testid="trends-table-label">
                  {s.label}
                </Text>
              </Table.Td>
              <Table.Td ta="right" fw={600} data-testid="trends-table-total">
                <Value value={totalOfRow(s.result)} onClick={onValue && (() => onValue(s, null))} label={`${s.label}, total`} />
              </Table.Td>
              {s.result.data.map((value, i) => (
                <Table.Td key={i} ta="right" data-testid="trends-table-cell" title={s.result.labels[i]}>
                  <Value value={value} onClick={onValue && (() => onValue(s, i))} label={`${s.label} on ${s.result.labels[i] ?? ''}`} />
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
