import { Alert, Anchor, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { GROUPS_PAGE_SIZE, useGroups, useGroupTypes } from '../../api/groups';
import { useEnvironment } from '../../shell/ProjectScope';
import { Pager } from '../persons/Pager';
import { PeopleTabs } from '../persons/PeopleTabs';
import { groupName, groupPath } from './format';
import { useListQuery } from '../../components/useListQuery';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

/** A group type's groups (PostHog's `/project/:id/groups/:groupTypeIndex`), newest first, searched. */
export function Component() {
  const environment = useEnvironment();
  const { groupTypeIndex = '' } = useParams();
  const index = Number(groupTypeIndex);
  const { search, offset, setOffset, searchInput } = useListQuery();
  const types = useGroupTypes(environment.id);
  const groups = useGroups(environment.id, index, search, offset);
  const type = types.data?.find((t) => t.group_type_index === index);

  const results = groups.data?.results ?? [];

  if (types.isSuccess && !type) {
    // No such type: its list (empty, or refused) would only repeat that.
    return (
      <Stack gap="sm">
        <Title order={2}>Groups</Title>
        <PeopleTabs active={`groups/${groupTypeIndex}`} />
        <Alert color="yellow" role="alert">
          This environment has no group type {groupTypeIndex}.
        </Alert>
      </Stack>
    );
  }

  return (
    <Stack gap="sm">
      <Title order={2}>Groups</Title>
      <PeopleTabs active={`groups/${groupTypeIndex}`} />
      <TextInput aria-label="Search groups" placeholder="Search by key or property" w={420} {...searchInput} />
      <ErrorAlert message={groups.error?.message} />
      {groups.isPending ? (
        <Loading p="xl" />
      ) : results.length === 0 && !groups.isError ? (
        <Text c="dimmed" p="md" data-testid="groups-empty">
          {search ? `No group matches “${search}”.` : 'No groups of this type yet.'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
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
                  <Table.Td>
                    <DateTime value={group.created_at} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Pager
        offset={offset}
        pageSize={GROUPS_PAGE_SIZE}
        shown={results.length}
        count={groups.data?.count}
        hasNext={Boolean(groups.data?.next)}
        onOffset={setOffset}
      />
    </Stack>
  );
}
