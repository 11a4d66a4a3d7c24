import { Anchor, Center, Loader, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { usePersonRecordings, type Person } from '../../api/persons';
import { useEnvironment } from '../../shell/ProjectScope';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { DateTime } from '../../components/DateTime';

function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** The person's session recordings, each a link to the player (`replay/:id`). */
export function PersonRecordings({ person }: { person: Person }) {
  const environment = useEnvironment();
  const recordings = usePersonRecordings(environment.id, person.uuid);
  if (recordings.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading recordings" />
      </Center>
    );
  }
  if (recordings.isError) {
    return <ErrorAlert message={recordings.error.message} />;
  }
  const rows = recordings.data.results;
  if (rows.length === 0) return <Text c="dimmed">No recordings of this person.</Text>;
  return (
    <Table striped withTableBorder aria-label="Recordings" data-testid="person-recordings">
      <TableHead columns={['Started', 'Duration', 'Clicks', 'First URL']} />
      <Table.Tbody>
        {rows.map((recording) => (
          <Table.Tr key={recording.id}>
            <Table.Td>
              <Anchor component={Link} to={`/project/${environment.id}/replay/${encodeURIComponent(recording.id)}`}>
                <DateTime value={recording.start_time} />
              </Anchor>
              {recording.ongoing ? ' (ongoing)' : ''}
            </Table.Td>
            <Table.Td>{duration(recording.recording_duration)}</Table.Td>
            <Table.Td>{recording.click_count}</Table.Td>
            <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
              {recording.start_url ?? ''}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
      {recordings.data.next && (
        <Table.Caption>The newest {rows.length} recordings; the Replay page filters by person for the rest.</Table.Caption>
      )}
    </Table>
  );
}
