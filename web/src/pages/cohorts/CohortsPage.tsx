import { Anchor, Badge, Button, Group, Loader, Pagination, Stack, Table, Text, Title } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useCohorts } from '../../api/cohorts';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { TableHead } from '../../components/TableHead';
import { DateTime } from '../../components/DateTime';
import { CohortCount, useRefetchWhileCalculating } from './CohortCount';

const PAGE = 50;

/** The project's cohorts, newest first. */
export function Component() {
  const environment = useEnvironment();
  const base = `/project/${environment.id}/cohorts`;
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const cohorts = useCohorts(environment.project_id, (page - 1) * PAGE, PAGE);
  const count = cohorts.data?.count ?? 0;
  // Dynamic cohorts are calculated in the background: the list is read again until they are done.
  const calculating = (cohorts.data?.results ?? []).some((cohort) => cohort.is_calculating);
  useRefetchWhileCalculating(calculating, cohorts.refetch, cohorts.dataUpdatedAt);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Cohorts</Title>
        <Button component={Link} to={`${base}/new`}>
          New cohort
        </Button>
      </Group>
      {cohorts.error ? (
        <ErrorNotice error={cohorts.error} title="The cohorts could not be loaded" />
      ) : cohorts.isPending ? (
        <Loader aria-label="Loading" />
      ) : count === 0 ? (
        <Text c="dimmed" data-testid="cohorts-empty">
          No cohorts yet. A cohort groups persons by their properties, or lists them from a CSV file.
        </Text>
      ) : (
        <>
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover data-testid="cohorts-table">
              <TableHead columns={['Name', 'Type', 'Persons', 'Created by', 'Created']} />
              <Table.Tbody>
                {cohorts.data?.results.map((cohort) => (
                  <Table.Tr key={cohort.id} data-testid="cohort-row">
                    <Table.Td>
                      <Anchor component={Link} to={`${base}/${cohort.id}`}>
                        {cohort.name || `Cohort ${cohort.id}`}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={cohort.is_static ? 'grape' : 'blue'}>
                        {cohort.is_static ? 'Static' : 'Dynamic'}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <CohortCount cohort={cohort} />
                    </Table.Td>
                    <Table.Td>{cohort.created_by?.email ?? ''}</Table.Td>
                    <Table.Td>
                      <DateTime value={cohort.created_at} dateOnly />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {count > PAGE && <Pagination total={Math.ceil(count / PAGE)} value={page} onChange={(n) => setParams({ page: String(n) })} />}
        </>
      )}
    </Stack>
  );
}
