import { Anchor, Table } from '@mantine/core';
import { Link } from 'react-router';
import { useEnvironment } from '../shell/ProjectScope';
import { TableHead } from './TableHead';

/** What a row shows of a person (a cohort's member, a person of the persons list). */
export interface PersonsTableRow {
  uuid: string;
  name?: unknown;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/**
 * Persons a row each: the name (else the first distinct id, else the uuid) linking to the person's
 * page, the distinct ids, the email.
 */
export function PersonsTable({ persons, testId, rowTestId }: { persons: PersonsTableRow[]; testId?: string; rowTestId: string }) {
  const environment = useEnvironment();
  return (
    <Table data-testid={testId}>
      <TableHead columns={['Person', 'Distinct ids', 'Email']} />
      <Table.Tbody>
        {persons.map((person) => (
          <Table.Tr key={person.uuid} data-testid={rowTestId}>
            <Table.Td>
              <Anchor component={Link} to={`/project/${environment.id}/person/${encodeURIComponent(person.distinct_ids[0] ?? '')}`}>
                {typeof person.name === 'string' && person.name ? person.name : person.distinct_ids[0] || person.uuid}
              </Anchor>
            </Table.Td>
            <Table.Td className="mono">{person.distinct_ids.join(', ')}</Table.Td>
            <Table.Td>{typeof person.properties.email === 'string' ? person.properties.email : ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
