import { Code, Group, Loader, Pagination, Stack, Table, Text } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { ACTIVITY_PAGE, useActivity, type ActivityChange, type ActivityEntry } from '../api/activity';
import { ErrorNotice } from '../shell/ErrorNotice';
import { TableHead } from './TableHead';
import { DateTime } from './DateTime';

/** A changed value as read: a string as its text (no JSON quotes or escapes), anything else as compact JSON. */
export const showValue = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** One side of a change, always as text (never markup); an empty string or no value said, not shown as `""` or `null`. */
function ChangeValue({ value }: { value: unknown }) {
  if (value === '' || value === null) {
    return (
      <Text span inherit fs="italic" c="dimmed">
        {value === '' ? '(empty)' : '(none)'}
      </Text>
    );
  }
  return <Code>{showValue(value)}</Code>;
}

/** A change in one line: "Changed <field> from <before> to <after>". */
export function PlainChange({ change, noun }: { change: ActivityChange; noun: string }) {
  return (
    <Text size="sm" data-testid="history-change" style={{ wordBreak: 'break-word' }}>
      Changed <b>{change.field ?? `the ${noun}`}</b> from <ChangeValue value={change.before} /> to <ChangeValue value={change.after} />
    </Text>
  );
}

function Changes({ entry, noun, renderChange }: { entry: ActivityEntry; noun: string; renderChange?: ChangeRenderer }) {
  const changes = entry.detail.changes ?? [];
  if (entry.activity === 'created') return <Text size="sm">Created the {noun}</Text>;
  if (changes.length === 0) return <Text size="sm">{entry.activity}</Text>;
  return (
    <Stack gap={4}>
      {changes.map((change, i) => (
        <div key={i}>{renderChange?.(change) ?? <PlainChange change={change} noun={noun} />}</div>
      ))}
    </Stack>
  );
}

/** How a page says a change of one of its fields in its own words; null for the plain line. */
export type ChangeRenderer = (change: ActivityChange) => ReactNode | null;

/**
 * An object's change history, newest first, from its `activity/` (PostHog's activity log page):
 * when (in `timeZone` when given), who, and what changed.
 */
export function ActivityLog({
  queryKey,
  path,
  noun,
  testId,
  renderChange,
  timeZone,
}: {
  queryKey: readonly unknown[];
  path: string;
  /** What the object is called: "flag", "insight". */
  noun: string;
  testId: string;
  renderChange?: ChangeRenderer;
  timeZone?: string;
}) {
  const [page, setPage] = useState(1);
  const activity = useActivity(queryKey, path, page);
  if (activity.error) return <ErrorNotice error={activity.error} title="The history could not be loaded" />;
  if (activity.isPending) return <Loader aria-label="Loading" />;
  const { results, total_count } = activity.data;
  if (results.length === 0) return <Text c="dimmed">No changes recorded yet.</Text>;
  return (
    <Stack>
      <Table.ScrollContainer minWidth={560}>
        <Table data-testid={testId} layout="fixed">
          <TableHead columns={[{ label: 'When', w: 190 }, { label: 'Who', w: 220 }, 'What']} />
          <Table.Tbody>
            {results.map((entry) => (
              <Table.Tr key={entry.id} data-testid="history-entry">
                <Table.Td>
                  <DateTime value={entry.created_at} timeZone={timeZone} />
                </Table.Td>
                <Table.Td>{entry.user.email ?? entry.user.first_name}</Table.Td>
                <Table.Td>
                  <Changes entry={entry} noun={noun} renderChange={renderChange} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {total_count > ACTIVITY_PAGE && (
        <Group>
          <Pagination total={Math.ceil(total_count / ACTIVITY_PAGE)} value={page} onChange={setPage} />
        </Group>
      )}
    </Stack>
  );
}
