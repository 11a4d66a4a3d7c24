import { Alert, Anchor, Center, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { GROUPS_PAGE_SIZE, useGroups, useGroupTypes } from '../../api/groups';
import { useEnvironment } from '../../shell/ProjectScope';
import { formatTime, offsetParam } from '../persons/format';
import { Pager } from '../persons/Pager';
import { PeopleTabs } from '../persons/PeopleTabs';
import { groupName, groupPath } from './format';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';

/** A group type's groups (PostHog's `/project/:id/groups/:groupTypeIndex`), newest first, searched. */
export function Component() {
  const environment = useEnvironment();
  const { groupTypeIndex = '' } = useParams();
  const index = Number(groupTypeIndex);
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const offset = offsetParam(params);
  const [typed, setTyped] = useState(search);
  const types = useGroupTypes(environment.id);
  const groups = useGroups(environment.id, index, search, offset);
  const type = types.data?.find((t) => t.group_type_index === index);

  const setQuery = (next: { search?: string; offset?: number }) =>
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next.search !== undefined) {
          if (next.search) updated.set('search', next.search);
          else updated.delete('search');
          updated.delete('offset');
        }
        if (next.offset !== undefined) {
          if (next.offset > 0) updated.set('offset', String(next.offset));
          else updated.delete('offset');
        }
        return updated;
      },
      { replace: next.search !== undefined },
    );
  const searchLater = useDebouncedCallback((value: string) => setQuery({ search: value.trim() }), 300);
  const results = groups.data?.results ?? [];

  return (
    <Stack gap="sm">
      <Title order={2}>Groups</Title>
      <PeopleTabs active={`groups/${groupTypeIndex}`} />
      {types.isSuccess && !type && (
        <Alert color="yellow" role="alert">
          This environment has no group type {groupTypeIndex}.
        </Alert>
      )}
      <TextInput
        aria-label="Search groups"
        placeholder="Search by key or property"
        value={typed}
        w={420}
        onChange={(e) => {
          setTyped(e.currentTarget.value);
          searchLater(e.currentTarget.value);
        }}
      />
      <ErrorAlert message={groups.error?.message} />
      {groups.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading" />
        </Center>
      ) : results.length === 0 && !groups.isError ? (
        <Text c="dimmed" p="md" data-testid="groups-empty">
          {search ? `No group matches “${search}”.` : 'No groups of this type yet.'}
        </Text>
      ) : (
        <Table striped highlightOnHover withTableBorder aria-label="Groups" data-testid="groups-table">
          <TableHead columns={['Group', 'Key', { label: 'First seen', w: 200 }]} />
          <Table.Tbody>
            {results.map((group) => (
              <Table.Tr key={group.group_key} data-testid="group-row">
                <Table.Td style={{ wordBreak: 'break-word' }}>
                  <Anchor component={Link} to={groupPath(environment.id, group)}>
                    {groupName(group)}
                  </Anchor>
                </Table.Td>
                <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
                  {group.group_key}
                </Table.Td>
                <Table.Td>{formatTime(group.created_at)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Pager
        offset={offset}
        pageSize={GROUPS_PAGE_SIZE}
        shown={results.length}
        count={groups.data?.count}
        hasNext={Boolean(groups.data?.next)}
        onOffset={(value) => setQuery({ offset: value })}
      />
    </Stack>
  );
}
