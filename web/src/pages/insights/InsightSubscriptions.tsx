import { Stack, Title } from '@mantine/core';
import { SubscriptionsSummary } from '../subscriptions/SubscriptionsSummary';

/** The insight's subscriptions (title, schedule, link to each) and the way to manage them. */
export function InsightSubscriptions({ environmentId, insightId, shortId }: { environmentId: number; insightId: number; shortId: string }) {
  return (
    <Stack gap="xs" data-testid="insight-subscriptions">
      <Title order={4}>Subscriptions</Title>
      <SubscriptionsSummary environmentId={environmentId} insightId={insightId} insightShortId={shortId} />
    </Stack>
  );
}
