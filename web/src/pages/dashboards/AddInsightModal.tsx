import { Button, Group, Modal, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { useDeferredValue, useState } from 'react';
import { useAddInsightToDashboard, useSavedInsights } from '../../api/dashboards';
import { Loading } from '../../components/Loading';
import { ErrorNotice } from '../../shell/ErrorNotice';

/** Picks a saved insight and places it on the dashboard (the insight's `dashboards` field, as PostHog's app does). */
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
  const add = useAddInsightToDashboard(environmentId, dashboardId);
  return (
    <Modal opened={opened} onClose={onClose} title="Add insight" size="lg" centered>
      <Stack>
        <TextInput label="Search insights" value={search} onChange={(e) => setSearch(e.currentTarget.value)} data-autofocus />
        {add.error && <ErrorNotice error={add.error} title="The insight could not be added" />}
        {insights.error ? (
          <ErrorNotice error={insights.error} title="The insights could not be loaded" />
        ) : insights.isPending ? (
          <Loading p="md" />
        ) : insights.data.results.length === 0 ? (
          <Text c="dimmed">{deferred ? 'No saved insight matches.' : 'No saved insights yet.'}</Text>
        ) : (
          <ScrollArea.Autosize mah={400}>
            <Stack gap="xs" data-testid="insight-picker">
              {insights.data.results.map((insight) => {
                const added = insight.dashboards.includes(dashboardId);
                const name = insight.name || insight.derived_name || 'Untitled';
                return (
                  <Group key={insight.id} justify="space-between" wrap="nowrap" data-testid="insight-option">
                    <Stack gap={0} miw={0}>
                      <Text fw={500}>{name}</Text>
                      {insight.description && (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {insight.description}
                        </Text>
                      )}
                    </Stack>
                    <Button
                      size="xs"
                      style={{ flexShrink: 0 }}
                      variant={added ? 'light' : 'filled'}
                      disabled={added}
                      loading={add.isPending && add.variables?.id === insight.id}
                      aria-label={added ? `${name} is on this dashboard` : `Add ${name}`}
                      onClick={() => add.mutate(insight)}
                    >
                      {added ? 'Added' : 'Add'}
                    </Button>
                  </Group>
                );
              })}
            </Stack>
          </ScrollArea.Autosize>
        )}
      </Stack>
    </Modal>
  );
}
