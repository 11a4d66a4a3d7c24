import { Stack, Text } from '@mantine/core';
import { useDeferredValue, useState } from 'react';
import { useSavedInsights, useToggleInsightOnDashboard } from '../../api/dashboards';
import { PickerModal } from '../../components/PickerModal';

/**
 * Picks saved insights to place on the dashboard or take off it (the insight's `dashboards`
 * field, as PostHog's app does).
 */
export function AddInsightModal({
  environmentId,
  dashboardId,
  opened,
  onClose,
}: {
  environmentId: number;
  dashboardId: number;
  opened: boolean;
  onClose: () => void;
}) {
  const [search, setSearch] = useState('');
  const deferred = useDeferredValue(search.trim());
  const insights = useSavedInsights(environmentId, deferred, opened);
  const toggle = useToggleInsightOnDashboard(environmentId, dashboardId);
  const results = insights.data?.results ?? [];
  const options = results.map((insight) => {
    const name = insight.name || insight.derived_name || 'Untitled';
    return {
      id: insight.id,
      name,
      added: insight.dashboards.includes(dashboardId),
      label: (
        <Stack gap={0} miw={0}>
          <Text fw={500}>{name}</Text>
          {insight.description && (
            <Text size="xs" c="dimmed" lineClamp={1}>
              {insight.description}
            </Text>
          )}
        </Stack>
      ),
    };
  });
  return (
    <PickerModal
      title="Add insight"
      opened={opened}
      onClose={onClose}
      searchLabel="Search insights"
      search={search}
      onSearch={setSearch}
      list={{ error: insights.error, isPending: insights.isPending, errorTitle: 'The insights could not be loaded' }}
      options={options}
      emptyText={deferred ? 'No saved insight matches.' : 'No saved insights yet.'}
      testId="insight"
      saving={{
        id: toggle.isPending ? (toggle.variables?.insight.id ?? null) : null,
        error: toggle.error,
        errorTitle: 'The dashboard could not be changed',
      }}
      onToggle={({ id, added }) => {
        const insight = results.find((i) => i.id === id);
        if (insight) toggle.mutate({ insight, add: !added });
      }}
      buttonLabel={({ name, added }) => (added ? `Remove ${name} from this dashboard` : `Add ${name}`)}
    />
  );
}
