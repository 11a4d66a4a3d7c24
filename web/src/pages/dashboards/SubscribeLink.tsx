import { Button } from '@mantine/core';
import { Link } from 'react-router';

/** "Subscribe": the dashboard's subscriptions (PostHog's `/dashboard/:id/subscriptions`), pages of their own. */
export function SubscribeLink({ environmentId, dashboardId }: { environmentId: number; dashboardId: number }) {
  return (
    <Button component={Link} to={`/project/${environmentId}/dashboard/${dashboardId}/subscriptions`} variant="default">
      Subscribe
    </Button>
  );
}
