import { Anchor, Center, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PERSONS_PAGE_SIZE, usePersons } from '../../api/persons';
import { useEnvironment } from '../../shell/ProjectScope';
import { formatTime, offsetParam, personName, personPath } from './format';
import { Pager } from './Pager';
import { PeopleTabs } from './PeopleTabs';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';

/** People: the environment's persons, newest first, searched by email, name, distinct id or uuid. */
export function Component() {
  const environment = useEnvironment();
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const offset = offsetParam(params);
  const [typed, setTyped] = useState(search);
  const persons = usePersons(environment.id, search, offset);

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
  // Searched as the user types, once they pause.
  const searchLater = useDebouncedCallback((value: string) => setQuery({ search: value.trim() }), 300);

  const results = persons.data?.results ?? [];
  return (
    <Stack gap="sm">
      <Title order={2}>People</Title>
      <PeopleTabs active="persons" />
      <TextInput
        aria-label="Search persons"
        placeholder="Search by email, name, distinct id or uuid"
        value={typed}
        w={420}
        onChange={(e) => {
          setTyped(e.currentTarget.value);
          searchLater(e.currentTarget.value);
        }}
        rightSection={persons.isFetching ? <Loader size="xs" aria-label="Searching" /> : null}
      />
      <ErrorAlert message={persons.error?.message} />
      {persons.isPending ? (
        <Center p="xl">
          <Loader aria-label="Loading" />
        </Center>
      ) : results.length === 0 && !persons.isError ? (
        <Text c="dimmed" p="md" data-testid="persons-empty">
          {search
            ? `No person matches “${search}”.`
            : 'No persons yet. A person appears when an event arrives with its distinct id (posthog.identify() names one).'}
        </Text>
      ) : (
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
                  <Table.Td>{formatTime(person.created_at)}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <Pager
        offset={offset}
        pageSize={PERSONS_PAGE_SIZE}
        shown={results.length}
        count={persons.data?.count}
        hasNext={Boolean(persons.data?.next)}
        onOffset={(value) => setQuery({ offset: value })}
      />
    </Stack>
  );
}
