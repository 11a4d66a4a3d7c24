import { Anchor, Group, Loader, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useEnvironments } from '../../api/environments';
import { useInsightById, useSubscriptions, type SubscribedResource } from '../../api/subscriptions';
import { ErrorText } from '../../components/ErrorAlert';
import { scheduleText, subscriptionTitle } from './format';

interface Props {
  environmentId: number;
  insightId?: number;
  /** Saves asking for the insight when the page has it already. */
  insightShortId?: string;
  dashboardId?: number;
}

/**
 * An insight's or dashboard's subscriptions in a few lines (title, schedule, link) and a link to
 * manage them: for the insight and dashboard pages to embed.
 */
export function SubscriptionsSummary({ environmentId, insightId, insightShortId, dashboardId }: Props) {
  const environments = useEnvironments();
  // The short id makes the links; given only the insight's id, it is asked for.
  const insight = useInsightById(environmentId, insightId !== undefined && insightShortId === undefined ? insightId : undefined);
  const shortId = insightShortId ?? insight.data?.short_id;
  const resource: SubscribedResource | undefined =
    dashboardId !== undefined ? { dashboard: dashboardId } : insightId !== undefined ? { insight: insightId } : undefined;
  const subscriptions = useSubscriptions(environmentId, resource);
  const timeZone = environments.data?.find((e) => e.id === environmentId)?.timezone ?? 'UTC';
  const project = `/project/${environmentId}`;
  const listPath =
    dashboardId !== undefined
      ? `${project}/dashboard/${dashboardId}/subscriptions`
      : shortId !== undefined
        ? `${project}/insights/${encodeURIComponent(shortId)}/subscriptions`
        : undefined;

  if (resource === undefined) return null;
  if (subscriptions.error) return <ErrorText message={subscriptions.error.message} />;
  if (subscriptions.isPending || listPath === undefined) return <Loader size="sm" aria-label="Loading subscriptions" />;
  const rows = subscriptions.data.results;
  return (
    <Stack gap={4} data-testid="subscriptions-summary">
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No subscriptions.
        </Text>
      ) : (
        rows.map((s) => (
          <Group key={s.id} gap="xs" wrap="nowrap">
            <Anchor component={Link} to={`${listPath}/${s.id}`} size="sm">
              {subscriptionTitle(s)}
            </Anchor>
            <Text size="sm" c="dimmed">
              {scheduleText(s, timeZone)}
            </Text>
          </Group>
        ))
      )}
      <Anchor component={Link} to={listPath} size="sm" fw={500}>
        Manage subscriptions
      </Anchor>
    </Stack>
  );
}
