/**
 * How a person is printed beyond its filters: `created_at` as PostHog's DateTimeField prints it
 * (microseconds, `Z`), and the persons list's cap on distinct ids (`get_serialized_people`'s
 * `distinct_id_limit` of 1000, identified ids first), which retrieve does not apply.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { listPersons, personsPath, seedPerson } from './person-fixtures.js';

const server = useTestServer();

describe('a printed person', () => {
  it("shows created_at as PostHog's DateTimeField: microseconds and Z, in the list and on retrieve", async () => {
    const person = await seedPerson(server, { distinctIds: ['stamped-person'], createdAt: '2025-04-01T10:00:00.007Z' });
    const listed = (await listPersons(server, { distinct_id: 'stamped-person' })).results[0];
    const retrieved = (await server.request(personsPath(server, `${person.uuid}/`))).body;
    expect([listed.created_at, retrieved.created_at]).toEqual(['2025-04-01T10:00:00.007000Z', '2025-04-01T10:00:00.007000Z']);
  });

  it('lists at most 1000 distinct ids, identified ones first; retrieve shows them all', async () => {
    // A person merged from many anonymous visits, identified last (its identified ids stored last).
    const anonymous = Array.from({ length: 1003 }, (_, i) => `0a1b${i.toString(36)}-3d4e-5f6a-7b8c-9d0e1f`);
    const identified = ['merged-user@example.com', 'merged-user'];
    const person = await seedPerson(server, { distinctIds: [...anonymous, ...identified] });
    const listed = (await listPersons(server, { distinct_id: 'merged-user' })).results[0];
    const retrieved = (await server.request(personsPath(server, `${person.uuid}/`))).body;
    expect({
      listedFirst: listed.distinct_ids.slice(0, 2),
      listed: listed.distinct_ids.length,
      listedAnonymous: listed.distinct_ids.slice(2).every((id: string) => anonymous.includes(id)),
      retrieved: retrieved.distinct_ids.length,
    }).toEqual({ listedFirst: identified, listed: 1000, listedAnonymous: true, retrieved: 1005 });
  });
});
