import { Anchor, Button, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useSubscriptions } from '../../api/subscriptions';
import { TableHead } from '../../components/TableHead';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { scheduleText, subscriptionTitle, targetName, targetText } from './format';
import { ResourceGate, ResourceLine } from './ResourceGate';
import type { ResourceInfo } from './resource';
import { DateTime } from '../../components/DateTime';

function SubscriptionsList({ resource }: { resource: ResourceInfo }) {
  const environment = useEnvironment();
  const subscriptions = useSubscriptions(environment.id, resource.resource);
  const rows = subscriptions.data?.results ?? [];
  return (
    <Stack>
      <ResourceLine resource={resource} />
      <Group justify="space-between">
        <Title order={2}>Subscriptions</Title>
        <Button component={Link} to={`${resource.listPath}/new`}>
          New subscription
        </Button>
      </Group>
      {subscriptions.error ? (
        <ErrorNotice error={subscriptions.error} title="The subscriptions could not be loaded" />
      ) : subscriptions.isPending ? (
        <Loader aria-label="Loading" />
      ) : rows.length === 0 ? (
        <Text c="dimmed" data-testid="subscriptions-empty">
          No subscriptions yet. A subscription sends this {resource.kind} by e-mail, to Slack or to a webhook on a schedule.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover data-testid="subscriptions-table">
            <TableHead columns={['Title', 'Target', 'Schedule', `Next delivery (${environment.timezone})`, '']} />
            <Table.Tbody>
              {rows.map((s) => (
                <Table.Tr key={s.id} data-testid="subscription-row">
                  <Table.Td>
                    <Anchor component={Link} to={`${resource.listPath}/${s.id}`}>
                      {subscriptionTitle(s)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed" span>
                      {targetName(s.target_type)}
                    </Text>{' '}
                    <Text size="sm" span className="mono">
                      {targetText(s)}
                    </Text>
                  </Table.Td>
                  <Table.Td>{scheduleText(s, environment.timezone)}</Table.Td>
                  <Table.Td>
                    {s.next_delivery_date ? <DateTime value={s.next_delivery_date} timeZone={environment.timezone} /> : 'None'}
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`${resource.listPath}/${s.id}`} size="sm" aria-label={`Edit ${subscriptionTitle(s)}`}>
                      Edit
                    </Anchor>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

/** The subscriptions of one insight (`insights/:shortId/subscriptions`) or dashboard. */
export function Component() {
  return <ResourceGate>{(resource) => <SubscriptionsList resource={resource} />}</ResourceGate>;
}
