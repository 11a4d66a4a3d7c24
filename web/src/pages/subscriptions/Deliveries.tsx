import { Badge, Group, Loader, Pagination, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { DELIVERIES_PAGE, useDeliveries, type Delivery } from '../../api/subscriptions';
import { TableHead } from '../../components/TableHead';
import { ErrorNotice } from '../../shell/ErrorNotice';
import { useEnvironment } from '../../shell/ProjectScope';
import { targetName } from './format';
import { DateTime } from '../../components/DateTime';

const STATUS_COLORS: Record<string, string> = {
  delivered: 'green',
  failed: 'red',
  retrying: 'orange',
  pending: 'blue',
  skipped: 'gray',
  cancelled: 'gray',
};

const TRIGGERS: Record<string, string> = { scheduled: 'Scheduled', target_change: 'Invitation', manual: 'Test' };

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? 'gray'} variant="light" data-testid="delivery-status">
      {status}
    </Badge>
  );
}

function DeliveryCard({ delivery }: { delivery: Delivery }) {
  const { timezone } = useEnvironment();
  const when = delivery.scheduled_at ?? delivery.created_at;
  return (
    <Paper withBorder p="sm" data-testid="delivery" aria-label={`Delivery ${delivery.id}`}>
      <Stack gap="xs">
        <Group gap="sm">
          <StatusBadge status={delivery.status} />
          <Text size="sm" fw={500}>
            {TRIGGERS[delivery.trigger_type] ?? delivery.trigger_type}
          </Text>
          <Text size="sm" data-testid="delivery-time">
            <DateTime value={when} timeZone={timezone} />
          </Text>
          <Text size="sm" c="dimmed">
            {targetName(delivery.target_type)}
          </Text>
          <Text size="sm" className="mono" data-testid="delivery-target">
            {delivery.webhook_url ??
              (delivery.target_type === 'email' ? delivery.target_value?.split(',').join(', ') : delivery.target_value) ??
              ''}
          </Text>
          {delivery.skipped_occurrences > 0 && (
            <Text size="sm" c="dimmed">
              {delivery.skipped_occurrences} missed occurrence{delivery.skipped_occurrences === 1 ? '' : 's'} skipped
            </Text>
          )}
        </Group>
        {delivery.error && (
          <Text size="sm" c="red">
            {delivery.error}
          </Text>
        )}
        {delivery.next_attempt_at && delivery.status === 'retrying' && (
          <Text size="sm" c="dimmed">
            Next attempt <DateTime value={delivery.next_attempt_at} timeZone={timezone} />
          </Text>
        )}
        <Table.ScrollContainer minWidth={560}>
          <Table withTableBorder={false} verticalSpacing={4} fz="sm" data-testid="attempts">
            <TableHead columns={[{ label: 'Attempt', w: 80 }, 'Started', 'Finished', 'Result', 'Error']} />
            <Table.Tbody>
              {delivery.attempts.map((a) => (
                <Table.Tr key={a.attempt} data-testid="attempt">
                  <Table.Td>{a.attempt}</Table.Td>
                  <Table.Td>
                    <DateTime value={a.started_at} timeZone={timezone} />
                  </Table.Td>
                  <Table.Td>{a.finished_at ? <DateTime value={a.finished_at} timeZone={timezone} /> : '—'}</Table.Td>
                  <Table.Td>
                    <StatusBadge status={a.status} />
                  </Table.Td>
                  <Table.Td data-testid="attempt-error">{a.error ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Stack>
    </Paper>
  );
}

/** Every delivery of a subscription, newest first, each with its attempts. */
export function Deliveries({ subscriptionId }: { subscriptionId: number }) {
  const environment = useEnvironment();
  const [page, setPage] = useState(1);
  const deliveries = useDeliveries(environment.id, subscriptionId, (page - 1) * DELIVERIES_PAGE);
  const count = deliveries.data?.count ?? 0;
  return (
    <Stack gap="sm" data-testid="deliveries">
      <Title order={3}>Deliveries</Title>
      {deliveries.error ? (
        <ErrorNotice error={deliveries.error} title="The deliveries could not be loaded" />
      ) : deliveries.isPending ? (
        <Loader aria-label="Loading" />
      ) : count === 0 ? (
        <Text c="dimmed" size="sm" data-testid="deliveries-empty">
          Nothing delivered yet.
        </Text>
      ) : (
        <>
          {deliveries.data.results.map((d) => (
            <DeliveryCard key={d.id} delivery={d} />
          ))}
          {count > DELIVERIES_PAGE && (
            <Pagination total={Math.ceil(count / DELIVERIES_PAGE)} value={page} onChange={setPage} aria-label="Deliveries pages" />
          )}
        </>
      )}
    </Stack>
  );
}
