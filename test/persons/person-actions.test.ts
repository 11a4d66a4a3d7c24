/**
 * The persons API's write actions as PostHog's PersonViewSet answers them: `update_property` and
 * `delete_property` (through `$set` / `$delete_person_property` events the worker applies) and
 * `split` (ids leave the person for persons of their own, named as PostHog names them).
 */
import { describe, expect, it } from 'vitest';
import { fromJson } from '../../src/platform/db/values.js';
import { splitPersonUuid } from '../../src/persons/person-uuid.js';
import { createKey } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';
import { personsPath } from './person-fixtures.js';

const server = useTestServer();

/** Ingests events through capture and returns the person of the first one's distinct id, as the API shows it. */
async function personAfter(events: Array<Record<string, unknown>>): Promise<any> {
  await server.ingest(events);
  return personByDistinctId(String(events[0]!.distinct_id));
}

async function personByDistinctId(distinctId: string): Promise<any> {
  const res = await server.request(personsPath(server, `?distinct_id=${encodeURIComponent(distinctId)}`));
  expect(res.status, res.text).toBe(200);
  return res.body.results[0];
}

const post = (path: string, body: unknown, key?: string) =>
  server.request(personsPath(server, path), { method: 'POST', body, ...(key ? { key } : {}) });

async function eventsNamed(event: string) {
  const rows = (await storedEvents(server.running.ctx.analytics, server.bootstrap.team.id)).filter((r) => r.event === event);
  return rows.map((r) => ({ distinct_id: r.distinct_id, properties: JSON.parse(r.properties) as Record<string, unknown> }));
}

async function personActivity(personId: number) {
  const rows = await server.running.ctx.database.db
    .selectFrom('activity_log')
    .select(['activity', 'detail'])
    .where('scope', '=', 'Person')
    .where('item_id', '=', String(personId))
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({ activity: r.activity, detail: fromJson<Record<string, any>>(r.detail)! }));
}

describe('update_property', () => {
  it('sets the property through a $set event of the first distinct id, answers 202 with no body and logs it', async () => {
    const person = await personAfter([
      { event: 'signed up', distinct_id: 'up-first', properties: { $set: { plan: 'free' } } },
      { event: '$create_alias', distinct_id: 'up-first', properties: { alias: 'up-second' } },
    ]);
    const res = await post(`${person.uuid}/update_property/`, { key: 'plan', value: 'pro' });
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe('');
    await server.settle();
    expect((await personByDistinctId('up-second')).properties.plan).toBe('pro');
    expect((await eventsNamed('$set')).filter((e) => e.distinct_id === 'up-first').map((e) => e.properties.$set)).toEqual([
      { plan: 'pro' },
    ]);
    expect(await personActivity(person.id)).toEqual([
      {
        activity: 'updated',
        detail: expect.objectContaining({
          changes: [{ type: 'Person', action: 'changed', field: 'properties', before: null, after: null }],
        }),
      },
    ]);
  });

  it('takes null as a value, and a person by its integer id', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'up-null', properties: { $set: { nickname: 'Al' } } }]);
    expect((await post(`${person.id}/update_property/`, { key: 'nickname', value: null })).status).toBe(202);
    await server.settle();
    const after = await personByDistinctId('up-null');
    expect(Object.hasOwn(after.properties, 'nickname')).toBe(true);
    expect(after.properties.nickname).toBeNull();
  });

  it("answers a missing value or key with PostHog's own envelope, before looking the person up", async () => {
    expect((await post('12345678/update_property/', { key: 'plan' })).body).toEqual({
      type: 'validation_error',
      code: 'This field is required.',
      detail: 'required',
      attr: 'value',
    });
    const missingKey = await post('12345678/update_property/', { value: 1 });
    expect(missingKey.status).toBe(400);
    expect(missingKey.body).toEqual({ type: 'validation_error', code: 'This field is required.', detail: 'required', attr: 'key' });
    expect((await post('12345678/update_property/', { key: null, value: 1 })).body.attr).toBe('key');
    expect((await post('12345678/update_property/', { key: { a: 1 }, value: 1 })).status).toBe(400);
    expect((await post('12345678/update_property/', { key: 'plan', value: 1 })).status).toBe(404);
    expect((await post('not-a-person/update_property/', { key: 'plan', value: 1 })).status).toBe(400);
  });

  it('takes person:write', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'up-scope' }]);
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['person:read']);
    const res = await post(`${person.uuid}/update_property/`, { key: 'plan', value: 'pro' }, reader);
    expect({ status: res.status, detail: res.body.detail }).toEqual({
      status: 403,
      detail: "API key missing required scope 'person:write'",
    });
  });
});

describe('delete_property', () => {
  it('removes the property through a $delete_person_property event carrying $unset, answers 201 and logs it', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'del-1', properties: { $set: { plan: 'pro', keep: 1 } } }]);
    const res = await post(`${person.uuid}/delete_property/`, { $unset: 'plan' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ success: true });
    await server.settle();
    expect((await personByDistinctId('del-1')).properties).toEqual(expect.objectContaining({ keep: 1 }));
    expect('plan' in (await personByDistinctId('del-1')).properties).toBe(false);
    expect((await eventsNamed('$delete_person_property')).filter((e) => e.distinct_id === 'del-1').map((e) => e.properties.$unset)).toEqual(
      [['plan']],
    );
    const [logged] = await personActivity(person.id);
    expect(logged).toEqual({
      activity: 'delete_property',
      detail: expect.objectContaining({
        name: person.uuid,
        changes: [expect.objectContaining({ type: 'Person', action: 'changed', field: null })],
      }),
    });
  });

  it('says what is missing (PostHog fails with a 500) and 404s an unknown person', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'del-2' }]);
    const res = await post(`${person.uuid}/delete_property/`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: '$unset' });
    expect((await post('98765432/delete_property/', { $unset: 'plan' })).status).toBe(404);
  });
});

describe('the first distinct id', () => {
  it('is the oldest mapping, on both backends: the one the actions send as and a split keeps', async () => {
    // o-x and o-y get persons of their own, then an identify merges them (the rows move, in order).
    await server.ingest([{ event: 'x', distinct_id: 'o-x', properties: { $set: { a: 1 } } }]);
    await server.ingest([{ event: 'y', distinct_id: 'o-y', properties: { $set: { b: 2 } } }]);
    await server.ingest([{ event: '$identify', distinct_id: 'o-y', properties: { $anon_distinct_id: 'o-x' } }]);
    const person = await personByDistinctId('o-y');
    expect(person.distinct_ids).toEqual(['o-x', 'o-y']);
    expect((await post(`${person.uuid}/update_property/`, { key: 'c', value: 3 })).status).toBe(202);
    await server.settle();
    expect((await eventsNamed('$set')).filter((e) => e.distinct_id.startsWith('o-')).map((e) => e.distinct_id)).toEqual(['o-x']);
    expect((await post(`${person.uuid}/split/`, {})).status).toBe(201);
    expect((await server.request(personsPath(server, `${person.uuid}/`))).body.distinct_ids).toEqual(['o-x']);
  });
});

describe('split', () => {
  async function threeIdPerson(prefix: string) {
    return personAfter([
      { event: 'x', distinct_id: `${prefix}-a`, properties: { $set: { plan: 'pro' } } },
      { event: '$identify', distinct_id: `${prefix}-a`, properties: { $anon_distinct_id: `${prefix}-b` } },
      { event: '$create_alias', distinct_id: `${prefix}-a`, properties: { alias: `${prefix}-c` } },
    ]);
  }

  it('gives every other id a person of its own, keeping the main one and the properties', async () => {
    const person = await threeIdPerson('sp1');
    expect(person.distinct_ids.sort()).toEqual(['sp1-a', 'sp1-b', 'sp1-c']);
    const res = await post(`${person.uuid}/split/`, { main_distinct_id: 'sp1-b' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ success: true });
    const kept = await personByDistinctId('sp1-b');
    expect(kept.uuid).toBe(person.uuid);
    expect(kept.distinct_ids).toEqual(['sp1-b']);
    expect(kept.properties.plan).toBe('pro');
    for (const id of ['sp1-a', 'sp1-c']) {
      const split = await personByDistinctId(id);
      expect(split.uuid).toBe(splitPersonUuid(server.bootstrap.team.id, id, person.uuid));
      expect(split.distinct_ids).toEqual([id]);
      expect(split.properties).toEqual({});
    }
    const [logged] = await personActivity(person.id);
    expect(logged!.activity).toBe('split_person');
    expect(logged!.detail.changes[0].after.distinct_ids.sort()).toEqual(['sp1-a', 'sp1-b', 'sp1-c']);
  });

  it('moves only distinct_ids_to_split when given, and the worker follows the new owners at once', async () => {
    const person = await threeIdPerson('sp2');
    expect((await post(`${person.uuid}/split/`, { distinct_ids_to_split: ['sp2-c', 'sp2-c'] })).status).toBe(201);
    expect((await personByDistinctId('sp2-a')).distinct_ids.sort()).toEqual(['sp2-a', 'sp2-b']);
    const split = await personByDistinctId('sp2-c');
    expect(split.uuid).not.toBe(person.uuid);
    // The worker kept sp2-c's person from the batches above: its next $set goes to the new person.
    await server.ingest([{ event: 'y', distinct_id: 'sp2-c', properties: { $set: { plan: 'free' } } }]);
    expect((await personByDistinctId('sp2-c')).properties).toEqual(expect.objectContaining({ plan: 'free' }));
    expect((await personByDistinctId('sp2-a')).properties.plan).toBe('pro');
  });

  it('names the new person apart when the person was created for the id that leaves', async () => {
    const teamId = server.bootstrap.team.id;
    const res = await server.request(personsPath(server, '?distinct_id=sp3-a'));
    expect(res.body.results).toEqual([]);
    const person = await threeIdPerson('sp3');
    const ownUuid = splitPersonUuid(teamId, 'sp3-a', 'none');
    // Hoglet names new persons with fresh uuids; a split of a person named after the id keeps them apart all the same.
    await server.running.ctx.database.db.updateTable('persons').set({ uuid: ownUuid }).where('id', '=', person.id).execute();
    expect((await post(`${ownUuid}/split/`, { distinct_ids_to_split: ['sp3-a'] })).status).toBe(201);
    const split = await personByDistinctId('sp3-a');
    expect(split.uuid).toBe(splitPersonUuid(teamId, 'sp3-a', ownUuid));
    expect(split.uuid).not.toBe(ownUuid);
    expect((await personByDistinctId('sp3-b')).uuid).toBe(ownUuid);
  });

  it('moves an id to the person an earlier split made for it, as PostHog reuses it', async () => {
    const person = await threeIdPerson('sp5');
    // sp5-b goes to its own person P1; sp5-c follows it there; P1 is split again, keeping sp5-c.
    expect((await post(`${person.uuid}/split/`, { distinct_ids_to_split: ['sp5-b'] })).status).toBe(201);
    const p1 = await personByDistinctId('sp5-b');
    expect((await post(`${p1.uuid}/split/`, { distinct_ids_to_split: ['sp5-b'] })).status).toBe(201);
    const p2 = await personByDistinctId('sp5-b');
    expect(p2.uuid).toBe(splitPersonUuid(server.bootstrap.team.id, 'sp5-b', p1.uuid));
    await server.ingest([{ event: '$create_alias', distinct_id: 'sp5-b', properties: { alias: 'sp5-d' } }]);
    // Splitting sp5-b off P2 names P1's uuid again: the id goes back to P1 instead of a 500.
    const res = await post(`${p2.uuid}/split/`, { main_distinct_id: 'sp5-d' });
    expect(res.status, res.text).toBe(201);
    expect((await personByDistinctId('sp5-b')).uuid).toBe(p1.uuid);
    expect((await personByDistinctId('sp5-d')).uuid).toBe(p2.uuid);
  });

  it('keeps the first id for a falsy main_distinct_id, as Python reads `if not main_distinct_id`', async () => {
    const person = await threeIdPerson('sp6');
    expect((await post(`${person.uuid}/split/`, { main_distinct_id: '' })).status).toBe(201);
    // An empty main id named none the person has: it would have lost all three.
    const kept = (await server.request(personsPath(server, `${person.uuid}/`))).body;
    expect(kept.distinct_ids).toHaveLength(1);
    expect(person.distinct_ids).toContain(kept.distinct_ids[0]);
  });

  it('checks distinct_ids_to_split as PostHog does', async () => {
    const person = await threeIdPerson('sp4');
    const cases: Array<[unknown, { detail: string; attr: string | null }]> = [
      [{ distinct_ids_to_split: 'sp4-a' }, { detail: 'must be a list of strings', attr: 'distinct_ids_to_split' }],
      [{ distinct_ids_to_split: ['sp4-a', 5] }, { detail: 'must be a list of strings', attr: 'distinct_ids_to_split' }],
      [{ distinct_ids_to_split: [] }, { detail: 'must not be empty', attr: 'distinct_ids_to_split' }],
      [
        { distinct_ids_to_split: ['sp4-a'], main_distinct_id: 'sp4-b' },
        { detail: 'main_distinct_id cannot be combined with distinct_ids_to_split', attr: null },
      ],
      [{ distinct_ids_to_split: ['zz', 'sp4-a', "o'k"] }, { detail: `not on this person: ["o'k", 'zz']`, attr: 'distinct_ids_to_split' }],
    ];
    for (const [body, expected] of cases) {
      const res = await post(`${person.uuid}/split/`, body);
      expect({ status: res.status, type: res.body.type, detail: res.body.detail, attr: res.body.attr }, JSON.stringify(body)).toEqual({
        status: 400,
        type: 'validation_error',
        ...expected,
      });
    }
    // Nothing moved.
    expect((await personByDistinctId('sp4-a')).distinct_ids.sort()).toEqual(['sp4-a', 'sp4-b', 'sp4-c']);
  });
});

describe('update (PATCH and PUT)', () => {
  it('sets the properties over the person’s through one $set event, answering 202 with no body', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'upd-1', properties: { $set: { plan: 'free', keep: 'me' } } }]);
    for (const [method, properties] of [
      ['PATCH', { plan: 'pro' }],
      ['PUT', { seats: 5 }],
    ] as const) {
      const res = await server.request(personsPath(server, `${person.uuid}/`), { method, body: { properties, is_identified: true } });
      expect(res.status, `${method} ${res.text}`).toBe(202);
      expect(res.text).toBe('');
    }
    await server.settle();
    const after = await personByDistinctId('upd-1');
    expect(after.properties).toEqual(expect.objectContaining({ plan: 'pro', seats: 5, keep: 'me' }));
    expect(after.is_identified).toBe(false);
    expect((await eventsNamed('$set')).filter((e) => e.distinct_id === 'upd-1').map((e) => e.properties.$set)).toEqual(
      expect.arrayContaining([{ plan: 'pro' }, { seats: 5 }]),
    );
  });

  it('answers a missing or odd `properties` with a 400, and takes person:write', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'upd-2' }]);
    const path = personsPath(server, `${person.uuid}/`);
    expect((await server.request(path, { method: 'PATCH', body: {} })).body).toEqual({
      type: 'validation_error',
      code: 'This field is required.',
      detail: 'required',
      attr: 'properties',
    });
    const list = await server.request(path, { method: 'PATCH', body: { properties: ['a'] } });
    expect({ status: list.status, attr: list.body.attr }).toEqual({ status: 400, attr: 'properties' });
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['person:read']);
    expect((await server.request(path, { method: 'PATCH', body: { properties: { a: 1 } }, key: reader })).status).toBe(403);
  });

  it('refuses to create a person, as PostHog does', async () => {
    const res = await server.request(personsPath(server), { method: 'POST', body: { distinct_ids: ['new'] } });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed', attr: null });
    expect(res.body.detail).toContain('Creating persons via this API is not allowed.');
  });
});

describe('delete_events, delete_recordings and reset_person_distinct_id', () => {
  it('delete_events queues the deletion of the person’s events and keeps the person', async () => {
    const person = await personAfter([
      { event: 'gone soon', distinct_id: 'de-1' },
      { event: 'gone soon', distinct_id: 'de-1' },
    ]);
    const res = await post(`${person.uuid}/delete_events/`, {});
    expect(res.status, res.text).toBe(202);
    expect(res.text).toBe('');
    await server.running.deletions!.drain();
    expect((await eventsNamed('gone soon')).filter((e) => e.distinct_id === 'de-1')).toEqual([]);
    expect((await personByDistinctId('de-1')).uuid).toBe(person.uuid);
    expect((await post(`${person.uuid}/delete_recordings/`, {})).status).toBe(202);
    expect((await post('99999999/delete_events/', {})).status).toBe(404);
  });

  it('reset_person_distinct_id takes a distinct id and answers 202', async () => {
    expect((await post('reset_person_distinct_id/', { distinct_id: 'someone' })).status).toBe(202);
    const missing = await post('reset_person_distinct_id/', {});
    expect({ status: missing.status, detail: missing.body.detail }).toEqual({ status: 400, detail: 'distinct_id is required' });
  });
});

describe('batch_by_distinct_ids and batch_by_uuids', () => {
  it('answer minimal persons keyed by what was asked, leaving out what has no person', async () => {
    const person = await personAfter([
      { event: 'x', distinct_id: 'bb-1', properties: { $set: { email: 'bb@example.com' } } },
      { event: '$create_alias', distinct_id: 'bb-1', properties: { alias: 'bb-2' } },
    ]);
    const minimal = {
      id: person.id,
      name: 'bb@example.com',
      distinct_ids: ['bb-1', 'bb-2'],
      properties: expect.objectContaining({ email: 'bb@example.com' }),
      created_at: person.created_at,
      uuid: person.uuid,
    };
    const byIds = await post('batch_by_distinct_ids/', { distinct_ids: ['bb-2', 'nobody', 5, 'bb-1'] });
    expect(byIds.status, byIds.text).toBe(200);
    expect(byIds.body).toEqual({ results: { 'bb-1': minimal, 'bb-2': minimal } });
    const byUuids = await post('batch_by_uuids/', {
      uuids: [person.uuid.replaceAll('-', '').toUpperCase(), '00000000-0000-4000-8000-000000000000'],
    });
    expect(byUuids.body).toEqual({ results: { [person.uuid]: minimal } });
    for (const body of [{}, { distinct_ids: [] }, { distinct_ids: 'bb-1' }])
      expect((await post('batch_by_distinct_ids/', body)).body).toEqual({ results: {} });
    const invalid = await post('batch_by_uuids/', { uuids: ['not-a-uuid'] });
    expect({ status: invalid.status, detail: invalid.body.detail }).toEqual({ status: 400, detail: 'One or more UUIDs are invalid.' });
  });

  it('read at most 200 keys, and take person:read', async () => {
    const person = await personAfter([{ event: 'x', distinct_id: 'bb-late' }]);
    const asked = [...Array.from({ length: 200 }, (_, i) => `bb-none-${i}`), 'bb-late'];
    expect((await post('batch_by_distinct_ids/', { distinct_ids: asked })).body).toEqual({ results: {} });
    expect(Object.keys((await post('batch_by_distinct_ids/', { distinct_ids: asked.slice(1) })).body.results)).toEqual(['bb-late']);
    const none = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['cohort:read']);
    expect((await post('batch_by_uuids/', { uuids: [person.uuid] }, none)).status).toBe(403);
  });
});
