import { Anchor, Drawer, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { EventRow } from '../../api/types';
import { useEnvironment } from '../../shell/ProjectScope';
import { personPath } from '../persons/format';
import { displayValue } from './EventsTable';

/** One event in full: its fields (the distinct id a link to its person) and every property, each value as text. */
export function EventDetail({ event, onClose }: { event: EventRow | undefined; onClose: () => void }) {
  const environment = useEnvironment();
  const properties = Object.entries(event?.properties ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <Drawer opened={event !== undefined} onClose={onClose} position="right" size="lg" title="Event">
      {event && (
        <Stack gap="sm" data-testid="event-detail">
          <Title order={3} style={{ wordBreak: 'break-word' }} data-testid="event-detail-name">
            {event.event}
          </Title>
          <Table withTableBorder className="properties-table" fz="sm">
            <Table.Tbody>
              <Table.Tr>
                <Table.Th w={180}>distinct id</Table.Th>
                <Table.Td className="mono">
                  <Anchor component={Link} to={personPath(environment.id, event.distinct_id)} data-testid="event-person">
                    {event.distinct_id}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>time</Table.Th>
                <Table.Td className="mono">{event.timestamp}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Th>uuid</Table.Th>
                <Table.Td className="mono">{event.uuid}</Table.Td>
              </Table.Tr>
            </Table.Tbody>
          </Table>
          <Text fw={600}>Properties ({properties.length})</Text>
          <Table withTableBorder striped className="properties-table" fz="sm" data-testid="event-properties">
            <Table.Tbody>
              {properties.map(([key, value]) => (
                <Table.Tr key={key}>
                  <Table.Td w={220} className="mono">
                    {key}
                  </Table.Td>
                  <Table.Td className="mono">{displayValue(value)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Drawer>
  );
}
