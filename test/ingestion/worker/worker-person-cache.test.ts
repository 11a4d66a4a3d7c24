import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { getPersonsByDistinctIds } from '../../../src/persons/batch-store.js';
import { deletePersonRow, getPersonByDistinctId } from '../../../src/persons/store.js';
import { PersonCache } from '../../../src/ingestion/worker/person-cache.js';
import { IngestionWorker } from '../../../src/ingestion/worker/worker.js';
import type { IngestionQueueWriter, Lane, QueueRow } from '../../../src/ingestion/queue.js';
import { queueRowMaker, serverPerTest } from './helpers.js';
import { clockPast } from '../../helpers/wait.js';
import { storedEvents } from '../../helpers/stored-events.js';

/**
 * The worker keeps persons across batches (PersonCache): by id and version, and which person owns
 * a distinct id. What a later batch sees must still be what is stored: after updates in earlier
 * batches, after a merge (also for the merged-away person's distinct ids the merging batch did
 * not name), after the person was deleted behind the worker's back (by the persons API), and after
 * another worker held the lease.
 */
/** A server of its own (no worker of its own: each test runs its workers). */
const setUp = serverPerTest();
const row = queueRowMaker('2026-01-01T00:00:00.000Z');

/** Every person the worker creates records the event that created it (PostHog person-create-service.ts). */
const CREATOR = expect.any(String);

/** Queues rows, then lets the worker process all that is queued. */
function runner(queue: IngestionQueueWriter, worker: IngestionWorker) {
  return async (rows: QueueRow[]) => {
    await queue.enqueue(rows);
    await worker.drain();
  };
}

describe('worker person cache', () => {
  it('keeps later batches in step with what is stored', async () => {
    const { database, ingestionQueue, analytics, teamId } = await setUp();
    // One worker for every step: its cache outlives each batch.
    const worker = new IngestionWorker(database, pino({ level: 'silent' }), { analytics, batchSize: 2 });
    const run = runner(ingestionQueue, worker);
    const props = async (distinctId: string) => (await getPersonByDistinctId(database.db, teamId, distinctId))?.properties;

    await run([
      row(teamId, 'anon-1', 'clicked', { $set: { plan: 'free', step: 1 } }),
      row(teamId, 'user-1', 'clicked', { $set: { email: 'u@example.com' } }),
    ]);
    await run([row(teamId, 'anon-1', 'clicked', { $set: { step: 2 } })]);
    await run([row(teamId, 'anon-1', 'clicked', { $set_once: { first: 'a' }, $set: { step: 3 } })]);
    expect(await props('anon-1')).toEqual({ plan: 'free', step: 3, first: 'a', $creator_event_uuid: CREATOR });

    // A merge folds anon-1 into user-1; the next batches read the survivor.
    await run([row(teamId, 'user-1', '$identify', { $anon_distinct_id: 'anon-1' })]);
    await run([row(teamId, 'anon-1', 'clicked', { $set: { step: 4 } })]);
    expect(await props('user-1')).toEqual({ plan: 'free', step: 4, first: 'a', email: 'u@example.com', $creator_event_uuid: CREATOR });
    expect((await getPersonByDistinctId(database.db, teamId, 'anon-1'))?.id).toBe(
      (await getPersonByDistinctId(database.db, teamId, 'user-1'))?.id,
    );

    // Deleted by the persons API: the next event creates a new person, without the old properties.
    const old = (await getPersonByDistinctId(database.db, teamId, 'user-1'))!;
    await deletePersonRow(database.db, teamId, old.id);
    await run([row(teamId, 'user-1', 'clicked', { $set: { plan: 'pro' } })]);
    const fresh = (await getPersonByDistinctId(database.db, teamId, 'user-1'))!;
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.properties).toEqual({ plan: 'pro', $creator_event_uuid: CREATOR });
    await worker.stop();
  }, 60_000);

  it('reads persons by distinct id alike with and without cached properties', async () => {
    const { database, ingestionQueue, analytics, teamId } = await setUp();
    await ingestionQueue.enqueue([
      row(teamId, 'p-a', 'clicked', { $set: { a: 1 } }),
      row(teamId, 'p-b', 'clicked', { $set: { b: 2 } }),
      row(teamId, 'p-c', '$identify', { $anon_distinct_id: 'p-d', $set: { c: 3 } }),
    ]);
    const worker = new IngestionWorker(database, pino({ level: 'silent' }), { analytics });
    await worker.drain();
    await worker.stop();
    // Three ids with persons (two of them one person) and one without: an odd count, padded.
    const ids = ['p-a', 'p-b', 'p-c', 'p-d', 'p-none'];
    const plain = await getPersonsByDistinctIds(database.db, teamId, ids);
    expect([...plain.keys()].sort()).toEqual(['p-a', 'p-b', 'p-c', 'p-d']);
    expect(plain.get('p-c')!.id).toBe(plain.get('p-d')!.id);
    const a = plain.get('p-a')!;
    // Only p-a's properties are "cached" (at its version): the others are read from the table.
    const cached = await getPersonsByDistinctIds(database.db, teamId, ids, (id, version) =>
      id === a.id && version === a.version ? { from: 'cache' } : undefined,
    );
    expect(cached.get('p-a')).toEqual({ ...a, properties: { from: 'cache' } });
    for (const id of ['p-b', 'p-c', 'p-d']) expect(cached.get(id)).toEqual(plain.get(id));
    expect(cached.has('p-none')).toBe(false);
    expect(plain.get('p-c')!.properties).toEqual({ c: 3, $creator_event_uuid: CREATOR });
  }, 60_000);

  it("moves the merged-away person's other distinct ids to the survivor", async () => {
    const { database, ingestionQueue, analytics, teamId } = await setUp();
    const worker = new IngestionWorker(database, pino({ level: 'silent' }), { analytics, batchSize: 1 });
    const run = runner(ingestionQueue, worker);
    // m-b joins m-a's person; m-c has its own. Every batch is one event, so the cache carries them.
    await run([row(teamId, 'm-a', 'clicked', { $set: { from: 'a' } }), row(teamId, 'm-b', '$identify', { $anon_distinct_id: 'm-a' })]);
    await run([row(teamId, 'm-c', 'clicked', { $set: { from: 'c' } })]);
    const first = (await getPersonByDistinctId(database.db, teamId, 'm-b'))!;
    // Named by m-a only: m-a's person, and with it m-b, is folded into m-c's.
    await run([row(teamId, 'm-c', '$merge_dangerously', { alias: 'm-a' })]);
    const survivor = (await getPersonByDistinctId(database.db, teamId, 'm-c'))!;
    expect(survivor.id).not.toBe(first.id);
    await run([row(teamId, 'm-b', 'clicked', { $set: { later: true } })]);
    expect((await getPersonByDistinctId(database.db, teamId, 'm-b'))!.id).toBe(survivor.id);
    expect((await getPersonByDistinctId(database.db, teamId, 'm-c'))!.properties).toMatchObject({ later: true });
    const stored = (await storedEvents(analytics, teamId)).find((e) => e.distinct_id === 'm-b' && e.event === 'clicked')!;
    expect(stored.person_id).toBe(survivor.uuid);
    await worker.stop();
  }, 60_000);

  it('forgets what it kept when another worker held the lease', async () => {
    const { database, ingestionQueue, analytics, teamId } = await setUp();
    const log = pino({ level: 'silent' });
    const first = new IngestionWorker(database, log, { analytics, batchSize: 1, leaseTtlMs: 300 });
    await ingestionQueue.enqueue([
      row(teamId, 'l-a', 'clicked', { $set: { from: 'a' } }),
      row(teamId, 'l-b', '$identify', { $anon_distinct_id: 'l-a' }),
      row(teamId, 'l-c', 'clicked', { $set: { from: 'c' } }),
    ]);
    await first.drain();
    // The first worker's lease lapses (its clock is past the lease's end, renewed at the latest by
    // now); a second one takes it and folds l-a's person (l-b's too) into l-c's.
    await clockPast(Date.now() + 300);
    const second = new IngestionWorker(database, log, { analytics, batchSize: 1, leaseTtlMs: 300 });
    await ingestionQueue.enqueue([row(teamId, 'l-c', '$merge_dangerously', { alias: 'l-a' })]);
    await second.drain();
    await second.stop();
    const survivor = (await getPersonByDistinctId(database.db, teamId, 'l-c'))!;
    // Back to the first worker: what it kept of l-b's person is gone.
    await ingestionQueue.enqueue([row(teamId, 'l-b', 'clicked', { $set: { later: true } })]);
    await first.drain();
    await first.stop();
    expect((await getPersonByDistinctId(database.db, teamId, 'l-b'))!.id).toBe(survivor.id);
    expect(survivor.id).toBe((await getPersonByDistinctId(database.db, teamId, 'l-a'))!.id);
    const stored = (await storedEvents(analytics, teamId)).find((e) => e.distinct_id === 'l-b' && e.event === 'clicked')!;
    expect(stored.person_id).toBe(survivor.uuid);
  }, 60_000);

  it('stops writing when another worker took the lease during its round, and goes on with fresh persons', async () => {
    const { database, ingestionQueue, analytics, teamId } = await setUp();
    const log = pino({ level: 'silent' });
    const first = new IngestionWorker(database, log, { analytics, batchSize: 10, leaseTtlMs: 300, prepareAhead: false });
    const second = new IngestionWorker(database, log, { analytics, batchSize: 10, leaseTtlMs: 300, prepareAhead: false });
    await ingestionQueue.enqueue([row(teamId, 'r-x', 'clicked', { $set: { a: 1 } })]);
    await first.drain();
    // The first worker's round outlives its lease before its historical lane (a slow batch, say):
    // meanwhile the second takes the lease, updates r-x's person, and gives the lease up.
    const lanes = (first as unknown as { batches: { processLane(lane: Lane): Promise<number> } }).batches;
    const processLane = lanes.processLane.bind(lanes);
    lanes.processLane = async (lane: Lane) => {
      if (lane === 'historical') {
        // Past the end of the first worker's leases as this round renewed them, read back rather
        // than guessed from a clock taken before the round (a busy machine renews late).
        const leases = await database.db.selectFrom('worker_leases').select('expires_at').where('name', 'like', 'ingestion-%').execute();
        await clockPast(Math.max(...leases.map((lease) => Date.parse(lease.expires_at))));
        await ingestionQueue.enqueue([row(teamId, 'r-x', 'clicked', { $set: { b: 2 } })]);
        await second.drain();
        await second.stop();
        await ingestionQueue.enqueue([{ ...row(teamId, 'r-x', 'clicked', { $set: { c: 3 } }), lane: 'historical' }]);
      }
      return processLane(lane);
    };
    expect(await first.runOnce()).toBe(0); // its historical batch rolled back
    expect(await database.db.selectFrom('ingestion_queue').select('lane').execute()).toEqual([{ lane: 'historical' }]);
    lanes.processLane = processLane;
    await first.drain();
    await first.stop();
    const person = (await getPersonByDistinctId(database.db, teamId, 'r-x'))!;
    expect(person.properties).toEqual({ a: 1, b: 2, c: 3, $creator_event_uuid: CREATOR });
    expect(person.version).toBe(2);
  }, 60_000);

  it('starts afresh when a stopped worker is started again', async () => {
    const { database, ingestionQueue, analytics, teamId, settle } = await setUp();
    const log = pino({ level: 'silent' });
    const first = new IngestionWorker(database, log, { analytics, idleMs: 20 });
    await runner(ingestionQueue, first)([row(teamId, 's-x', 'clicked', { $set: { a: 1 } })]);
    await first.stop();
    // Another worker writes s-x's person while the first is stopped.
    const second = new IngestionWorker(database, log, { analytics });
    await runner(ingestionQueue, second)([row(teamId, 's-x', 'clicked', { $set: { b: 2 } })]);
    await second.stop();
    first.start();
    await ingestionQueue.enqueue([row(teamId, 's-x', 'clicked', { $set: { c: 3 } })]);
    await settle();
    await first.stop();
    const person = (await getPersonByDistinctId(database.db, teamId, 's-x'))!;
    expect(person.properties).toEqual({ a: 1, b: 2, c: 3, $creator_event_uuid: CREATOR });
    expect(person.version).toBe(2);
  }, 60_000);
});

describe('PersonCache', () => {
  const person = (id: number, version: number, properties: Record<string, unknown> = { id }) => ({
    id,
    uuid: `uuid-${id}`,
    teamId: 1,
    properties,
    isIdentified: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    version,
  });

  it('answers properties only for the version it holds', () => {
    const cache = new PersonCache();
    cache.remember(person(1, 3, { a: 1 }));
    expect(cache.properties(1, 3)).toEqual({ a: 1 });
    expect(cache.properties(1, 4)).toBeUndefined();
    cache.remember(person(1, 4, { a: 2 }));
    expect(cache.properties(1, 3)).toBeUndefined();
    expect(cache.properties(1, 4)).toEqual({ a: 2 });
  });

  it('forgets owners but keeps persons by version beside other workers', () => {
    const cache = new PersonCache();
    cache.remember(person(1, 3, { a: 1 }));
    cache.rememberOwner(1, 'x', 1);
    expect(cache.owner(1, 'x')?.id).toBe(1);
    cache.forgetOwners();
    expect(cache.owner(1, 'x')).toBeUndefined();
    expect(cache.ownersKept).toBe(0);
    expect(cache.properties(1, 3)).toEqual({ a: 1 });
    expect(cache.size).toBe(1);
  });

  it('finds owners by team and distinct id, and keeps a copy of what it is given', () => {
    const cache = new PersonCache();
    const given = person(7, 0);
    cache.remember(given);
    cache.rememberOwner(1, 'd-1', 7);
    given.version = 99;
    expect(cache.owner(1, 'd-1')).toEqual(person(7, 0));
    expect(cache.owner(2, 'd-1')).toBeUndefined();
    expect(cache.owner(1, 'd-2')).toBeUndefined();
    // An owner whose person is forgotten (merged away) is a miss, not a stale answer.
    cache.forget(7);
    expect(cache.owner(1, 'd-1')).toBeUndefined();
  });

  it('empties itself when the deletion count changes, not on the first count', () => {
    const cache = new PersonCache();
    cache.remember(person(1, 0));
    cache.rememberOwner(1, 'd', 1);
    cache.checkDeletions(5);
    expect(cache.owner(1, 'd')).toBeDefined();
    cache.checkDeletions(5);
    expect(cache.size).toBe(1);
    cache.checkDeletions(6);
    expect(cache.size).toBe(0);
    expect(cache.owner(1, 'd')).toBeUndefined();
  });

  it('drops the oldest persons when full', () => {
    const cache = new PersonCache(10);
    for (let id = 1; id <= 11; id++) cache.remember(person(id, 0));
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.properties(1, 0)).toBeUndefined();
    expect(cache.properties(11, 0)).toEqual({ id: 11 });
    // Owners are kept up to twice as many as persons, the oldest dropped first.
    cache.remember(person(11, 1));
    for (let n = 0; n < 25; n++) cache.rememberOwner(1 + (n % 2), `o-${n}`, 11);
    expect(cache.ownersKept).toBeLessThanOrEqual(20);
    expect(cache.owner(1, 'o-0')).toBeUndefined();
    expect(cache.owner(1, 'o-24')).toEqual(person(11, 1));
    expect(cache.owner(2, 'o-23')).toEqual(person(11, 1));
    cache.rememberOwner(2, 'o-23', 11);
    expect(cache.ownersKept).toBeLessThanOrEqual(20);
    // Remembering again makes a person the newest.
    cache.remember(person(2, 1));
    for (let id = 12; id <= 13; id++) cache.remember(person(id, 0));
    expect(cache.properties(2, 1)).toEqual({ id: 2 });
  });
});
