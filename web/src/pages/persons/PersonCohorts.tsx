import { Anchor, Center, Loader, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { usePersonCohorts, type Person } from '../../api/persons';
import { useEnvironment } from '../../shell/ProjectScope';
import { ErrorAlert } from '../../components/ErrorAlert';
import { TableHead } from '../../components/TableHead';
import { CohortCount, useRefetchWhileCalculating } from '../cohorts/CohortCount';

/**
 * The cohorts the person is in now (static ones by membership, dynamic ones judged from its
 * properties), with their person counts: a dynamic cohort's is its last calculation's, or
 * "Calculating…" (the list is read again) while one is under way.
 */
export function PersonCohorts({ person }: { person: Person }) {
  const environment = useEnvironment();
  const cohorts = usePersonCohorts(environment.id, person.id);
  const calculating = cohorts.data?.results.some((cohort) => cohort.is_calculating) ?? false;
  useRefetchWhileCalculating(calculating, cohorts.refetch, cohorts.dataUpdatedAt);
  if (cohorts.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label="Loading cohorts" />
      </Center>
    );
  }
  if (cohorts.isError) {
    return <ErrorAlert message={cohorts.error.message} />;
  }
  const rows = cohorts.data.results;
  if (rows.length === 0) return <Text c="dimmed">This person is in no cohort.</Text>;
  return (
    <Table striped withTableBorder aria-label="Cohorts" data-testid="person-cohorts">
      <TableHead columns={['Cohort', { label: 'Persons', w: 160 }]} />
      <Table.Tbody>
        {rows.map((cohort) => (
          <Table.Tr key={cohort.id}>
            <Table.Td>
              <Anchor component={Link} to={`/project/${environment.id}/cohorts/${cohort.id}`}>
                {cohort.name || `Cohort ${cohort.id}`}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <CohortCount cohort={cohort} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
