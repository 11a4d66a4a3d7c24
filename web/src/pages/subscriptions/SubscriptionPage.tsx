import { DeleteAndLeave } from '../../components/DeleteAndLeave';
import { Anchor, Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router';
import { useSaveSubscription, useSubscription, useTestDelivery, type Subscription } from '../../api/subscriptions';
import { ErrorText } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { Deliveries, StatusBadge } from './Deliveries';
import { scheduleText, subscriptionTitle } from './format';
import { ResourceGate, ResourceLine } from './ResourceGate';
import type { ResourceInfo } from './resource';
import { SubscriptionEditor } from './SubscriptionEditor';
import { formatDateTime } from '../../lib/format';

function DeleteSubscription({ subscription, resource }: { subscription: Subscription; resource: ResourceInfo }) {
  const environment = useEnvironment();
  const save = useSaveSubscription(environment.id);
  return (
    <DeleteAndLeave
      noun="subscription"
      remove={() => save.mutateAsync({ id: subscription.id, body: { deleted: true } })}
      to={resource.listPath}
    >
      Nothing more is sent for <b>{subscriptionTitle(subscription)}</b>. Its deliveries stay listed.
    </DeleteAndLeave>
  );
}

/** One delivery now, outside the schedule; the answer comes once it is done, with its result. */
function TestDelivery({ subscription }: { subscription: Subscription }) {
  const environment = useEnvironment();
  const test = useTestDelivery(environment.id, subscription.id);
  const result = test.data;
  return (
    <Group gap="sm">
      <Button variant="light" size="sm" loading={test.isPending} onClick={() => test.mutate()}>
        Send test delivery
      </Button>
      {result && !test.isPending && (
        <Group gap={6} role="status" data-testid="test-result">
          <Text size="sm">Test delivery</Text>
          <StatusBadge status={result.status} />
          {result.error && (
            <Text size="sm" c="red">
              {result.error}
            </Text>
          )}
        </Group>
      )}
      <ErrorText message={test.error?.message} testId="test-error" />
    </Group>
  );
}

function Subscribed({ resource, id }: { resource: ResourceInfo; id: number }) {
  const environment = useEnvironment();
  const subscription = useSubscription(environment.id, id);
  if (subscription.error) return <ErrorNotice error={subscription.error} title="The subscription could not be loaded" />;
  if (subscription.isPending) return <Loading p="xl" />;
  const s = subscription.data;
  const belongs = 'insight' in resource.resource ? s.insight === resource.resource.insight : s.dashboard === resource.resource.dashboard;
  if (!belongs) return <ErrorNotice error={`This subscription is not one of this ${resource.kind}'s.`} title="Not found" />;
  return (
    <Stack>
      <ResourceLine resource={resource} />
      <Anchor component={Link} to={resource.listPath} size="sm">
        ← All subscriptions of this {resource.kind}
      </Anchor>
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={2}>{subscriptionTitle(s)}</Title>
          {s.deleted && <Badge color="red">Deleted</Badge>}
        </Group>
        {!s.deleted && (
          <Group>
            <TestDelivery subscription={s} />
            <DeleteSubscription subscription={s} resource={resource} />
          </Group>
        )}
      </Group>
      <Text size="sm" c="dimmed" data-testid="schedule">
        {scheduleText(s, environment.timezone)} ({environment.timezone})
        {s.next_delivery_date ? ` · next on ${formatDateTime(s.next_delivery_date, environment.timezone)}` : ' · nothing more scheduled'}
      </Text>
      <SubscriptionEditor key={s.id} resource={resource} subscription={s} />
      <Deliveries subscriptionId={s.id} />
    </Stack>
  );
}

/** A subscription of an insight or dashboard (the page its e-mails link to), or a new one. */
export function Component() {
  const { subscriptionId } = useParams();
  return (
    <ResourceGate>
      {(resource) => {
        if (subscriptionId === undefined || subscriptionId === 'new') {
          return (
            <Stack>
              <ResourceLine resource={resource} />
              <Anchor component={Link} to={resource.listPath} size="sm">
                ← All subscriptions of this {resource.kind}
              </Anchor>
              <Title order={2}>New subscription</Title>
              <SubscriptionEditor resource={resource} />
            </Stack>
          );
        }
        if (!/^\d{1,15}$/.test(subscriptionId)) return <ErrorNotice error="There is no such subscription." title="Not found" />;
        return <Subscribed resource={resource} id={Number(subscriptionId)} />;
      }}
    </ResourceGate>
  );
}
