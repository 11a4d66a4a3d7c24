import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { deletePersonRow, getPersonByDistinctId, getPersonsByDistinctIds } from '../../src/persons/store.js';
import { PersonPropertiesCache } from '../../src/ingestion/worker/person-unit.js';
import { IngestionWorker } from '../../src/ingestion/worker/worker.js';
import type { QueueRow } from '../../src/ingestion/queue.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The worker keeps persons' parsed properties across batches, keyed by person id and version.
 * What a later batch sees must still be what is stored: after updates in earlier batches, after
 * a merge, and after the person was deleted behind the worker's back (by the persons API).
 */
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

let n = 0;
function row(teamId: number, distinctId: string, event: string, properties: Record<string, unknown>): QueueRow {
  n++;
  const now = new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * 1000).toISOString();
  const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return { teamId, lane: 'realtime', distinctId, payload: { uuid, event, distinct_id: distinctId, properties, timestamp: now, now, sent_at: null, ip: null } };
}

describe('worker person cache', () => {
  it('keeps later batches in step with what is stored', async () => {
    const server = await startTestServer({ INGESTION_WORKER: 'off' });
    servers.push(server);
    const { database, ingestionQueue } = server.running.ctx;
    const teamId = server.bootstrap.team.id;
    // One worker for every step: its cache outlives each batch.
    const worker = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 2 });
    const run = async (rows: QueueRow[]) => {
      await ingestionQueue.enqueue(rows);
      await worker.drain();
    };
    const props = async (distinctId: string) => (await getPersonByDistinctId(database.db, teamId, distinctId))?.properties;

    await run([row(teamId, 'anon-1', 'clicked', { $set: { plan: 'free', step: 1 } }), row(teamId, 'user-1', 'clicked', { $set: { email: 'u@example.com' } })]);
    await run([row(teamId, 'anon-1', 'clicked', { $set: { step: 2 } })]);
    await run([row(teamId, 'anon-1', 'clicked', { $set_once: { first: 'a' }, $set: { step: 3 } })]);
    expect(await props('anon-1')).toEqual({ plan: 'free', step: 3, first: 'a' });

    // A merge folds anon-1 into user-1; the next batches read the survivor.
    await run([row(teamId, 'user-1', '$identify', { $anon_distinct_id: 'anon-1' })]);
    await run([row(teamId, 'anon-1', 'clicked', { $set: { step: 4 } })]);
    expect(await props('user-1')).toEqual({ plan: 'free', step: 4, first: 'a', email: 'u@example.com' });
    expect((await getPersonByDistinctId(database.db, teamId, 'anon-1'))?.id).toBe((await getPersonByDistinctId(database.db, teamId, 'user-1'))?.id);

    // Deleted by the persons API: the next event creates a new person, without the old properties.
    const old = (await getPersonByDistinctId(database.db, teamId, 'user-1'))!;
    await deletePersonRow(database.db, teamId, old.id);
    await run([row(teamId, 'user-1', 'clicked', { $set: { plan: 'pro' } })]);
    const fresh = (await getPersonByDistinctId(database.db, teamId, 'user-1'))!;
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.properties).toEqual({ plan: 'pro' });
    await worker.stop();
  }, 60_000);

  it('reads persons by distinct id alike with and without cached properties', async () => {
    const server = await startTestServer({ INGESTION_WORKER: 'off' });
    servers.push(server);
    const { database, ingestionQueue } = server.running.ctx;
    const teamId = server.bootstrap.team.id;
    await ingestionQueue.enqueue([
      row(teamId, 'p-a', 'clicked', { $set: { a: 1 } }),
      row(teamId, 'p-b', 'clicked', { $set: { b: 2 } }),
      row(teamId, 'p-c', '$identify', { $anon_distinct_id: 'p-d', $set: { c: 3 } }),
    ]);
    const worker = new IngestionWorker(database, pino({ level: 'silent' }), {});
    await worker.drain();
    await worker.stop();
    // Three ids with persons (two of them one person) and one without: an odd count, padded.
    const ids = ['p-a', 'p-b', 'p-c', 'p-d', 'p-none'];
    const plain = await getPersonsByDistinctIds(database.db, teamId, ids);
    expect([...plain.keys()].sort()).toEqual(['p-a', 'p-b', 'p-c', 'p-d']);
    expect(plain.get('p-c')!.id).toBe(plain.get('p-d')!.id);
    const a = plain.get('p-a')!;
    // Only p-a's properties are "cached" (at its version): the others are read from the table.
    const cached = await getPersonsByDistinctIds(database.db, teamId, ids, (id, version) => (id === a.id && version === a.version ? { from: 'cache' } : undefined));
    expect(cached.get('p-a')).toEqual({ ...a, properties: { from: 'cache' } });
    for (const id of ['p-b', 'p-c', 'p-d']) expect(cached.get(id)).toEqual(plain.get(id));
    expect(cached.has('p-none')).toBe(false);
    expect(plain.get('p-c')!.properties).toEqual({ c: 3 });
  }, 60_000);

  it('answers only for the version it holds and drops the oldest entries when full', () => {
    const cache = new PersonPropertiesCache(10);
    cache.set(1, 3, { a: 1 });
    expect(cache.get(1, 3)).toEqual({ a: 1 });
    expect(cache.get(1, 4)).toBeUndefined();
    cache.set(1, 4, { a: 2 });
    expect(cache.get(1, 3)).toBeUndefined();
    for (let id = 2; id <= 11; id++) cache.set(id, 0, { id });
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.get(1, 4)).toBeUndefined();
    expect(cache.get(11, 0)).toEqual({ id: 11 });
  });
});
