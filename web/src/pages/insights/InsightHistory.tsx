import { Stack, Title } from '@mantine/core';
import { insightActivityPath } from '../../api/insights';
import { ActivityLog } from '../../components/ActivityLog';

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
      />
    </Stack>
  );
}
