import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueRow } from '../../../src/ingestion/queue.js';
import { readQueueBatch } from '../../../src/ingestion/queue-records.js';
import { processBatch, QueueRowsGone } from '../../../src/ingestion/worker/batch.js';
import { prepareRow, ReceiptClock } from '../../../src/ingestion/worker/prepare.js';
import { SpikeDetector } from '../../../src/ingestion/worker/spike-detector.js';
import { IngestionWorker, MAX_PROCESSING_ATTEMPTS } from '../../../src/ingestion/worker/worker.js';
import { refuseBoomDistinctIds } from '../../helpers/faults.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { storedEvents } from '../../helpers/stored-events.js';
import { flushOutbox } from '../../../src/events/outbox-copy.js';

/**
 * Under a backlog the worker reads the next batch and has it prepared on its prepare thread while
 * it writes the current one. What was prepared ahead must never change what is stored: a batch
 * that fails takes the batch read ahead with it (the events it leaves in the queue come first),
 * and a row prepared under settings that changed since is prepared again.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ INGESTION_WORKER: 'off' });
});
afterAll(async () => {
  await server.close();
});

const UNREADABLE = '{"event": "truncated in the queue", "distinct_id": ';

function row(teamId: number, n: number, distinctId: string, set: Record<string, unknown> = { step: n }): QueueRow {
  const now = new Date(Date.parse('2026-02-01T00:00:00.000Z') + n * 1000).toISOString();
  const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    teamId,
    lane: 'realtime',
    distinctId,
    payload: { uuid, event: 'step', distinct_id: distinctId, properties: { n, $set: set }, timestamp: now, now, sent_at: null, ip: null },
  };
}

async function personProperties(distinctId: string): Promise<Record<string, unknown>> {
  const { db } = server.running.ctx.database;
  const person = await db
    .selectFrom('persons')
    .innerJoin('person_distinct_ids', 'persons.id', 'person_distinct_ids.person_id')
    .select('persons.properties')
    .where('person_distinct_ids.distinct_id', '=', distinctId)
    .executeTakeFirstOrThrow();
  return (typeof person.properties === 'string' ? JSON.parse(person.properties) : person.properties) as Record<string, unknown>;
}

describe('batches prepared ahead', () => {
  it('go with a batch that fails: every event is stored once, in order, and a poison row is parked', async () => {
    const team = server.bootstrap.team;
    const { database, ingestionQueue, analytics } = server.running.ctx;
    const { db } = database;
    await refuseBoomDistinctIds(db);
    const ids = ['a', 'b', 'c'];
    // 0..7, a poison row, 8..19 (with a distinct id whose person processing fails at 10).
    await ingestionQueue.enqueue(Array.from({ length: 8 }, (_, n) => row(team.id, n, ids[n % 3]!)));
    await db
      .insertInto('ingestion_queue')
      .values({ team_id: team.id, lane: 'realtime', distinct_id: 'poison', payload: UNREADABLE, received_at: new Date().toISOString() })
      .execute();
    await ingestionQueue.enqueue(Array.from({ length: 12 }, (_, i) => row(team.id, i + 8, i + 8 === 10 ? 'x-boom' : ids[(i + 8) % 3]!)));

    const worker = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 3, geoip: undefined, analytics });
    await worker.drain();
    await worker.stop();
    expect(worker.batchesPreparedAhead).toBeGreaterThan(0);

    const events = await storedEvents(analytics, team.id);
    expect(events.map((e) => e.uuid).sort()).toEqual(Array.from({ length: 20 }, (_, n) => row(team.id, n, '').payload.uuid));
    // Each person ends at its last step: the events of each distinct id were applied in order.
    for (const distinctId of ids) {
      const last = Math.max(...Array.from({ length: 20 }, (_, n) => n).filter((n) => n !== 10 && ids[n % 3] === distinctId));
      const person = await server.request(`/api/environments/${team.id}/persons/?distinct_id=${distinctId}`);
      expect(person.body.results[0].properties.step, distinctId).toBe(last);
    }
    const left = await db.selectFrom('ingestion_queue').select(['distinct_id', 'attempts']).execute();
    expect(left).toEqual([{ distinct_id: 'poison', attempts: MAX_PROCESSING_ATTEMPTS }]);
    const warnings = await db.selectFrom('ingestion_warnings').select('type').where('team_id', '=', team.id).execute();
    expect(warnings.filter((w) => w.type === 'event_processing_failed')).toHaveLength(2); // x-boom stored personless; poison parked
  });

  it('are used as prepared unless the environment changed anonymize_ips since; then prepared again', async () => {
    const team = server.bootstrap.team;
    const { database, ingestionQueue } = server.running.ctx;
    const { db } = database;
    await db.deleteFrom('ingestion_queue').execute();
    const deps = { spikes: new SpikeDetector(0), groupTypes: new Map<string, number>(), warnHot: () => undefined };
    const clock = new ReceiptClock();

    const stored = async (uuid: string) => {
      // Committed outside a worker: its outbox row is copied to ClickHouse here.
      await flushOutbox(db, server.running.ctx.analytics);
      const event = (await storedEvents(server.running.ctx.analytics, team.id)).find((e) => e.uuid === uuid)!;
      return JSON.parse(event.properties) as Record<string, unknown>;
    };
    const sendAndProcess = async (n: number, anonymizeIpsAhead: boolean) => {
      const queued = row(team.id, 100 + n, 'ip-user');
      queued.payload.ip = '198.51.100.9';
      await ingestionQueue.enqueue([queued]);
      const rows = (await readQueueBatch(db, 'realtime', 10, MAX_PROCESSING_ATTEMPTS)).records;
      expect(rows).toHaveLength(1);
      // What the prepare thread made of it, marked so that the test sees whether it was used.
      const marked = JSON.stringify({ ...queued.payload, properties: { ...queued.payload.properties, prepared: 'ahead' } });
      const ahead = [prepareRow(marked, { anonymizeIps: anonymizeIpsAhead, clock })];
      const outcome = await db.transaction().execute((trx) => processBatch(trx, 'realtime', rows, deps, ahead));
      outcome.committed();
      return stored(queued.payload.uuid);
    };

    // Same setting: the row prepared ahead is the one stored.
    expect(await sendAndProcess(1, false)).toMatchObject({ prepared: 'ahead', $ip: '198.51.100.9' });
    const patched = await server.request(`/api/environments/${team.id}/`, { method: 'PATCH', body: { anonymize_ips: true } });
    expect(patched.status).toBe(200);
    // Prepared before the change: prepared again, without the address.
    const again = await sendAndProcess(2, false);
    expect(again.prepared).toBeUndefined();
    expect(again.$ip).toBeUndefined();
    expect(await sendAndProcess(3, true)).toMatchObject({ prepared: 'ahead' });
  });

  it('give way to a row before them that is back in line: a distinct id keeps its order', async () => {
    const team = server.bootstrap.team;
    const { database, ingestionQueue } = server.running.ctx;
    const { db } = database;
    await db.deleteFrom('ingestion_queue').execute();
    // A parked event of D (its cause since mended), then 16 events; D's newer one is the 10th.
    await ingestionQueue.enqueue([row(team.id, 200, 'D', { plan: 'old' })]);
    await db.updateTable('ingestion_queue').set({ attempts: MAX_PROCESSING_ATTEMPTS }).execute();
    await ingestionQueue.enqueue(
      Array.from({ length: 16 }, (_, i) => row(team.id, 201 + i, i === 9 ? 'D' : `other-${i}`, i === 9 ? { plan: 'new' } : { step: i })),
    );
    const worker = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 4 });
    await worker.runOnce(); // the first 4, with the next 4 read ahead
    // `hoglet queue retry`: the parked event is back in line, before the batch read ahead.
    await db.updateTable('ingestion_queue').set({ attempts: 0 }).where('distinct_id', '=', 'D').execute();
    await worker.drain();
    await worker.stop();
    expect(worker.batchesPreparedAhead).toBeGreaterThan(0);
    expect((await personProperties('D')).plan).toBe('new');
  });

  it('can have their thread started before the first batch (warmUp), unless the worker prepares none ahead', async () => {
    const { database } = server.running.ctx;
    const ahead = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 2 });
    const inline = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 2, prepareAhead: false });
    try {
      expect(await ahead.warmUp()).toBe(true);
      expect(await inline.warmUp()).toBe(false);
    } finally {
      await ahead.stop();
      await inline.stop();
    }
    // A stopped worker starts no thread (stop() has closed it; nothing would close a new one).
    expect(await ahead.warmUp()).toBe(false);
  });

  it('give up the lease when the worker stops after draining, so another takes over at once', async () => {
    const team = server.bootstrap.team;
    const { database, ingestionQueue, analytics } = server.running.ctx;
    await ingestionQueue.enqueue(Array.from({ length: 6 }, (_, i) => row(team.id, 300 + i, 'lease-1')));
    const first = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 2, analytics });
    await first.drain();
    await first.stop();
    await ingestionQueue.enqueue([row(team.id, 310, 'lease-2')]);
    const second = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 2, analytics });
    await second.drain();
    await second.stop();
    expect((await storedEvents(analytics, team.id)).filter((e) => e.uuid === row(team.id, 310, '').payload.uuid)).toHaveLength(1);
  });

  it('stop with the worker: a stop during a drain lets its batch finish, then gives up the lease for good', async () => {
    const team = server.bootstrap.team;
    const { database, ingestionQueue, analytics } = server.running.ctx;
    const { db } = database;
    await ingestionQueue.enqueue(Array.from({ length: 40 }, (_, i) => row(team.id, 500 + i, `stop-${i % 4}`)));
    const first = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 4, analytics });
    const draining = first.drain();
    await first.stop();
    await draining; // ends: no new round after stop()
    // Its partition leases and its membership are gone.
    expect(await db.selectFrom('worker_leases').selectAll().where('name', 'like', 'ingestion-%').execute()).toEqual([]);
    // Nothing half done: whatever the first worker did not process, another takes over at once.
    const second = new IngestionWorker(database, pino({ level: 'silent' }), { batchSize: 4, analytics });
    await second.drain();
    await second.stop();
    const stored = (await storedEvents(analytics, team.id)).filter((e) => e.distinct_id.startsWith('stop-'));
    expect(stored).toHaveLength(40);
  });

  it('are rolled back when their queue rows were processed by another worker meanwhile', async () => {
    const team = server.bootstrap.team;
    const { database, ingestionQueue } = server.running.ctx;
    const { db } = database;
    await db.deleteFrom('ingestion_queue').execute();
    await ingestionQueue.enqueue([row(team.id, 400, 'gone-1'), row(team.id, 401, 'gone-2')]);
    const rows = (await readQueueBatch(db, 'realtime', 10, MAX_PROCESSING_ATTEMPTS)).records;
    expect(rows).toHaveLength(2);
    // Another worker (which held the lease meanwhile) took the second row.
    await db.deleteFrom('ingestion_queue').where('id', '=', rows[1]!.id).execute();
    const deps = { spikes: new SpikeDetector(0), groupTypes: new Map<string, number>(), warnHot: () => undefined };
    await expect(db.transaction().execute((trx) => processBatch(trx, 'realtime', rows, deps))).rejects.toBeInstanceOf(QueueRowsGone);
    await flushOutbox(db, server.running.ctx.analytics);
    const stored = (await storedEvents(server.running.ctx.analytics, team.id)).filter((e) => ['gone-1', 'gone-2'].includes(e.distinct_id));
    expect(stored).toEqual([]);
    expect(await db.selectFrom('ingestion_queue').select('id').execute()).toEqual([{ id: rows[0]!.id }]);
  });
});
