import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

/**
 * The insight's subscriptions. For now a way to the subscriptions pages (built apart); kept a
 * component of its own so the list can take its place.
 */
export function InsightSubscriptions({ base, shortId }: { base: string; shortId: string }) {
  return (
    <Stack gap="xs" data-testid="insight-subscriptions">
      <Title order={4}>Subscriptions</Title>
      <Group>
        <Text size="sm" c="dimmed">
          Get this insight by e-mail, Slack or a webhook on a schedule.
        </Text>
        <Button component={Link} to={`${base}/insights/${shortId}/subscriptions`} variant="default" size="xs">
          Manage subscriptions
        </Button>
      </Group>
    </Stack>
  );
}
