/**
 * Capture queues a request's events as one row (a chunk), and the worker reads whole rows,
 * sizes its batches in events, and, retrying a failed batch one event at a time, takes each
 * event out of its chunk as it is stored or parked: no event is lost, none is stored twice.
 */
import { flushOutbox } from '../../src/events/outbox-copy.js';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { partitionCount, queuePartition } from '../../src/ingestion/core/partition.js';
import { chunkPayloads } from '../../src/ingestion/core/queue-rows.js';
import { queueCounts } from '../../src/ingestion/queue-admin.js';
import type { QueueRow } from '../../src/ingestion/queue.js';
import { readQueueBatch } from '../../src/ingestion/queue-records.js';
import { processOneByOne } from '../../src/ingestion/worker/one-by-one.js';
import { SpikeDetector } from '../../src/ingestion/worker/spike-detector.js';
import { IngestionWorker, MAX_PROCESSING_ATTEMPTS } from '../../src/ingestion/worker/worker.js';
import { acceptBoomDistinctIds, refuseBoomDistinctIds } from '../helpers/faults.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ INGESTION_WORKER: 'off' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await server.running.ctx.database.db.deleteFrom('ingestion_queue').execute();
});

/**
 * `name`, or `name` with a suffix, in partition 0 of the queue: these tests are about chunks, and a
 * chunk holds the events of one partition (on PostgreSQL a request of distinct ids in several
 * partitions is several rows, see core/queue-rows.ts partitionChunks).
 */
const inPartitionZero = new Map<string, string>();
function id(name: string): string {
  let found = inPartitionZero.get(name);
  if (found === undefined) {
    const partitions = partitionCount(server.running.ctx.database.dialect);
    found = name;
    // A name ending in -boom keeps that ending (helpers/faults.ts).
    const [stem, end] = name.endsWith('-boom') ? [name.slice(0, -5), '-boom'] : [name, ''];
    for (let k = 0; queuePartition(server.bootstrap.team.id, found, partitions) !== 0; k++) found = `${stem}~${k}${end}`;
    inPartitionZero.set(name, found);
  }
  return found;
}

let sequence = 0;
function event(name: string, eventName = 'chunked', properties: Record<string, unknown> = {}): QueueRow {
  const distinctId = id(name);
  const n = ++sequence;
  const now = new Date(Date.parse('2026-03-01T00:00:00.000Z') + n * 1000).toISOString();
  const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    teamId: server.bootstrap.team.id,
    lane: 'realtime',
    distinctId,
    payload: {
      uuid,
      event: eventName,
      distinct_id: distinctId,
      properties: { n, ...properties },
      timestamp: now,
      now,
      sent_at: null,
      ip: null,
    },
  };
}

// Batches of exactly batchSize events (no time budget): the batches are what these tests look at.
const worker = (batchSize = 1000) =>
  new IngestionWorker(server.running.ctx.database, pino({ level: 'silent' }), {
    batchSize,
    batchBudgetMs: 0,
    analytics: server.running.ctx.analytics,
  });
const queueRows = () =>
  server.running.ctx.database.db.selectFrom('ingestion_queue').select(['payload', 'event_count', 'attempts']).orderBy('id').execute();
/** The events of these distinct ids in ClickHouse, once the worker's committed batches are copied there. */
const storedCount = async (distinctIds: string[]) => {
  await flushOutbox(server.running.ctx.database.db, server.running.ctx.analytics);
  const ids = distinctIds.map(id);
  return (await storedEvents(server.running.ctx.analytics)).filter((e) => ids.includes(e.distinct_id)).length;
};

describe('queue chunks', () => {
  it('a /batch/ request is one queue row holding its events, stored by the worker', async () => {
    const team = server.bootstrap.team;
    const batch = Array.from({ length: 100 }, (_, i) => ({
      event: 'from a batch',
      properties: { distinct_id: id(`batch-${i % 10}`), i, $set: { last: i } },
    }));
    const res = await fetch(`${server.url}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: team.apiToken, batch }),
    });
    expect(res.status).toBe(200);
    const rows = await queueRows();
    expect(rows.map((r) => r.event_count)).toEqual([100]);
    expect(JSON.parse(rows[0]!.payload).map((e: { properties: { i: number } }) => e.properties.i)).toEqual(
      batch.map((e) => e.properties.i),
    );
    expect(await queueCounts(server.running.ctx.database)).toEqual([{ lane: 'realtime', waiting: 100, parked: 0 }]);

    const w = worker();
    expect(await w.runOnce()).toBe(100);
    await w.stop();
    expect(await queueRows()).toEqual([]);
    expect(await storedCount(Array.from({ length: 10 }, (_, i) => `batch-${i}`))).toBe(100);
    // In order within the request: each person's last $set is its last event's.
    const person = await server.request(`/api/environments/${team.id}/persons/?distinct_id=${id('batch-3')}`);
    expect(person.body.results[0].properties.last).toBe(93);
  });

  it('batches hold whole rows, up to the batch size in events; a larger chunk is a batch of its own', async () => {
    const { ingestionQueue } = server.running.ctx;
    for (let r = 0; r < 5; r++) await ingestionQueue.enqueueRequest(Array.from({ length: 100 }, (_, i) => event(`size-${r}-${i % 3}`)));
    await ingestionQueue.enqueue([event('size-single')]);
    const w = worker(250);
    const rounds: number[] = [];
    for (let n = await w.runOnce(); n > 0; n = await w.runOnce()) rounds.push(n);
    expect(rounds).toEqual([200, 200, 101]);
    // The second batch was read and prepared while the first was written.
    expect(w.batchesPreparedAhead).toBeGreaterThan(0);
    await w.stop();

    // Single events: more rows than the first read of sizes takes.
    await ingestionQueue.enqueue(Array.from({ length: 100 }, (_, i) => event(`single-${i % 5}`)));
    const singles = worker(80);
    expect([await singles.runOnce(), await singles.runOnce(), await singles.runOnce()]).toEqual([80, 20, 0]);
    await singles.stop();

    // 120 events are two chunks (of at most 100); a chunk larger than the batch size is a batch of its own.
    await ingestionQueue.enqueueRequest(Array.from({ length: 120 }, (_, i) => event(`large-${i % 4}`)));
    expect((await queueRows()).map((r) => r.event_count)).toEqual([100, 20]);
    const small = worker(50);
    expect([await small.runOnce(), await small.runOnce()]).toEqual([100, 20]);
    await small.stop();
    expect(await queueRows()).toEqual([]);
  });

  it('the capture requests of one commit share a row; each event keeps its own receipt time, rows of their own stay apart', async () => {
    const { database, ingestionQueue } = server.running.ctx;
    const singles = Array.from({ length: 4 }, (_, i) => event(`shared-${i}`));
    // No timestamp: stored at its own receipt time, not at the shared row's.
    delete singles[1]!.payload.timestamp;
    const request = Array.from({ length: 3 }, (_, i) => event(`shared-batch-${i}`));
    const alone = event('shared-alone');
    const later = event('shared-later');
    // One person's two updates in two requests of the commit: the later one wins.
    const setFirst = event('shared-person', 'set', { $set: { plan: 'first' } });
    const setSecond = event('shared-person', 'set', { $set: { plan: 'second' } });
    // Handed over in one turn: one commit.
    await Promise.all([
      ingestionQueue.enqueueRequest([singles[0]!]),
      ingestionQueue.enqueueRequest(request),
      // As capture hands a request over (capture-handler.ts).
      ingestionQueue.enqueueChunks(singles[1]!.teamId, 'realtime', singles[1]!.payload.now, chunkPayloads([singles[1]!.payload])),
      ingestionQueue.enqueue([alone]),
      ingestionQueue.enqueueRequest([singles[2]!]),
      ingestionQueue.enqueueRequest([setFirst]),
      ingestionQueue.enqueueRequest([singles[3]!]),
      ingestionQueue.enqueueRequest([setSecond]),
    ]);
    await ingestionQueue.enqueueRequest([later]); // the next commit: a row of its own
    const rows = await database.db
      .selectFrom('ingestion_queue')
      .select(['distinct_id', 'received_at', 'payload', 'event_count'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.distinct_id, Number(r.event_count)])).toEqual([
      [id('shared-0'), 5],
      [id('shared-alone'), 1],
      [id('shared-2'), 4],
      [id('shared-later'), 1],
    ]);
    expect(new Date(rows[0]!.received_at).toISOString()).toBe(singles[0]!.payload.now);
    expect((JSON.parse(rows[0]!.payload) as QueueRow['payload'][]).map((e) => e.uuid)).toEqual(
      [singles[0]!, ...request, singles[1]!].map((e) => e.payload.uuid),
    );

    const w = worker();
    expect(await w.runOnce()).toBe(11);
    await w.stop();
    expect(await queueRows()).toEqual([]);
    const stored = (await storedEvents(server.running.ctx.analytics)).filter((e) => e.distinct_id.startsWith('shared-'));
    expect(stored.map((e) => e.uuid).sort()).toEqual(
      [...singles, ...request, alone, later, setFirst, setSecond].map((e) => e.payload.uuid).sort(),
    );
    const second = stored.find((e) => e.distinct_id === id('shared-1'))!;
    expect(new Date(second.timestamp).toISOString()).toBe(singles[1]!.payload.now);
    expect(singles[1]!.payload.now).not.toBe(new Date(rows[0]!.received_at).toISOString());
    const person = await server.request(`/api/environments/${server.bootstrap.team.id}/persons/?distinct_id=${id('shared-person')}`);
    expect(person.body.results[0].properties.plan).toBe('second');
  });

  it('retried one by one: stored events leave the chunk, a failing one stays in it for the next round', async () => {
    const { database, ingestionQueue } = server.running.ctx;
    await refuseBoomDistinctIds(database.db);
    try {
      // An $identify has no personless form: while the fault lasts, it cannot be stored at all.
      const failing = event('retry-boom', '$identify');
      await ingestionQueue.enqueueRequest([event('retry-a'), failing, event('retry-c'), event('personless-boom')]);
      const w = worker();
      await w.runOnce();
      expect(await storedCount(['retry-a', 'retry-c', 'personless-boom'])).toBe(3);
      // Left alone in the row, a plain row now, its failure counted in its row's attempts.
      const left = await queueRows();
      expect(left.map((r) => ({ ...r, payload: JSON.parse(r.payload) }))).toEqual([
        { payload: { ...failing.payload, attempts: 1 }, event_count: 1, attempts: 1 },
      ]);

      await acceptBoomDistinctIds(database.db);
      await w.runOnce();
      await w.stop();
      expect(await queueRows()).toEqual([]);
      expect(await storedCount(['retry-boom'])).toBe(1);
      expect(await storedCount(['retry-a', 'retry-c', 'personless-boom'])).toBe(3);
    } finally {
      await acceptBoomDistinctIds(database.db).catch(() => undefined);
    }
  });

  it('leaves a chunk alone when its row is no longer as this process last committed it', async () => {
    const { database, ingestionQueue } = server.running.ctx;
    const { db } = database;
    await ingestionQueue.enqueueRequest([event('stale-1'), event('stale-2'), event('stale-3')]);
    const records = (await readQueueBatch(db, 'realtime', 1000, MAX_PROCESSING_ATTEMPTS)).records;
    expect(records).toHaveLength(3);
    // Meanwhile the row changed under it (as after a commit reported failed that went through).
    const changed = `[${records[1]!.payload},${records[2]!.payload}]`;
    await db.updateTable('ingestion_queue').set({ payload: changed, event_count: 2 }).where('id', '=', records[0]!.id).execute();
    const ctx = {
      inFencedTransaction: <T>(work: (trx: never) => Promise<T>) => db.transaction().execute((trx) => work(trx as never)),
      batchDeps: () => ({ spikes: new SpikeDetector(0), groupTypes: new Map<string, number>(), warnHot: () => undefined }),
      afterCommit: async () => undefined,
      log: pino({ level: 'silent' }),
    };
    await processOneByOne(ctx, 'realtime', records);
    // Nothing was written from the stale view: the row is as it was changed, nothing stored.
    expect(await queueRows()).toEqual([{ payload: changed, event_count: 2, attempts: 0 }]);
    expect(await storedCount(['stale-1', 'stale-2', 'stale-3'])).toBe(0);
  });

  it('parks a chunk event that keeps failing in a row of its own; the chunk keeps the rest', async () => {
    const { database, ingestionQueue } = server.running.ctx;
    await refuseBoomDistinctIds(database.db);
    try {
      const first = event('park-1-boom', '$identify');
      const second = event('park-2-boom', '$identify');
      await ingestionQueue.enqueueRequest([first, event('park-ok'), second, event('park-later')]);
      const w = worker();
      // Each event's failures count for itself: after two rounds neither is parked.
      for (let round = 1; round < MAX_PROCESSING_ATTEMPTS; round++) await w.runOnce();
      expect(await storedCount(['park-ok', 'park-later'])).toBe(2);
      const waiting = await queueRows();
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatchObject({ event_count: 2, attempts: 0 });
      expect(JSON.parse(waiting[0]!.payload).map((e: { distinct_id: string; attempts: number }) => [e.distinct_id, e.attempts])).toEqual([
        [id('park-1-boom'), MAX_PROCESSING_ATTEMPTS - 1],
        [id('park-2-boom'), MAX_PROCESSING_ATTEMPTS - 1],
      ]);
      await w.runOnce();
      await w.runOnce();
      await w.stop();
      // At the last attempt the first was parked out of the chunk (a new row), the second, left
      // alone, in the row itself.
      const rows = await queueRows();
      expect(rows.map((r) => ({ ...r, payload: JSON.parse(r.payload).distinct_id }))).toEqual(
        expect.arrayContaining([
          { payload: id('park-1-boom'), event_count: 1, attempts: MAX_PROCESSING_ATTEMPTS },
          { payload: id('park-2-boom'), event_count: 1, attempts: MAX_PROCESSING_ATTEMPTS },
        ]),
      );
      expect(rows).toHaveLength(2);
      // Each parked row names its own event (what `hoglet queue` lists), the one left in place too.
      const named = await database.db.selectFrom('ingestion_queue').select(['distinct_id', 'received_at', 'payload']).execute();
      for (const row of named) {
        const queued = JSON.parse(row.payload) as QueueRow['payload'];
        expect([row.distinct_id, new Date(row.received_at).toISOString()]).toEqual([queued.distinct_id, queued.now]);
      }
      expect(await queueCounts(database)).toEqual([{ lane: 'realtime', waiting: 0, parked: 2 }]);
      const warnings = await server.request(`/api/environments/${server.bootstrap.team.id}/ingestion_warnings/`);
      const parked = warnings.body.results.find((w: { type: string }) => w.type === 'event_processing_failed');
      expect(parked.warnings.filter((w: { details: { parked?: boolean } }) => w.details.parked)).toHaveLength(2);
    } finally {
      await acceptBoomDistinctIds(database.db).catch(() => undefined);
    }
  });
});
