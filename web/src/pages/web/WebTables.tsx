import { Alert, Paper, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { memo } from 'react';
import type { PropertyFilter } from '../../api/types';
import { useWebStatsTable, useWebVitals, type VitalsBand, type WebRange } from '../../api/web-analytics';
import { formatCount, formatVital } from './format';
import { METRICS, PERCENTILES, VITALS_QUERIES } from './tiles';

interface Shared {
  environmentId: number;
  range: WebRange;
  properties: PropertyFilter[];
}

/**
 * One breakdown: its values by visitors, with views and a bar of the share of visitors. Drawn
 * again only for its own answer or filters, not for each answer the page gets. With `filter`, a
 * value is a button setting that filter of the page (`onFilter` is stable, so the memo holds);
 * the value the filter holds (`active`) is marked, and clicked again it clears the filter, as
 * PostHog toggles it.
 */
export const StatsTable = memo(function StatsTable({
  environmentId,
  breakdownBy,
  title,
  column,
  range,
  properties,
  noValue = '(not set)',
  filter,
  active = '',
  onFilter,
}: Shared & {
  breakdownBy: string;
  title: string;
  column: string;
  noValue?: string;
  filter?: string;
  active?: string;
  onFilter: (values: Record<string, string>) => void;
}) {
  const table = useWebStatsTable(environmentId, breakdownBy, range, properties);
  const rows = table.data?.results ?? [];
  const top = Math.max(1, ...rows.map((r) => r[1][0]));
  return (
    <Paper withBorder p="sm" data-testid={`table-${breakdownBy}`} aria-busy={table.isPending}>
      <Title order={4} mb="xs">
        {title}
      </Title>
      {table.isError && <Alert color="red">{table.error.message}</Alert>}
      <Table fz="sm" verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{column}</Table.Th>
            <Table.Th ta="right">Visitors</Table.Th>
            <Table.Th ta="right">Views</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(([value, [visitors], [views]]) => (
            <Table.Tr key={String(value)} className={filter && value !== null && value === active ? 'web-filter-active' : undefined}>
              <Table.Td className="web-bar-cell">
                <span className="web-bar" style={{ width: `${(100 * visitors) / top}%` }} />
                <span className="web-bar-label">
                  {value === null ? (
                    <Text span fs="italic" c="dimmed" inherit>
                      {noValue}
                    </Text>
                  ) : filter ? (
                    // A row without a value has nothing an exact filter could match: not a button.
                    <UnstyledButton
                      fz="inherit"
                      className="web-filter-value"
                      aria-pressed={value === active}
                      title={value === active ? `Clear the ${column.toLowerCase()} filter` : `Filter by ${column.toLowerCase()} ${value}`}
                      onClick={() => onFilter({ [filter]: value === active ? '' : value })}
                    >
                      {value}
                    </UnstyledButton>
                  ) : (
                    value
                  )}
                </span>
              </Table.Td>
              <Table.Td ta="right">{formatCount(visitors)}</Table.Td>
              <Table.Td ta="right">{formatCount(views)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {table.isSuccess && rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No data in this range.
        </Text>
      )}
    </Paper>
  );
});

const BAND_LABEL: Record<VitalsBand, string> = { good: 'good', needs_improvements: 'needs improvement', poor: 'poor' };

/** Every metric at p75 and p90 (one query each, as PostHog asks), merged into a row per path. */
function useVitalsGrid(environmentId: number, range: WebRange, properties: PropertyFilter[]) {
  const answers = useWebVitals(environmentId, VITALS_QUERIES, range, properties);
  const byPath = new Map<string, Map<string, { value: number; band: VitalsBand }>>();
  answers.forEach((answer, i) => {
    const { metric, percentile } = VITALS_QUERIES[i]!;
    const result = answer.data?.results[0];
    if (!result) return;
    for (const band of Object.keys(BAND_LABEL) as VitalsBand[]) {
      for (const { path, value } of result[band]) {
        if (!byPath.has(path)) byPath.set(path, new Map());
        byPath.get(path)!.set(`${metric} ${percentile}`, { value, band });
      }
    }
  });
  return {
    pending: answers.some((a) => a.isPending),
    error: answers.find((a) => a.isError)?.error ?? null,
    rows: [...byPath.entries()].sort(([a], [b]) => a.localeCompare(b)),
  };
}

export const VitalsTable = memo(function VitalsTable({ environmentId, range, properties }: Shared) {
  const grid = useVitalsGrid(environmentId, range, properties);
  return (
    <Paper withBorder p="sm" data-testid="web-vitals" aria-busy={grid.pending}>
      <Title order={4} mb="xs">
        Web vitals by path
      </Title>
      {grid.error && <Alert color="red">{grid.error.message}</Alert>}
      <Table.ScrollContainer minWidth={800}>
        <Table fz="sm" verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Path</Table.Th>
              {METRICS.flatMap((m) => PERCENTILES.map((p) => <Table.Th key={`${m} ${p}`} ta="right">{`${m} ${p}`}</Table.Th>))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {grid.rows.map(([path, cells]) => (
              <Table.Tr key={path} data-path={path}>
                <Table.Td>{path}</Table.Td>
                {METRICS.flatMap((m) =>
                  PERCENTILES.map((p) => {
                    const cell = cells.get(`${m} ${p}`);
                    return (
                      <Table.Td
                        key={`${m} ${p}`}
                        ta="right"
                        data-metric={`${m} ${p}`}
                        data-band={cell?.band ?? ''}
                        className={cell ? `vital-${cell.band}` : undefined}
                        title={cell ? BAND_LABEL[cell.band] : undefined}
                      >
                        {cell ? formatVital(m, cell.value) : '–'}
                      </Table.Td>
                    );
                  }),
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {!grid.pending && !grid.error && grid.rows.length === 0 && (
        <Text size="sm" c="dimmed">
          No web vitals in this range. posthog-js sends them with capture_performance web vitals on.
        </Text>
      )}
    </Paper>
  );
});
