import { Anchor, Button } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useDashboards, useSetInsightDashboards } from '../../api/dashboards';
import type { Insight } from '../../api/insights';
import { PickerModal } from '../../components/PickerModal';

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
  const options = (dashboards.data?.results ?? [])
    .filter((d) => !d.deleted && (d.name ?? '').toLowerCase().includes(needle))
    .map((dashboard) => {
      const name = dashboard.name || 'Untitled';
      return {
        id: dashboard.id,
        name,
        added: on.has(dashboard.id),
        label: (
          <Anchor component={Link} to={`/project/${environmentId}/dashboard/${dashboard.id}`} fw={500} truncate>
            {name}
          </Anchor>
        ),
      };
    });
  const count = on.size;
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        {count === 0 ? 'Add to dashboard' : `On ${count} dashboard${count === 1 ? '' : 's'}`}
      </Button>
      <PickerModal
        title="Add to dashboard"
        opened={opened}
        onClose={() => setOpened(false)}
        searchLabel="Search dashboards"
        search={search}
        onSearch={setSearch}
        list={{ error: dashboards.error, isPending: dashboards.isPending, errorTitle: 'The dashboards could not be loaded' }}
        options={options}
        emptyText={needle ? 'No dashboard matches.' : 'No dashboards yet: make one on the dashboards page, then add this insight to it.'}
        testId="dashboard"
        saving={{
          id: save.isPending ? (save.variables?.changed ?? null) : null,
          error: save.error,
          errorTitle: 'The dashboards could not be changed',
        }}
        onToggle={({ id, added }) =>
          save.mutate({ insight, dashboards: added ? [...on].filter((d) => d !== id) : [...on, id], changed: id })
        }
        buttonLabel={({ name, added }) => (added ? `Remove from ${name}` : `Add to ${name}`)}
      />
    </>
  );
}
