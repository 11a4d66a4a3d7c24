import { Anchor, Button, Group, Modal, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useDashboards, useSetInsightDashboards } from '../../api/dashboards';
import type { Insight } from '../../api/insights';
import { Loading } from '../../components/Loading';
import { ErrorNotice } from '../../shell/ErrorNotice';

/**
 * PostHog's "Add to dashboard" on a saved insight: every dashboard, each with a button that puts
 * the insight on it or takes it off (the insight's `dashboards` field).
 */
export function AddToDashboard({ environmentId, insight }: { environmentId: number; insight: Insight }) {
  const [opened, setOpened] = useState(false);
  const [search, setSearch] = useState('');
  const dashboards = useDashboards(environmentId);
  const save = useSetInsightDashboards(environmentId);
  const on = new Set(insight.dashboards ?? []);
  const needle = search.trim().toLowerCase();
  const shown = (dashboards.data?.results ?? []).filter((d) => !d.deleted && (d.name ?? '').toLowerCase().includes(needle));
  const toggle = (dashboardId: number) => {
    const next = on.has(dashboardId) ? [...on].filter((id) => id !== dashboardId) : [...on, dashboardId];
    save.mutate({ insight, dashboards: next, changed: dashboardId });
  };
  const count = on.size;
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        {count === 0 ? 'Add to dashboard' : `On ${count} dashboard${count === 1 ? '' : 's'}`}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Add to dashboard" size="lg" centered>
        <Stack>
          <TextInput label="Search dashboards" value={search} onChange={(e) => setSearch(e.currentTarget.value)} data-autofocus />
          {save.error && <ErrorNotice error={save.error} title="The dashboards could not be changed" />}
          {dashboards.error ? (
            <ErrorNotice error={dashboards.error} title="The dashboards could not be loaded" />
          ) : dashboards.isPending ? (
            <Loading p="md" />
          ) : shown.length === 0 ? (
            <Text c="dimmed">
              {needle ? 'No dashboard matches.' : 'No dashboards yet: make one on the dashboards page, then add this insight to it.'}
            </Text>
          ) : (
            <ScrollArea.Autosize mah={400}>
              <Stack gap="xs" data-testid="dashboard-picker">
                {shown.map((dashboard) => {
                  const name = dashboard.name || 'Untitled';
                  const added = on.has(dashboard.id);
                  return (
                    <Group key={dashboard.id} justify="space-between" wrap="nowrap" data-testid="dashboard-option">
                      <Anchor component={Link} to={`/project/${environmentId}/dashboard/${dashboard.id}`} fw={500} truncate>
                        {name}
                      </Anchor>
                      <Button
                        size="xs"
                        style={{ flexShrink: 0 }}
                        variant={added ? 'light' : 'filled'}
                        color={added ? 'red' : undefined}
                        loading={save.isPending && save.variables?.changed === dashboard.id}
                        disabled={save.isPending && save.variables?.changed !== dashboard.id}
                        aria-label={added ? `Remove from ${name}` : `Add to ${name}`}
                        onClick={() => toggle(dashboard.id)}
                      >
                        {added ? 'Remove' : 'Add'}
                      </Button>
                    </Group>
                  );
                })}
              </Stack>
            </ScrollArea.Autosize>
          )}
        </Stack>
      </Modal>
    </>
  );
}
