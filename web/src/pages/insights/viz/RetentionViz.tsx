import { Anchor, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useInsightQuery, type RetentionQuery, type RetentionResult } from '../../../api/insights';
import { TableHead } from '../../../components/TableHead';
import { formatNumber, formatPercent } from './format';
import { InsightAnswer } from './InsightAnswer';
import { PersonsModal, type PersonsOf } from './PersonsModal';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A cohort's period as the table names it: its local start (`8-Jan-2024`, with the hour by hour). */
export function cohortName(row: RetentionResult, period: string | undefined): string {
  const [date = '', time = ''] = row.date.split('T');
  const [year, month, day] = date.split('-');
  const name = `${Number(day)}-${MONTHS[Number(month) - 1] ?? month}-${year}`;
  return period === 'Hour' ? `${name} ${time.slice(0, 5)}` : name;
}

/**
 * PostHog's retention table: a row per cohort (its period and size), then the share of it counted
 * at each later period, shaded by that share; periods not reached yet are left blank.
 */
function RetentionTable({
  results,
  period,
  onCohort,
}: {
  results: RetentionResult[];
  period: string | undefined;
  /** A click on a cohort's size: its persons. */
  onCohort: (index: number) => void;
}) {
  const intervals = results[0]?.values.map((v) => v.label) ?? [];
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table data-testid="retention-table" withColumnBorders>
        <TableHead columns={['Cohort', 'Persons', ...intervals]} />
        <Table.Tbody>
          {results.map((row, i) => {
            const size = row.values[0]?.count ?? 0;
            return (
              <Table.Tr key={row.date} data-testid="retention-row">
                <Table.Td>{cohortName(row, period)}</Table.Td>
                <Table.Td data-testid="retention-size">
                  {size > 0 ? (
                    <Anchor component="button" type="button" fz="sm" onClick={() => onCohort(i)} title="Show the persons of this cohort">
                      {formatNumber(size)}
                    </Anchor>
                  ) : (
                    formatNumber(size)
                  )}
                </Table.Td>
                {row.values.map((value, k) => {
                  // Cohort i's period k is past the window's last period: not reached yet.
                  const reached = i + k < results.length;
                  const share = size ? value.count / size : 0;
                  return (
                    <Table.Td
                      key={k}
                      data-testid="retention-cell"
                      data-count={reached ? value.count : ''}
                      title={reached ? `${formatNumber(value.count)} of ${formatNumber(size)}` : undefined}
                      style={
                        reached && size
                          ? { background: `rgba(29, 74, 255, ${0.08 + share * 0.72})`, color: share > 0.5 ? 'white' : undefined }
                          : undefined
                      }
                    >
                      {reached ? formatPercent(value.count, size) : ''}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A retention query, run and shown as its table. */
export function RetentionViz({ environmentId, source, height }: { environmentId: number; source: RetentionQuery; height: number }) {
  const answer = useInsightQuery<RetentionResult[]>(environmentId, source);
  const [persons, setPersons] = useState<PersonsOf | null>(null);
  const onCohort = (results: RetentionResult[]) => (index: number) =>
    setPersons({
      title: `Cohort of ${cohortName(results[index]!, source.retentionFilter.period)}`,
      source: { kind: 'InsightActorsQuery', source, interval: index },
    });
  return (
    <>
      <InsightAnswer answers={[answer]} kind="RetentionQuery" height={height} isEmpty={([{ results }]) => results.length === 0}>
        {([{ results }]) =>
          results.every((row) => (row.values[0]?.count ?? 0) === 0) ? (
            <Text c="dimmed">No one did the cohort event in these periods.</Text>
          ) : (
            <RetentionTable results={results} period={source.retentionFilter.period} onCohort={onCohort(results)} />
          )
        }
      </InsightAnswer>
      {persons && <PersonsModal environmentId={environmentId} of={persons} onClose={() => setPersons(null)} />}
    </>
  );
}
