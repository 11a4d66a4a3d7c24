import { Anchor, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { Link } from 'react-router';
import { PERSONS_PAGE_SIZE, usePersons } from '../../api/persons';
import { useEnvironment } from '../../shell/ProjectScope';
import { personName, personPath } from './format';
import { Pager } from './Pager';
import { PeopleTabs } from './PeopleTabs';
import { useListQuery } from '../../components/useListQuery';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { Loading } from '../../components/Loading';
import { DateTime } from '../../components/DateTime';

/** People: the environment's persons, newest first, searched by email, name, distinct id or uuid. */
export function Component() {
  const environment = useEnvironment();
  const { search, offset, setOffset, searchInput } = useListQuery();
  const persons = usePersons(environment.id, search, offset);

  const results = persons.data?.results ?? [];
  return (
    <Stack gap="sm">
      <Title order={2}>People</Title>
      <PeopleTabs active="persons" />
      <TextInput
        aria-label="Search persons"
        placeholder="Search by email, name, distinct id or uuid"
        w={420}
        {...searchInput}
        rightSection={persons.isFetching ? <Loader size="xs" aria-label="Searching" /> : null}
      />
      <ErrorAlert message={persons.error?.message} />
      {persons.isPending ? (
        <Loading p="xl" />
      ) : results.length === 0 && !persons.isError ? (
        <Text c="dimmed" p="md" data-testid="persons-empty">
          {search
            ? `No person matches “${search}”.`
            : 'No persons yet. A person appears when an event arrives with its distinct id (posthog.identify() names one).'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover withTableBorder aria-label="Persons" data-testid="persons-table">
            <TableHead columns={['Person', 'Distinct id', { label: 'First seen', w: 200 }]} />
            <Table.Tbody>
              {results.map((person) => {
                const distinctId = person.distinct_ids[0];
                return (
                  <Table.Tr key={person.uuid} data-testid="person-row">
                    <Table.Td style={{ wordBreak: 'break-word' }}>
                      {distinctId === undefined ? (
                        personName(person)
                      ) : (
                        <Anchor component={Link} to={personPath(environment.id, distinctId)}>
                          {personName(person)}
                        </Anchor>
                      )}
                    </Table.Td>
                    <Table.Td className="mono" style={{ wordBreak: 'break-all' }}>
                      {distinctId}
                      {person.distinct_ids.length > 1 ? ` (+${person.distinct_ids.length - 1})` : ''}
                    </Table.Td>
                    <Table.Td>
                      <DateTime value={person.created_at} />
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Pager
        offset={offset}
        pageSize={PERSONS_PAGE_SIZE}
        shown={results.length}
        count={persons.data?.count}
        hasNext={Boolean(persons.data?.next)}
        onOffset={setOffset}
      />
    </Stack>
  );
}
