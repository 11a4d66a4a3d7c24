import { Anchor, Badge, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useCreateDashboard, useDashboards, useSaveDashboard, type DashboardBasic } from '../../api/dashboards';
import { ConfirmAction } from '../../components/ConfirmAction';
import { Loading } from '../../components/Loading';
import { TableHead } from '../../components/TableHead';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { DateTime } from '../../components/DateTime';
import { DashboardDetailsModal } from './DashboardDetailsModal';

/** "New dashboard": name and description; the new dashboard opens once made. */
function NewDashboardModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const environment = useEnvironment();
  const create = useCreateDashboard(environment.id);
  const navigate = useNavigate();
  return (
    <DashboardDetailsModal
      opened={opened}
      onClose={onClose}
      title="New dashboard"
      submitLabel="Create"
      onSave={async (details) => {
        const dashboard = await create.mutateAsync(details);
        onClose();
        void navigate(`/project/${environment.id}/dashboard/${dashboard.id}`);
      }}
    />
  );
}

function matches(dashboard: DashboardBasic, search: string): boolean {
  const needle = search.toLowerCase();
  return (dashboard.name ?? '').toLowerCase().includes(needle) || dashboard.description.toLowerCase().includes(needle);
}

/** `/project/:id/dashboard`: the environment's dashboards, pinned first, searched in the page as PostHog's list is. */
export function Component() {
  const environment = useEnvironment();
  const base = `/project/${environment.id}`;
  const dashboards = useDashboards(environment.id);
  const save = useSaveDashboard(environment.id);
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const [creating, setCreating] = useState(false);

  const rows = (dashboards.data?.results ?? [])
    .filter((d) => !search || matches(d, search))
    .sort((a, b) => Number(b.pinned) - Number(a.pinned) || (a.name ?? '').localeCompare(b.name ?? ''));

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Dashboards</Title>
        <Button onClick={() => setCreating(true)}>New dashboard</Button>
      </Group>
      <TextInput
        label="Search"
        placeholder="name or description"
        value={search}
        w={300}
        onChange={(e) => {
          const next = new URLSearchParams(params);
          if (e.currentTarget.value) next.set('search', e.currentTarget.value);
          else next.delete('search');
          setParams(next, { replace: true });
        }}
      />
      {dashboards.error ? (
        <ErrorNotice error={dashboards.error} title="The dashboards could not be loaded" />
      ) : dashboards.isPending ? (
        <Loading p="md" />
      ) : rows.length === 0 ? (
        <Text c="dimmed" data-testid="dashboards-empty">
          {search ? 'No dashboards match this search.' : 'No dashboards yet. Create one to put insights side by side.'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover data-testid="dashboards-table">
            <TableHead columns={['Name', 'Description', { label: 'Pinned', w: 100 }, 'Created', '']} />
            <Table.Tbody>
              {rows.map((dashboard) => (
                <Table.Tr key={dashboard.id} data-testid="dashboard-row">
                  <Table.Td>
                    <Anchor component={Link} to={`${base}/dashboard/${dashboard.id}`}>
                      {dashboard.name || 'Untitled'}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{dashboard.description}</Table.Td>
                  <Table.Td>{dashboard.pinned && <Badge variant="light">Pinned</Badge>}</Table.Td>
                  <Table.Td>
                    <DateTime value={dashboard.created_at} dateOnly />
                    {dashboard.created_by ? ` by ${dashboard.created_by.email}` : ''}
                  </Table.Td>
                  <Table.Td>
                    <ConfirmAction
                      label="Delete"
                      ariaLabel={`Delete ${dashboard.name ?? 'Untitled'}`}
                      title="Delete dashboard?"
                      action={() => save.mutateAsync({ id: dashboard.id, body: { deleted: true } })}
                    >
                      “{dashboard.name || 'Untitled'}” will be deleted. Its insights stay saved.
                    </ConfirmAction>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <NewDashboardModal opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
