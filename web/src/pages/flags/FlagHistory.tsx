import { Code, Group, Loader, Pagination, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useFlagActivity, type ActivityEntry, type FlagFilters } from '../../api/flags';
import { describeRelease } from './flag-form';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { TableHead } from '../../components/TableHead';

const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

function Changes({ entry }: { entry: ActivityEntry }) {
  const changes = entry.detail.changes ?? [];
  if (entry.activity === 'created') return <Text size="sm">Created the flag</Text>;
  if (changes.length === 0) return <Text size="sm">{entry.activity}</Text>;
  return (
    <Stack gap={4}>
      {changes.map((change, i) =>
        // Release conditions are long: summed up in a line, in full below on request.
        change.field === 'filters' ? (
          <div key={i} data-testid="history-change">
            <Text size="sm">
              Changed <b>release conditions</b>: {describeRelease((change.before ?? {}) as FlagFilters)} →{' '}
              {describeRelease((change.after ?? {}) as FlagFilters)}
            </Text>
            <details>
              <summary>Changed filters in full</summary>
              <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {show(change.before)}
              </Code>
              <Code block mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {show(change.after)}
              </Code>
            </details>
          </div>
        ) : (
          <Text size="sm" key={i} data-testid="history-change" style={{ wordBreak: 'break-word' }}>
            Changed <b>{change.field ?? 'the flag'}</b> from <Code>{show(change.before)}</Code> to <Code>{show(change.after)}</Code>
          </Text>
        ),
      )}
    </Stack>
  );
}

/** The flag's change history, newest first (`feature_flags/:id/activity/`). */
export function FlagHistory({ projectId, flagId }: { projectId: number; flagId: number }) {
  const [page, setPage] = useState(1);
  const activity = useFlagActivity(projectId, flagId, page);
  if (activity.error) return <ErrorNotice error={activity.error} title="The history could not be loaded" />;
  if (activity.isPending) return <Loader aria-label="Loading" />;
  const { results, total_count } = activity.data;
  if (results.length === 0) return <Text c="dimmed">No changes recorded yet.</Text>;
  return (
    <Stack>
      <Table data-testid="flag-history" layout="fixed">
        <TableHead columns={[{ label: 'When', w: 190 }, { label: 'Who', w: 220 }, 'What']} />
        <Table.Tbody>
          {results.map((entry) => (
            <Table.Tr key={entry.id} data-testid="history-entry">
              <Table.Td>{new Date(entry.created_at).toLocaleString()}</Table.Td>
              <Table.Td>{entry.user.email ?? entry.user.first_name}</Table.Td>
              <Table.Td>
                <Changes entry={entry} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {total_count > 20 && (
        <Group>
          <Pagination total={Math.ceil(total_count / 20)} value={page} onChange={setPage} />
        </Group>
      )}
    </Stack>
  );
}
