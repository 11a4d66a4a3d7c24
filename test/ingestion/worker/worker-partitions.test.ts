import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { partitionCount, queuePartition } from '../../../src/ingestion/core/partition.js';
import { IngestionWorker } from '../../../src/ingestion/worker/worker.js';
import type { QueuedEvent, QueueRow } from '../../../src/ingestion/queue.js';
import { getPersonByDistinctId } from '../../../src/persons/store.js';
import { BACKEND, TEST_DATABASE_URL } from '../../helpers/backend.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * Several workers share the queue's partitions (16 on PostgreSQL, one on SQLite), each on its own
 * database handle as separate processes would be: each gets a share, one that stops or dies
 * leaves its partitions to the others, each distinct id's events are processed in queue order,
 * and merges of distinct ids in different partitions end with one person.
 *
 * The workers here have no analytics store: the events they store wait in the analytics outbox,
 * whose rows (one per committed batch, ids in commit order) show the order events were stored in.
 */
const servers: TestServer[] = [];
const handles: Database[] = [];
const workers: IngestionWorker[] = [];
afterAll(async () => {
  for (const worker of workers) await worker.stop();
  for (const handle of handles) await handle.close();
  for (const server of servers) await server.close();
});

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const LEASE_MS = 500;
const PARTITIONS = partitionCount(BACKEND);

async function setUp() {
  const server = await startTestServer({ INGESTION_WORKER: 'off' });
  servers.push(server);
  const second = await openDatabase({
    databaseUrl: TEST_DATABASE_URL,
    sqliteFile: path.join(server.storage.dataDir, 'hoglet.db'),
    ...(server.storage.schema ? { pgSchema: server.storage.schema } : {}),
  });
  handles.push(second);
  const { database, ingestionQueue } = server.running.ctx;
  return { server, databases: [database, second] as const, queue: ingestionQueue, teamId: server.bootstrap.team.id };
}

function newWorker(database: Database): IngestionWorker {
  const worker = new IngestionWorker(database, log, { leaseTtlMs: LEASE_MS, idleMs: 20, batchSize: 25 });
  workers.push(worker);
  return worker;
}

/** Partition leases by holder. */
async function holders(database: Database): Promise<Map<string, number[]>> {
  const rows = await database.db
    .selectFrom('worker_leases')
    .select(['name', 'owner', 'expires_at'])
    .where('name', 'like', 'ingestion-partition-%')
    .execute();
  const byOwner = new Map<string, number[]>();
  const now = Date.now();
  for (const row of rows) {
    if (Date.parse(row.expires_at) < now) continue;
    const list = byOwner.get(row.owner) ?? [];
    list.push(Number(row.name.slice('ingestion-partition-'.length)));
    byOwner.set(row.owner, list);
  }
  return byOwner;
}

let uuidCounter = 0;
function event(teamId: number, distinctId: string, name: string, properties: Record<string, unknown>): QueueRow {
  uuidCounter++;
  const now = new Date().toISOString();
  const payload: QueuedEvent = {
    uuid: `00000000-0000-4000-8000-${String(uuidCounter).padStart(12, '0')}`,
    event: name,
    distinct_id: distinctId,
    properties,
    timestamp: now,
    now,
    sent_at: null,
    ip: null,
  };
  return { teamId, lane: 'realtime', distinctId, payload };
}

async function queueEmpty(database: Database): Promise<boolean> {
  return (await database.db.selectFrom('ingestion_queue').select('id').limit(1).executeTakeFirst()) === undefined;
}

/** The stored events' `seq` per distinct id, in the order they were stored (outbox rows in id order). */
async function storedOrder(database: Database): Promise<Map<string, number[]>> {
  const rows = await database.db.selectFrom('analytics_outbox').select(['id', 'events']).orderBy('id').execute();
  const order = new Map<string, number[]>();
  for (const row of rows) {
    for (const line of row.events.split('\n')) {
      if (!line) continue;
      // The properties are the JSON object itself (outbox-rows.ts's eventRow).
      const stored = JSON.parse(line) as { distinct_id: string; event: string; properties: { seq: number } };
      if (stored.event !== 'step') continue;
      const seq = stored.properties.seq;
      const list = order.get(stored.distinct_id) ?? [];
      list.push(seq);
      order.set(stored.distinct_id, list);
    }
  }
  return order;
}

/** Pairs of distinct ids in different partitions (on SQLite, any pair: there is one). */
function pairsAcrossPartitions(teamId: number, prefix: string, count: number): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; pairs.length < count; i++) {
    const a = `${prefix}-anon-${i}`;
    const b = `${prefix}-user-${i}`;
    if (PARTITIONS === 1 || queuePartition(teamId, a, PARTITIONS) !== queuePartition(teamId, b, PARTITIONS)) pairs.push([a, b]);
  }
  return pairs;
}

describe('workers sharing the queue partitions', () => {
  it('share the partitions; one that stops or dies leaves its partitions to the others within the lease time', async () => {
    const { databases } = await setUp();
    const a = newWorker(databases[0]);
    const b = newWorker(databases[1]);
    a.start();
    b.start();
    // Every partition held; on PostgreSQL by both, half each; on SQLite, its one partition by one.
    const shared = await waitFor(() => holders(databases[0]), {
      what: 'the partitions to be shared',
      until: (map) => {
        const counts = [...map.values()].map((list) => list.length);
        const total = counts.reduce((sum, n) => sum + n, 0);
        return total === PARTITIONS && (PARTITIONS === 1 ? map.size === 1 : map.size === 2 && counts.every((n) => n === PARTITIONS / 2));
      },
    });
    expect([...shared.values()].flat().sort((x, y) => x - y)).toEqual([...Array(PARTITIONS).keys()]);

    // One stops: it gives its partitions back, and the other takes them all.
    await b.stop();
    const alone = await waitFor(() => holders(databases[0]), {
      what: 'the remaining worker to hold every partition',
      until: (map) => map.size === 1 && [...map.values()][0]!.length === PARTITIONS,
    });
    const survivor = [...alone.keys()][0]!;

    // A third one joins (one round, then it dies: its leases are never renewed again nor given back).
    const dying = newWorker(databases[1]);
    if (PARTITIONS > 1) {
      await waitFor(
        async () => {
          await dying.runOnce();
          return holders(databases[0]);
        },
        { what: 'the newcomer to get its share', until: (map) => map.size === 2 },
      );
    }
    // Its partitions lapse and the survivor takes them over.
    await waitFor(() => holders(databases[0]), {
      what: "the dead worker's partitions to be taken over",
      until: (map) => map.size === 1 && map.get(survivor)?.length === PARTITIONS,
    });
    await a.stop();
    expect(await holders(databases[0])).toEqual(new Map());
  }, 120_000);

  it('hand partitions over at a clean join or leave after a batch, without waiting for a renewal', async () => {
    const { databases, queue, teamId } = await setUp();
    // Leases renewed a third of a minute apart: any handover seen here came from the batches' fences.
    const slow = (database: Database) => {
      const worker = new IngestionWorker(database, log, { leaseTtlMs: 60_000, idleMs: 20, batchSize: 25 });
      workers.push(worker);
      return worker;
    };
    // Requests of their own: queue rows enough for a batch at every round below, on SQLite too.
    const enqueue = async (prefix: string) => {
      for (let request = 0; request < 8; request++)
        await queue.enqueueRequest(Array.from({ length: 50 }, (_, i) => event(teamId, `${prefix}-${i}`, 'step', { seq: request })));
    };
    const a = slow(databases[0]);
    const b = slow(databases[1]);
    // Rounds run one at a time by hand: each step below is a round of one worker, no clock involved.
    await enqueue('first');
    expect(await a.runOnce()).toBeGreaterThan(0);
    expect((await holders(databases[0])).size).toBe(1);
    // The newcomer finds every partition held (on SQLite the one): it holds none yet.
    expect(await b.runOnce()).toBe(0);
    // The holder's next batch sees the newcomer; its round after that gives back the newcomer's share.
    expect(await a.runOnce()).toBeGreaterThan(0);
    expect(await a.runOnce()).toBeGreaterThan(0);
    await b.runOnce();
    const shared = await holders(databases[0]);
    if (PARTITIONS === 1) expect([...shared.values()].map((list) => list.length)).toEqual([1]);
    else expect([...shared.values()].map((list) => list.length).sort()).toEqual([PARTITIONS / 2, PARTITIONS / 2]);

    // A clean leave: the other takes the partitions given back after its next batch, and drains the queue.
    await b.stop();
    await enqueue('second');
    await a.drain();
    expect([...(await holders(databases[0])).values()].map((list) => list.length)).toEqual([PARTITIONS]);
    expect(await queueEmpty(databases[0])).toBe(true);
    await a.stop();
  }, 120_000);

  it('keep each distinct id in queue order, and merge distinct ids of different partitions into one person', async () => {
    const { databases, queue, teamId } = await setUp();
    const [a, b] = [newWorker(databases[0]), newWorker(databases[1])];
    a.start();
    b.start();
    if (PARTITIONS > 1)
      await waitFor(() => holders(databases[0]), { what: 'both workers to hold partitions', until: (map) => map.size === 2 });

    const ids = Array.from({ length: 40 }, (_, i) => `order-${i}`);
    const STEPS = 20;
    const identified = pairsAcrossPartitions(teamId, 'identify', 8);
    const aliased = pairsAcrossPartitions(teamId, 'alias', 8);
    // Requests as posthog-node sends them: many distinct ids each, interleaved.
    for (let step = 0; step < STEPS; step++) {
      const request = ids.map((id) => event(teamId, id, 'step', { seq: step, $set: { last: step }, $set_once: { first: step } }));
      if (step === 5) {
        for (const [anon, user] of identified) {
          request.push(event(teamId, anon, 'seen', { $set: { anon_prop: anon } }));
          request.push(event(teamId, user, 'seen', { $set: { user_prop: user } }));
        }
        for (const [other, main] of aliased) {
          request.push(event(teamId, other, 'seen', { $set: { other_prop: other } }));
          request.push(event(teamId, main, 'seen', { $set: { main_prop: main } }));
        }
      }
      if (step === 10) {
        for (const [anon, user] of identified) request.push(event(teamId, user, '$identify', { $anon_distinct_id: anon }));
        for (const [other, main] of aliased) request.push(event(teamId, main, '$create_alias', { alias: other }));
      }
      if (step === 15) {
        for (const [anon] of identified) request.push(event(teamId, anon, 'later', { $set: { after: anon } }));
        for (const [other] of aliased) request.push(event(teamId, other, 'later', { $set: { after: other } }));
      }
      await queue.enqueueRequest(request);
    }
    await waitFor(() => queueEmpty(databases[0]), { what: 'the queue to be processed', timeoutMs: 90_000 });
    // Both workers did part of it (on SQLite, one worker holds the one partition).
    const order = await storedOrder(databases[0]);
    for (const id of ids) expect(order.get(id), id).toEqual([...Array(STEPS).keys()]);
    for (const id of ids) {
      const person = await getPersonByDistinctId(databases[0].db, teamId, id);
      expect(person?.properties).toMatchObject({ last: STEPS - 1, first: 0 });
    }
    for (const [anon, user] of identified) {
      const [x, y] = [
        await getPersonByDistinctId(databases[0].db, teamId, anon),
        await getPersonByDistinctId(databases[0].db, teamId, user),
      ];
      expect(x?.id, `${anon} and ${user} are one person`).toBe(y?.id);
      expect(y?.properties).toMatchObject({ anon_prop: anon, user_prop: user, after: anon });
    }
    for (const [other, main] of aliased) {
      const [x, y] = [
        await getPersonByDistinctId(databases[0].db, teamId, other),
        await getPersonByDistinctId(databases[0].db, teamId, main),
      ];
      expect(x?.id, `${other} and ${main} are one person`).toBe(y?.id);
      expect(y?.properties).toMatchObject({ other_prop: other, main_prop: main, after: other });
    }
    // One person row per merged pair, none left over for the merged-away distinct ids.
    const persons = await databases[0].db
      .selectFrom('persons')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    expect(Number(persons.n)).toBe(ids.length + identified.length + aliased.length);
    await a.stop();
    await b.stop();
  }, 180_000);
});
