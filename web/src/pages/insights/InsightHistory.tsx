import { Anchor, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { ActivityChange } from '../../api/activity';
import { insightActivityPath } from '../../api/insights';
import { ActivityLog } from '../../components/ActivityLog';

interface DashboardLink {
  id: number;
  name: string | null;
}

const links = (value: unknown): DashboardLink[] =>
  Array.isArray(value) ? value.filter((d): d is DashboardLink => typeof d === 'object' && d !== null && typeof d.id === 'number') : [];

/**
 * PostHog's describer of an insight's `dashboards` change: "added to <dashboard>" for each one in
 * the after list only, "removed from <dashboard>" for each one in the before list only.
 */
function dashboardsChange(change: ActivityChange, environmentId: number) {
  if (change.field !== 'dashboards') return null;
  const before = links(change.before);
  const after = links(change.after);
  const link = (d: DashboardLink) => (
    <Anchor component={Link} to={`/project/${environmentId}/dashboard/${d.id}`} size="sm" fw={600}>
      {d.name || 'Untitled dashboard'}
    </Anchor>
  );
  const lines = [
    ...after.filter((a) => !before.some((b) => b.id === a.id)).map((d) => ({ d, verb: 'Added to dashboard' })),
    ...before.filter((b) => !after.some((a) => a.id === b.id)).map((d) => ({ d, verb: 'Removed from dashboard' })),
  ];
  return (
    <Stack gap={4}>
      {lines.map(({ d, verb }) => (
        <Text key={`${verb}-${d.id}`} size="sm" data-testid="history-change">
          {verb} {link(d)}
        </Text>
      ))}
    </Stack>
  );
}

/** The insight's change history (`insights/:id/activity/`), times in the environment's zone. */
export function InsightHistory({ environmentId, insightId, timeZone }: { environmentId: number; insightId: number; timeZone: string }) {
  return (
    <Stack gap="xs">
      <Title order={4}>History</Title>
      <ActivityLog
        queryKey={['insights', environmentId, 'activity', insightId]}
        path={insightActivityPath(environmentId, insightId)}
        noun="insight"
        testId="insight-history"
        timeZone={timeZone}
        renderChange={(change) => dashboardsChange(change, environmentId)}
      />
    </Stack>
  );
}
