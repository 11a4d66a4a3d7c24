import 'react-grid-layout/css/styles.css';
import 'react-resizable/css/styles.css';
import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { useParams } from 'react-router';
import type { ResponsiveLayouts } from 'react-grid-layout';
import { ApiError } from '../../api/client';
import {
  dashboardKey,
  refreshDashboard,
  usePrimaryDashboard,
  useSaveDashboard,
  useSetPrimaryDashboard,
  useDashboard,
  type Dashboard,
  type DashboardFilters,
} from '../../api/dashboards';
import { Loading } from '../../components/Loading';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { NotFound } from '../../shell/NotFound';
import { useEnvironment } from '../../shell/ProjectScope';
import { AddInsightModal } from './AddInsightModal';
import { DashboardDetailsModal, type DashboardDetails } from './DashboardDetailsModal';
import { DashboardGrid } from './DashboardGrid';
import { DateFilter } from './DateFilter';
import { gridLayouts, tileChanges, type Breakpoint } from './layouts';
import { SubscribeLink } from './SubscribeLink';
import { seedTileResults } from './tile-cache';

/** "Set as home" / "Home page": the environment's `primary_dashboard`. */
function HomeToggle({ environmentId, dashboardId }: { environmentId: number; dashboardId: number }) {
  const primary = usePrimaryDashboard(environmentId);
  const setPrimary = useSetPrimaryDashboard(environmentId);
  if (primary.data === dashboardId) {
    return (
      <Badge variant="light" size="lg" data-testid="home-badge">
        Home page
      </Badge>
    );
  }
  return (
    <Button variant="default" loading={setPrimary.isPending} disabled={primary.isPending} onClick={() => setPrimary.mutate(dashboardId)}>
      Set as home
    </Button>
  );
}

function DashboardBody({ dashboard }: { dashboard: Dashboard }) {
  const environment = useEnvironment();
  const client = useQueryClient();
  const save = useSaveDashboard(environment.id, (d) => seedTileResults(client, environment.id, d));
  const saved = useMemo(() => gridLayouts(dashboard.tiles), [dashboard.tiles]);
  // The layouts the grid started arranging from (null outside the arrange mode). The grid owns
  // its layout while arranging; feeding its changes back as props would restart a drag midway.
  const [start, setStart] = useState<ResponsiveLayouts<Breakpoint> | null>(null);
  const draft = useRef<ResponsiveLayouts<Breakpoint> | null>(null);
  const [adding, setAdding] = useState(false);
  const [refreshing, setRefreshing] = useState(false);
  const [refreshedAt, setRefreshedAt] = useState<Date | null>(null);
  const [refreshError, setRefreshError] = useState<unknown>(null);
  const editing = start !== null;
  const stopEditing = () => {
    draft.current = null;
    setStart(null);
  };

  const patch = (body: Parameters<typeof save.mutateAsync>[0]['body']) => save.mutateAsync({ id: dashboard.id, body });
  const refresh = async () => {
    setRefreshing(true);
    try {
      // The server computes the tiles' results again (Hoglet keeps none, so `refresh` is PostHog's flag only).
      const fresh = await refreshDashboard(environment.id, dashboard.id);
      const seeded = seedTileResults(client, environment.id, fresh);
      client.setQueryData(dashboardKey(environment.id, dashboard.id), fresh);
      // Tiles the dashboard's answer does not carry (funnels) ask the query endpoint again.
      await client.invalidateQueries({
        queryKey: ['insights', environment.id, 'query'],
        predicate: (query) => !seeded.has(query.queryHash),
      });
      setRefreshError(null);
      setRefreshedAt(new Date());
    } catch (error) {
      setRefreshError(error);
    } finally {
      setRefreshing(false);
    }
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        {/* A name or description without spaces breaks anywhere rather than widening the page. */}
        <Stack gap={2} style={{ overflowWrap: 'anywhere' }}>
          <Title order={2}>{dashboard.name || 'Untitled'}</Title>
          {dashboard.description && <Text c="dimmed">{dashboard.description}</Text>}
        </Stack>
        <Group gap="xs">
          <EditDetails dashboard={dashboard} onSave={(details) => patch(details)} />
          <HomeToggle environmentId={environment.id} dashboardId={dashboard.id} />
          <SubscribeLink environmentId={environment.id} dashboardId={dashboard.id} />
        </Group>
      </Group>
      <Group justify="space-between" align="flex-end">
        <DateFilter
          key={JSON.stringify(dashboard.filters)}
          filters={dashboard.filters}
          busy={save.isPending && save.variables?.body.filters !== undefined}
          onChange={(filters: DashboardFilters) => void patch({ filters })}
        />
        <Group gap="xs">
          {refreshedAt && (
            <Text size="xs" c="dimmed" data-testid="refreshed-at">
              Refreshed {refreshedAt.toLocaleTimeString()}
            </Text>
          )}
          <Button variant="default" loading={refreshing} onClick={() => void refresh()} disabled={editing}>
            Refresh
          </Button>
          <Button variant="default" onClick={() => setAdding(true)} disabled={editing}>
            Add insight
          </Button>
          {editing ? (
            <>
              <Button variant="default" onClick={stopEditing}>
                Cancel
              </Button>
              <Button
                loading={save.isPending}
                onClick={() => {
                  const tiles = tileChanges(dashboard.tiles, draft.current ?? start);
                  if (tiles.length === 0) return stopEditing();
                  void patch({ tiles }).then(stopEditing);
                }}
              >
                Save layout
              </Button>
            </>
          ) : (
            <Button
              variant="default"
              onClick={() => {
                window.getSelection()?.removeAllRanges();
                setStart(saved);
              }}
              disabled={dashboard.tiles.length === 0}
            >
              Edit layout
            </Button>
          )}
        </Group>
      </Group>
      {save.error && <ErrorNotice error={save.error} title="The dashboard could not be saved" />}
      {refreshError !== null && <ErrorNotice error={refreshError} title="The dashboard could not be refreshed" />}
      {dashboard.tiles.length === 0 ? (
        <Text c="dimmed" data-testid="dashboard-empty">
          This dashboard has no insights yet. Add a saved insight to see it here.
        </Text>
      ) : (
        <DashboardGrid
          tiles={dashboard.tiles}
          layouts={start ?? saved}
          editing={editing}
          environmentId={environment.id}
          filters={dashboard.filters}
          onLayoutsChange={(layouts) => (draft.current = layouts)}
          onRemove={(tile) => patch({ tiles: [{ id: tile.id, deleted: true }] })}
        />
      )}
      <AddInsightModal environmentId={environment.id} dashboardId={dashboard.id} opened={adding} onClose={() => setAdding(false)} />
    </Stack>
  );
}

/** A dashboard by id: its header, filters and tiles (the page, and the environment's home page). */
export function DashboardView({ dashboardId, whenMissing = <NotFound /> }: { dashboardId: number; whenMissing?: ReactNode }) {
  const environment = useEnvironment();
  const client = useQueryClient();
  const dashboard = useDashboard(environment.id, dashboardId, (d) => seedTileResults(client, environment.id, d));
  if (dashboard.isPending) return <Loading p="md" />;
  if (dashboard.error instanceof ApiError && dashboard.error.status === 404) return whenMissing;
  if (dashboard.error) return <ErrorNotice error={dashboard.error} title="The dashboard could not be loaded" />;
  if (dashboard.data.deleted) return whenMissing;
  return <DashboardBody dashboard={dashboard.data} />;
}

/** `/project/:id/dashboard/:dashboardId`. */
export function Component() {
  const { dashboardId = '' } = useParams();
  if (!/^\d+$/.test(dashboardId)) return <NotFound />;
  return <DashboardView dashboardId={Number(dashboardId)} />;
}

/** "Edit": the dashboard's name and description (PostHog renames in place; a form says the same). */
function EditDetails({ dashboard, onSave }: { dashboard: Dashboard; onSave: (details: DashboardDetails) => Promise<unknown> }) {
  const [opened, setOpened] = useState(false);
  const initial = useMemo(
    () => ({ name: dashboard.name ?? '', description: dashboard.description }),
    [dashboard.name, dashboard.description],
  );
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Edit
      </Button>
      <DashboardDetailsModal
        opened={opened}
        onClose={() => setOpened(false)}
        title="Edit dashboard"
        submitLabel="Save"
        initial={initial}
        onSave={async (details) => {
          await onSave(details);
          setOpened(false);
        }}
      />
    </>
  );
}
