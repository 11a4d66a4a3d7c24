/**
 * POST …/persons/bulk_delete/, as PostHog's PersonViewSet.bulk_delete: up to 1000 persons by
 * uuid (`ids`) or by distinct id, `delete_events`, `delete_recordings` and `keep_person` in the
 * body (by Python truthiness), 202 with a summary; PostHog's messages for what it refuses.
 */
import { describe, expect, it } from 'vitest';
import { createKey } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { fullSnapshot, meta, newSessionId, postSnapshots, snapshotEvent } from '../recordings/helpers.js';
import { personsPath, seedPerson, storedEventCount } from './person-fixtures.js';

const server = useTestServer();
const bulkDelete = (body: unknown, key?: string) =>
  server.request(personsPath(server, 'bulk_delete/'), { method: 'POST', body, ...(key ? { key } : {}) });
const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({
  status: 400,
  body: { type: 'validation_error', code, detail, attr },
});
const answer = (res: { status: number; body: unknown }) => ({ status: res.status, body: res.body });

/** Events and a recording of the distinct id, through capture and /s/. */
async function activity(distinctId: string): Promise<string> {
  await server.ingest([{ event: 'did things', distinct_id: distinctId, properties: {} }]);
  const sessionId = newSessionId();
  const t = Date.now() - 60_000;
  const body = JSON.stringify([
    snapshotEvent(server.token, sessionId, [meta(t, 'https://app.example/'), fullSnapshot(t + 1)], { distinctId }),
  ]);
  expect((await postSnapshots(server, body, 'application/json')).status).toBe(200);
  return sessionId;
}

const eventsOf = (distinctId: string) => storedEventCount(server, distinctId);

const personStatus = async (uuid: string) => (await server.request(personsPath(server, `${uuid}/`))).status;
const recordingStatus = async (sessionId: string) =>
  (await server.request(`/api/environments/${server.bootstrap.team.id}/session_recordings/${sessionId}/`)).status;

describe('bulk delete', () => {
  it('refuses what PostHog refuses, with its messages', async () => {
    expect({
      none: answer(await bulkDelete({ delete_events: true })),
      empty: answer(await bulkDelete({ ids: [], distinct_ids: [] })),
      both: answer(await bulkDelete({ ids: ['a'], distinct_ids: ['b'] })),
      tooMany: answer(await bulkDelete({ ids: Array.from({ length: 1001 }, (_, i) => String(i)) })),
      notAList: answer(await bulkDelete({ distinct_ids: 'someone' })),
    }).toEqual({
      none: invalid('You need to specify either distinct_ids or ids'),
      empty: invalid('You need to specify either distinct_ids or ids'),
      both: invalid('You must provide either distinct_ids or ids, not both'),
      tooMany: invalid('You can only pass 1000 ids in one call'),
      notAList: invalid('Expected a list of items but got type "str".', 'distinct_ids', 'not_a_list'),
    });
  });

  it('needs person:write', async () => {
    const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['person:read']);
    const res = await bulkDelete({ distinct_ids: ['nobody'] }, key);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'permission_denied' });
  });

  it('deletes the persons behind distinct ids, with their events and recordings, and sums it up', async () => {
    const first = await activity('bulk-a');
    const second = await activity('bulk-b');
    const kept = await activity('bulk-kept');
    const uuids = await Promise.all(
      ['bulk-a', 'bulk-b'].map(async (d) => (await server.request(personsPath(server, `?distinct_id=${d}`))).body.results[0].uuid),
    );
    // An id named twice and one that names no one count once and not at all.
    const res = await bulkDelete({
      distinct_ids: ['bulk-a', 'bulk-b', 'bulk-a', 'no-such-id'],
      delete_events: true,
      delete_recordings: 'yes',
    });
    await server.running.deletions!.drain();
    expect({
      answer: answer(res),
      persons: await Promise.all(uuids.map(personStatus)),
      events: [await eventsOf('bulk-a'), await eventsOf('bulk-b'), await eventsOf('bulk-kept')],
      recordings: await Promise.all([first, second, kept].map(recordingStatus)),
    }).toEqual({
      answer: {
        status: 202,
        body: {
          persons_found: 2,
          persons_deleted: 2,
          events_queued_for_deletion: true,
          recordings_queued_for_deletion: true,
          deletion_errors: [],
        },
      },
      persons: [404, 404],
      events: [0, 0, 1],
      recordings: [404, 404, 200],
    });
    const entries = (await server.request(personsPath(server, 'activity/?limit=100'))).body.results;
    const deletions = entries.filter((e: any) => e.activity === 'deleted').map((e: any) => e.detail.name);
    expect(deletions.filter((name: string) => uuids.includes(name)).sort()).toEqual([...uuids].sort());
  });

  it('by uuid with keep_person, keeps the persons and deletes only what was asked for', async () => {
    const person = await seedPerson(server, { distinctIds: ['bulk-keep'] });
    const recording = await activity('bulk-keep');
    const res = await bulkDelete({
      ids: [person.uuid.toUpperCase(), 'not-a-uuid'],
      keep_person: 1,
      delete_recordings: true,
      delete_events: false,
    });
    await server.running.deletions!.drain();
    expect({
      answer: answer(res),
      person: await personStatus(person.uuid),
      events: await eventsOf('bulk-keep'),
      recording: await recordingStatus(recording),
    }).toEqual({
      answer: {
        status: 202,
        body: {
          persons_found: 1,
          persons_deleted: 0,
          events_queued_for_deletion: false,
          recordings_queued_for_deletion: true,
          deletion_errors: [],
        },
      },
      person: 200,
      events: 1,
      recording: 404,
    });
  });

  it('finds no one for ids that name no person, and queues nothing', async () => {
    const res = await bulkDelete({ ids: ['0198a2b3-0000-7000-8000-000000000000'], delete_events: true });
    expect(answer(res)).toEqual({
      status: 202,
      body: {
        persons_found: 0,
        persons_deleted: 0,
        events_queued_for_deletion: false,
        recordings_queued_for_deletion: false,
        deletion_errors: [],
      },
    });
  });
});
