import { Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { displayValue } from '../activity/EventsTable';

/**
 * A person's or group's properties as a table of text (keys and values are never markup), sorted
 * by key, with a filter when there are many.
 */
export function PropertiesTable({ properties, label = 'Properties' }: { properties: Record<string, unknown>; label?: string }) {
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const entries = Object.entries(properties)
    .filter(([key, value]) => !needle || key.toLowerCase().includes(needle) || displayValue(value).toLowerCase().includes(needle))
    .sort(([a], [b]) => a.localeCompare(b));
  const total = Object.keys(properties).length;
  if (total === 0) return <Text c="dimmed">No properties.</Text>;
  return (
    <>
      {total > 10 && (
        <TextInput
          aria-label="Filter properties"
          placeholder="Filter properties"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          w={320}
          mb="xs"
        />
      )}
      <Table withTableBorder striped className="properties-table" fz="sm" aria-label={label} data-testid="properties-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w="35%">Property</Table.Th>
            <Table.Th>Value</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map(([key, value]) => (
            <Table.Tr key={key}>
              <Table.Td className="mono">{key}</Table.Td>
              <Table.Td className="mono">{displayValue(value)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {entries.length === 0 && (
        <Text c="dimmed" mt="xs">
          No property matches “{filter}”.
        </Text>
      )}
    </>
  );
}
