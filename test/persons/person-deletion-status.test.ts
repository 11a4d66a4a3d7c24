/**
 * GET …/persons/deletion_status/ (PostHog's PersonViewSet `deletion_status`): the persons whose
 * events were queued for deletion (`delete_events`), pending until the background deletion has
 * walked the events, then completed with the time; `status` and `person_uuid` filters with DRF's
 * messages, newest first, LimitOffsetPagination.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notePersonEventDeletion } from '../../src/deletions/person-event-status-store.js';
import { queueDeletion } from '../../src/deletions/store.js';
import { createProject } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { clockPast } from '../helpers/wait.js';
import { personsPath, seedPerson, storedEventCount, type SeededPerson } from './person-fixtures.js';

const server = useTestServer();
const statusOf = (query = '') => server.request(personsPath(server, `deletion_status/${query}`));
const DRF_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;

let gone: SeededPerson;
let kept: SeededPerson;
let quiet: SeededPerson;

beforeAll(async () => {
  // The runner waits until the pending state has been read.
  await server.running.deletions!.stop();
  await server.ingest([
    { event: 'did things', distinct_id: 'status-gone', properties: {} },
    { event: 'did things', distinct_id: 'status-kept', properties: {} },
  ]);
  gone = { ...(await server.request(personsPath(server, '?distinct_id=status-gone'))).body.results[0] };
  kept = { ...(await server.request(personsPath(server, '?distinct_id=status-kept'))).body.results[0] };
  quiet = await seedPerson(server, { distinctIds: ['status-quiet'] });
  expect((await server.request(personsPath(server, `${gone.uuid}/?delete_events`), { method: 'DELETE' })).status).toBe(202);
  // Queued strictly after the first: the clock has moved past the millisecond it was queued in.
  await clockPast();
  expect((await server.request(personsPath(server, `${kept.id}/delete_events/`), { method: 'POST' })).status).toBe(202);
  expect((await server.request(personsPath(server, `${quiet.id}/`), { method: 'DELETE' })).status).toBe(202);
  // Another environment's deletion is not this one's.
  const { team: elsewhere } = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Elsewhere');
  await notePersonEventDeletion(
    server.running.ctx.database.db,
    elsewhere.id,
    '0198a2b3-0000-7000-8000-00000000e15e',
    await queueDeletion(server.running.ctx.database.db, {
      teamId: elsewhere.id,
      kind: 'person_events',
      target: '0198a2b3-0000-7000-8000-00000000e15e',
    }),
  );
});

afterAll(() => server.running.deletions!.start());

describe("persons' event deletions", () => {
  it("lists each deletion with delete_events as pending, newest first, in PostHog's shape; a deletion without it is not listed", async () => {
    const res = await statusOf();
    expect(res.status, res.text).toBe(200);
    expect({ count: res.body.count, next: res.body.next, previous: res.body.previous }).toEqual({ count: 2, next: null, previous: null });
    expect(res.body.results.map((r: any) => [r.person_uuid, r.status, r.delete_verified_at])).toEqual([
      [kept.uuid, 'pending', null],
      [gone.uuid, 'pending', null],
    ]);
    expect(Object.keys(res.body.results[0]).sort()).toEqual(['created_at', 'delete_verified_at', 'person_uuid', 'status']);
    expect(res.body.results[0].created_at).toMatch(DRF_UTC);
  });

  it('shows them completed, with when, once the background deletion has walked the events', async () => {
    await server.running.deletions!.drain();
    expect(await storedEventCount(server, 'status-gone')).toBe(0);
    const res = await statusOf('?status=completed');
    expect(res.body.results.map((r: any) => [r.person_uuid, r.status])).toEqual([
      [kept.uuid, 'completed'],
      [gone.uuid, 'completed'],
    ]);
    for (const row of res.body.results) {
      expect(row.delete_verified_at).toMatch(DRF_UTC);
      expect(Date.parse(row.delete_verified_at)).toBeGreaterThanOrEqual(Date.parse(row.created_at));
    }
    expect((await statusOf('?status=pending')).body.count).toBe(0);
  });

  it('a person deleted again is pending again', async () => {
    expect((await server.request(personsPath(server, `${kept.id}/delete_events/`), { method: 'POST' })).status).toBe(202);
    const res = await statusOf(`?person_uuid=${kept.uuid.toUpperCase()}`);
    expect(res.body.results.map((r: any) => [r.person_uuid, r.status, r.delete_verified_at])).toEqual([[kept.uuid, 'pending', null]]);
    await server.running.deletions!.drain();
    expect((await statusOf(`?person_uuid=${kept.uuid}`)).body.results[0].status).toBe('completed');
  });

  it('pages as LimitOffsetPagination', async () => {
    const res = await statusOf('?limit=1');
    expect(res.body.count).toBe(2);
    expect(res.body.results).toHaveLength(1);
    expect(new URL(res.body.next).search).toBe('?limit=1&offset=1');
  });

  it("refuses a status or uuid DRF's serializer refuses, with its messages", async () => {
    const badStatus = await statusOf('?status=done');
    const badUuid = await statusOf('?person_uuid=someone');
    expect({ status: badStatus.status, body: badStatus.body }).toEqual({
      status: 400,
      body: { type: 'validation_error', code: 'invalid_choice', detail: '"done" is not a valid choice.', attr: 'status' },
    });
    expect({ status: badUuid.status, body: badUuid.body }).toEqual({
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid UUID.', attr: 'person_uuid' },
    });
  });
});
