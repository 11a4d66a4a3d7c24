/**
 * One person by path: PostHog's 400 for an id that is neither a uuid nor an integer, and its
 * DELETE (202, `delete_events` and `keep_person` honoured when present, whatever their value).
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { personsPath, seedPerson, storedEventCount } from './person-fixtures.js';

const server = useTestServer();

async function capture(distinctId: string, count: number) {
  const batch = Array.from({ length: count }, () => ({ event: 'did things', properties: { distinct_id: distinctId } }));
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: server.token, batch } });
  expect(res.status).toBe(200);
  await server.settle();
  return (await server.request(personsPath(server, `?distinct_id=${distinctId}`))).body.results[0];
}

const eventsOf = (distinctId: string) => storedEventCount(server, distinctId);

describe('a person by path', () => {
  it("refuses an id that is neither a uuid nor an integer with PostHog's hint", async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await server.request(personsPath(server, 'user@example.com/'), { method });
      expect(res.status, method).toBe(400);
      expect(res.body).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail:
          'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=user@example.com instead.',
        attr: null,
      });
    }
  });

  it('reads uuids and integers as Python does', async () => {
    const person = await seedPerson(server, { distinctIds: ['by-ref'] });
    const compact = person.uuid.replaceAll('-', '').toUpperCase();
    expect((await server.request(personsPath(server, `${compact}/`))).body.id).toBe(person.id);
    expect((await server.request(personsPath(server, `%7B${person.uuid}%7D/`))).body.id).toBe(person.id);
    expect((await server.request(personsPath(server, `%20${person.id}/`))).body.id).toBe(person.id);
  });
});

describe('deleting a person', () => {
  it('answers 202 without a body', async () => {
    const person = await seedPerson(server, { distinctIds: ['gone'] });
    const res = await server.request(personsPath(server, `${person.id}/`), { method: 'DELETE' });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    expect((await server.request(personsPath(server, `${person.id}/`))).status).toBe(404);
  });

  it("leaves a 'deleted' entry named by the uuid in the environment's person activity, and none when the person is kept", async () => {
    const person = await seedPerson(server, { distinctIds: ['logged-gone'] });
    const kept = await seedPerson(server, { distinctIds: ['logged-kept'] });
    expect((await server.request(personsPath(server, `${kept.id}/?keep_person&delete_events`), { method: 'DELETE' })).status).toBe(202);
    expect((await server.request(personsPath(server, `${person.id}/`), { method: 'DELETE' })).status).toBe(202);
    const entries = (await server.request(personsPath(server, 'activity/?limit=100'))).body.results;
    const about = (id: number) =>
      entries
        .filter((e: any) => e.item_id === String(id))
        .map((e: any) => ({ activity: e.activity, name: e.detail.name, changes: e.detail.changes, email: e.user.email }));
    expect({ deleted: about(person.id), kept: about(kept.id) }).toEqual({
      deleted: [{ activity: 'deleted', name: person.uuid, changes: null, email: server.bootstrap.user.email }],
      kept: [],
    });
  });

  it('deletes the events when delete_events is present, whatever its value', async () => {
    const person = await capture('with-events', 2);
    expect(await eventsOf('with-events')).toBe(2);
    expect((await server.request(personsPath(server, `${person.uuid}/?delete_events=false`), { method: 'DELETE' })).status).toBe(202);
    await server.running.deletions!.drain();
    expect(await eventsOf('with-events')).toBe(0);
    expect((await server.request(personsPath(server, `${person.uuid}/`))).status).toBe(404);
  });

  it('keeps the person with keep_person, deleting only its events', async () => {
    const person = await capture('kept', 3);
    const res = await server.request(personsPath(server, `${person.uuid}/?keep_person&delete_events`), { method: 'DELETE' });
    expect(res.status).toBe(202);
    await server.running.deletions!.drain();
    expect(await eventsOf('kept')).toBe(0);
    expect((await server.request(personsPath(server, `${person.uuid}/`))).body.distinct_ids).toEqual(['kept']);
  });
});
