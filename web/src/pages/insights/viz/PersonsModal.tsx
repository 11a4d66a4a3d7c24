import { Anchor, Button, Group, Modal, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useInsightActors, type ActorsRow, type ActorsSource } from '../../../api/insight-actors';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { Loading } from '../../../components/Loading';
import { TableHead } from '../../../components/TableHead';
import { displayValue } from '../../activity/EventsTable';
import { personPath } from '../../persons/format';
import { formatNumber } from './format';

/** What a persons modal is about: the value clicked, in words, and the query behind it. */
export interface PersonsOf {
  title: string;
  source: ActorsSource;
}

function uniqueById(rows: ActorsRow[]): ActorsRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.actor.id) && Boolean(seen.add(row.actor.id)));
}

/** An actor's name as the persons list shows it: email, name or username, else the first distinct id. */
function actorName(row: ActorsRow): string {
  const properties = row.actor.properties ?? {};
  for (const key of ['email', 'name', 'username']) {
    const value = displayValue(properties[key]);
    if (value) return value;
  }
  return row.actor.distinct_ids[0] ?? row.actor.id;
}

/**
 * PostHog's persons modal: the persons behind the value clicked, a page at a time, each linking to
 * their page and, when their events fall in recorded sessions, to the first recording.
 */
export function PersonsModal({ environmentId, of, onClose }: { environmentId: number; of: PersonsOf; onClose: () => void }) {
  const actors = useInsightActors(environmentId, of.source);
  // Pages are read at different times: a person whose count grew since may come again on a later one.
  const rows = uniqueById(actors.data?.pages.flatMap((page) => page.rows) ?? []);
  const trends = of.source.kind === 'InsightActorsQuery' && of.source.source.kind === 'TrendsQuery';
  const retention = of.source.kind === 'InsightActorsQuery' && of.source.source.kind === 'RetentionQuery';
  const period = of.source.source.kind === 'RetentionQuery' ? (of.source.source.retentionFilter.period ?? 'Day') : '';
  const recorded = rows.some((row) => row.recordings.length > 0);
  const columns = ['Person', ...(trends ? ['Events'] : []), ...(retention ? ['Back in'] : []), ...(recorded ? ['Recording'] : [])];
  return (
    <Modal opened onClose={onClose} title={of.title} size="xl" data-testid="persons-modal">
      {actors.error ? (
        <ErrorAlert message={actors.error.message} title="The persons could not be listed" />
      ) : actors.isPending ? (
        <Loading h={120} />
      ) : rows.length === 0 ? (
        <Text c="dimmed">No persons.</Text>
      ) : (
        <>
          <Table data-testid="persons-modal-table">
            <TableHead columns={columns} />
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.actor.id} data-testid="persons-modal-row">
                  <Table.Td>
                    {row.actor.properties && row.actor.distinct_ids[0] !== undefined ? (
                      <Anchor component={Link} to={personPath(environmentId, row.actor.distinct_ids[0])}>
                        {actorName(row)}
                      </Anchor>
                    ) : (
                      <Text span c="dimmed" title="This person has been deleted since.">
                        {actorName(row)} (deleted)
                      </Text>
                    )}
                  </Table.Td>
                  {trends && <Table.Td data-testid="persons-modal-events">{formatNumber(row.eventCount)}</Table.Td>}
                  {retention && (
                    <Table.Td data-testid="persons-modal-back">
                      {(row.intervals ?? []).flatMap((back, k) => (back && k > 0 ? [`${period} ${k}`] : [])).join(', ') || '–'}
                    </Table.Td>
                  )}
                  {recorded && (
                    <Table.Td>
                      {row.recordings[0] && (
                        <Anchor
                          component={Link}
                          to={`/project/${environmentId}/replay/${encodeURIComponent(row.recordings[0].session_id)}`}
                        >
                          Watch{row.recordings.length > 1 ? ` (1 of ${row.recordings.length})` : ''}
                        </Anchor>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group justify="space-between" mt="sm">
            <Text size="sm" c="dimmed" data-testid="persons-modal-count">
              {rows.length === 1 ? '1 person' : `${formatNumber(rows.length)} persons`}
              {actors.hasNextPage ? ' shown' : ''}
            </Text>
            {actors.hasNextPage && (
              <Button variant="default" size="xs" loading={actors.isFetchingNextPage} onClick={() => void actors.fetchNextPage()}>
                Load more
              </Button>
            )}
          </Group>
        </>
      )}
    </Modal>
  );
}
