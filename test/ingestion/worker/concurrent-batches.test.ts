import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/platform/db/database.js';
import {
  ConcurrentWriteConflict,
  isConcurrentWriteConflict,
  SHARED_FOREIGN_KEYS,
  SHARED_UNIQUE_KEYS,
} from '../../../src/platform/db/write-conflicts.js';
import { ConflictRetry } from '../../../src/ingestion/worker/conflict-retry.js';
import { processBatch, type BatchDeps } from '../../../src/ingestion/worker/batch.js';
import { SpikeDetector } from '../../../src/ingestion/worker/spike-detector.js';
import { DefinitionsCache } from '../../../src/ingestion/worker/definitions-step.js';
import { IngestionWorker, MAX_PROCESSING_ATTEMPTS } from '../../../src/ingestion/worker/worker.js';
import { readQueueBatch, type QueueRecord } from '../../../src/ingestion/queue-records.js';
import type { QueueRow } from '../../../src/ingestion/queue.js';
import { getPersonByDistinctId, insertPerson } from '../../../src/persons/store.js';
import { lockPersonsByDistinctIds } from '../../../src/persons/batch-store.js';
import { BACKEND } from '../../helpers/backend.js';
import { waitFor } from '../../helpers/wait.js';
import { queueRowMaker, serverPerTest } from './helpers.js';

/**
 * Several workers' batches run at once on PostgreSQL (each on its own partitions of the queue):
 * a merge's two distinct ids may sit with two workers, and groups, group types and definitions are
 * shared by all. Batches must neither deadlock for good, nor lose an update, nor fail on a key
 * another batch inserted first: each such race rolls the batch back and runs it again whole
 * (conflict-retry.ts). On SQLite (one writer) the same scenarios run one batch after another and
 * must give the same results, with no retry.
 */
const setUp = serverPerTest({ secondHandle: true });

/** A pino logger whose lines the test reads. */
function capturedLog() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'warn' }, stream), lines };
}

const row = queueRowMaker('2026-03-01T00:00:00.000Z');

/** Properties as compared: which event created the person depends on the order, by design. */
function comparable(properties: Record<string, unknown> | undefined) {
  if (!properties) return undefined;
  const { $creator_event_uuid: _creator, ...rest } = properties;
  return rest;
}

/** What one worker keeps between its batches (no person cache: it is not trusted beside other workers). */
function workerState(log: pino.Logger) {
  const deps: BatchDeps = {
    spikes: new SpikeDetector(0),
    groupTypes: new Map(),
    definitions: new DefinitionsCache(),
    warnHot: () => undefined,
  };
  const retry = new ConflictRetry(log, {
    forgetStale: () => {
      deps.groupTypes.clear();
      deps.definitions!.clear();
    },
  });
  return { deps, retry };
}

/** One worker's batches, in order, each in a transaction of its own, retried whole on a conflict. */
async function runBatch(database: Database, records: QueueRecord[], state: ReturnType<typeof workerState>): Promise<void> {
  const outcome = await state.retry.run(() =>
    database.db.transaction().execute((trx) => processBatch(trx, 'realtime', records, state.deps)),
  );
  outcome.committed();
}

function batchesOf<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

describe('concurrent batches', () => {
  it('tells a race with another writer from other failures', async () => {
    const { database, teamId } = await setUp();
    const { db } = database;
    const person = await insertPerson(
      db,
      { uuid: '00000000-0000-4000-8000-00000000a001', teamId, properties: {}, isIdentified: false, createdAt: new Date().toISOString() },
      ['taken'],
    );
    const failure = (work: Promise<unknown>) =>
      work.then(
        () => undefined,
        (error: unknown) => error,
      );
    const duplicateId = await failure(
      db.insertInto('person_distinct_ids').values({ team_id: teamId, distinct_id: 'taken', person_id: person.id }).execute(),
    );
    const duplicateUuid = await failure(
      db
        .insertInto('persons')
        .values({ uuid: person.uuid, team_id: teamId, properties: '{}', is_identified: false, created_at: person.createdAt, version: 0 })
        .execute(),
    );
    const duplicateLease = await failure(
      (async () => {
        await db.insertInto('worker_leases').values({ name: 'dup', owner: 'a', expires_at: new Date().toISOString() }).execute();
        await db.insertInto('worker_leases').values({ name: 'dup', owner: 'b', expires_at: new Date().toISOString() }).execute();
      })(),
    );
    expect(duplicateId).toBeInstanceOf(Error);
    expect(duplicateUuid).toBeInstanceOf(Error);
    expect(duplicateLease).toBeInstanceOf(Error);
    // A key that no two batches share is never a race; SQLite (one writer) has none at all.
    expect(isConcurrentWriteConflict(duplicateLease)).toBe(false);
    expect(isConcurrentWriteConflict(duplicateId)).toBe(BACKEND === 'postgres');
    expect(isConcurrentWriteConflict(duplicateUuid)).toBe(BACKEND === 'postgres');
    expect(isConcurrentWriteConflict(new ConcurrentWriteConflict('a person'))).toBe(true);
    expect(isConcurrentWriteConflict(new Error('deadlock', { cause: { code: '40P01' } }))).toBe(true);
    expect(isConcurrentWriteConflict({ code: '40001' })).toBe(true);
    expect(isConcurrentWriteConflict({ code: '23505', constraint: 'teams_pkey' })).toBe(false);
    expect(isConcurrentWriteConflict(new Error('boom'))).toBe(false);
    if (BACKEND === 'postgres') {
      // Every key the predicate names is one the schema has (a renamed key would never match).
      const names = await sql<{ conname: string }>`select conname from pg_constraint c
        join pg_namespace s on s.oid = c.connamespace where s.nspname = current_schema()`.execute(db);
      const present = new Set(names.rows.map((r) => r.conname));
      for (const key of [...SHARED_UNIQUE_KEYS, ...SHARED_FOREIGN_KEYS]) expect(present, key).toContain(key);
    }
  });

  it('retries a transaction that deadlocked, and counts and logs it', async () => {
    const { database, second } = await setUp();
    const { log, lines } = capturedLog();
    const retry = new ConflictRetry(log, { forgetStale: () => undefined });
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    await database.db
      .insertInto('worker_leases')
      .values([
        { name: 'row-1', owner: '0', expires_at: expires },
        { name: 'row-2', owner: '0', expires_at: expires },
      ])
      .execute();
    const bump = (db: Database['db'], name: string) =>
      db
        .updateTable('worker_leases')
        .set({ owner: sql`cast(cast(owner as integer) + 1 as text)` })
        .where('name', '=', name)
        .execute();
    const holding = new Set<string>();
    let attempts = 0;
    // Each locks its first row, waits until the other holds its own, then takes the other's: a
    // deadlock, on its first attempt only. PostgreSQL fails one of the two (40P01); that one is
    // retried, waits for the other to commit, and goes through.
    const crossing = (db: Database['db'], first: string, then: string) =>
      retry.run(() =>
        db.transaction().execute(async (trx) => {
          attempts++;
          await bump(trx, first);
          if (BACKEND === 'postgres' && attempts <= 2) {
            holding.add(first);
            await waitFor(() => holding.size === 2, { what: 'both transactions to hold their first row' });
          }
          await bump(trx, then);
        }),
      );
    if (BACKEND === 'postgres') {
      await Promise.all([crossing(database.db, 'row-1', 'row-2'), crossing(second.db, 'row-2', 'row-1')]);
      expect(retry.retried).toBe(1);
      const logged = lines.filter((l) => l.msg === 'batch lost a race with a concurrent writer; retrying it');
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ code: '40P01', retry: 1 });
    } else {
      // One writer: the two run one after the other, and nothing is retried.
      await crossing(database.db, 'row-1', 'row-2');
      await crossing(second.db, 'row-2', 'row-1');
      expect(retry.retried).toBe(0);
      expect(lines).toHaveLength(0);
    }
    const owners = await database.db
      .selectFrom('worker_leases')
      .select(['name', 'owner'])
      .where('name', 'like', 'row-%')
      .orderBy('name')
      .execute();
    // Both transactions' writes, each once: the rolled-back attempt left nothing.
    expect(owners).toEqual([
      { name: 'row-1', owner: '2' },
      { name: 'row-2', owner: '2' },
    ]);
  });

  it('retries a worker batch whose distinct id got a person from another transaction meanwhile', async () => {
    const { database, ingestionQueue, teamId, server } = await setUp();
    const { log, lines } = capturedLog();
    const worker = new IngestionWorker(database, log, { analytics: server.running.ctx.analytics, prepareAhead: false });
    await ingestionQueue.enqueue([row(teamId, 'contested', 'page', { $set: { plan: 'pro' } })]);
    const created = {
      uuid: '00000000-0000-4000-8000-00000000b001',
      teamId,
      properties: { from: 'merge' },
      isIdentified: true,
      createdAt: new Date().toISOString(),
    };
    if (BACKEND === 'postgres') {
      // Another worker's merge gives `contested` a person, uncommitted while this worker's batch
      // creates one for it too: the batch's distinct id insert waits, then fails on the key.
      let drained: Promise<void> | undefined;
      await database.db.transaction().execute(async (trx) => {
        await insertPerson(trx, created, ['contested']);
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        drained = worker.drain();
        const blocked = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`;
        await waitFor(async () => (await blocked.execute(database.db)).rows[0]!.n, {
          what: "the worker's batch to wait for this transaction",
          until: (count) => count > 0,
        });
      });
      await drained;
      expect(worker.batchesRetriedOnConflict).toBe(1);
      expect(lines.find((l) => l.msg === 'batch lost a race with a concurrent writer; retrying it')).toMatchObject({ code: '23505' });
    } else {
      await insertPerson(database.db, created, ['contested']);
      await worker.drain();
      expect(worker.batchesRetriedOnConflict).toBe(0);
    }
    await worker.stop();
    // The retry read the person the other transaction committed, and updated it.
    const person = await getPersonByDistinctId(database.db, teamId, 'contested');
    expect(person?.uuid).toBe(created.uuid);
    expect(person?.properties).toEqual({ from: 'merge', plan: 'pro' });
    expect(lines.filter((l) => l.msg === 'batch failed; processing its events one by one')).toHaveLength(0);
    const stored = await database.db.selectFrom('event_uuids').select('uuid').where('team_id', '=', teamId).execute();
    expect(stored).toHaveLength(1);
  });

  it('has a locked batch wait for another locked batch that creates the same distinct id, then take its person', async () => {
    const { database, ingestionQueue, teamId } = await setUp();
    const { log, lines } = capturedLog();
    const state = workerState(log);
    await ingestionQueue.enqueue([row(teamId, 'contested', 'page', { $set: { plan: 'pro' } })]);
    const records = (await readQueueBatch(database.db, 'realtime', 10, MAX_PROCESSING_ATTEMPTS)).records;
    const created = {
      uuid: '00000000-0000-4000-8000-00000000b002',
      teamId,
      properties: { from: 'other worker' },
      isIdentified: true,
      createdAt: new Date().toISOString(),
    };
    // Beside other workers a batch reads its persons locked (BatchDeps.lockPersons), as this one does.
    const lockedBatch = () =>
      state.retry.run(() =>
        database.db.transaction().execute((trx) => processBatch(trx, 'realtime', records, { ...state.deps, lockPersons: true })),
      );
    if (BACKEND === 'postgres') {
      // Another worker's batch has read `contested` locked, found no person and created one,
      // uncommitted: this batch's locked read waits for it instead of creating a second person.
      let batch: ReturnType<typeof lockedBatch> | undefined;
      await database.db.transaction().execute(async (trx) => {
        expect((await lockPersonsByDistinctIds(trx, teamId, ['contested'])).size).toBe(0);
        await insertPerson(trx, created, ['contested']);
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        batch = lockedBatch();
        const blocked = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`;
        await waitFor(async () => (await blocked.execute(database.db)).rows[0]!.n, {
          what: 'the batch to wait for the other locked batch',
          until: (count) => count > 0,
        });
      });
      (await batch!).committed();
    } else {
      await insertPerson(database.db, created, ['contested']);
      (await lockedBatch()).committed();
    }
    expect(state.retry.retried).toBe(0);
    expect(lines.filter((l) => l.msg === 'batch lost a race with a concurrent writer; retrying it')).toHaveLength(0);
    const person = await getPersonByDistinctId(database.db, teamId, 'contested');
    expect(person?.uuid).toBe(created.uuid);
    expect(person?.properties).toEqual({ from: 'other worker', plan: 'pro' });
  });

  it('retries a worker batch whose group another transaction updated meanwhile, keeping both updates', async () => {
    const { database, ingestionQueue, teamId, server } = await setUp();
    const { log, lines } = capturedLog();
    const worker = new IngestionWorker(database, log, { analytics: server.running.ctx.analytics, prepareAhead: false });
    const identify = (set: Record<string, unknown>) =>
      row(teamId, 'member', '$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: set });
    await ingestionQueue.enqueue([identify({ first: 1 })]);
    await worker.drain();
    await ingestionQueue.enqueue([identify({ second: 2 })]);
    // Another worker's `$groupidentify` of the same group, as a plain write of its row.
    const otherUpdate = (db: Database['db']) =>
      db
        .updateTable('groups')
        .set({ group_properties: JSON.stringify({ first: 1, other: 3 }), version: sql`version + 1` })
        .where('team_id', '=', teamId)
        .where('group_key', '=', 'acme')
        .execute();
    if (BACKEND === 'postgres') {
      let drained: Promise<void> | undefined;
      await database.db.transaction().execute(async (trx) => {
        await otherUpdate(trx);
        const { pid } = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!;
        // The worker's batch read the group as it was, and its update waits for this transaction.
        drained = worker.drain();
        const blocked = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`;
        await waitFor(async () => (await blocked.execute(database.db)).rows[0]!.n, {
          what: "the worker's batch to wait for this transaction",
          until: (count) => count > 0,
        });
      });
      await drained;
      expect(worker.batchesRetriedOnConflict).toBe(1);
      expect(lines.find((l) => l.msg === 'batch lost a race with a concurrent writer; retrying it')).toMatchObject({
        code: 'version_conflict',
      });
    } else {
      await otherUpdate(database.db);
      await worker.drain();
      expect(worker.batchesRetriedOnConflict).toBe(0);
    }
    await worker.stop();
    const group = await database.db
      .selectFrom('groups')
      .select(['group_properties', 'version'])
      .where('team_id', '=', teamId)
      .where('group_key', '=', 'acme')
      .executeTakeFirstOrThrow();
    const properties: unknown = typeof group.group_properties === 'string' ? JSON.parse(group.group_properties) : group.group_properties;
    // Neither update lost: the other transaction's and the batch's, in that order.
    expect(properties).toEqual({ first: 1, other: 3, second: 2 });
    expect(Number(group.version)).toBe(2);
  });

  it('keeps crossing merges, shared groups and definitions right when two workers run at once', async () => {
    const { database, second, ingestionQueue, teamId } = await setUp();
    const { log, lines } = capturedLog();
    const workers = [workerState(log), workerState(log)];
    const PAIRS = 24;
    const GROUPS = 6;
    const DEFINITIONS = 8;
    const ROUNDS = 3;
    const enqueued: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Worker 0 has the `a` distinct ids, worker 1 the `b` ones (as two partitions would).
      const sides: QueueRow[][] = [[], []];
      for (const [side, me] of ['a', 'b'].entries()) {
        const list = sides[side]!;
        // Each side brings a new group type first (round 0: both take an index at once), then both.
        const ownType = side === 0 ? 'company' : 'org';
        for (let j = 0; j < GROUPS; j++) {
          const key = `r${round}-g${j}`;
          list.push(row(teamId, `r${round}-${me}${j}`, 'page', { $groups: { [ownType]: key } }));
          list.push(
            row(teamId, `r${round}-${me}${j}`, '$groupidentify', {
              $group_type: 'company',
              $group_key: key,
              $group_set: { [`${me}_set`]: j },
            }),
          );
        }
        // In phases, both sides in step: persons made on both sides, then each pair merged by one
        // side while the other updates its person, then both update the merged person.
        for (const phase of ['x', 'y', 'z']) {
          for (let i = 0; i < PAIRS; i++) {
            const mine = `r${round}-${me}${i}`;
            const theirs = `r${round}-${me === 'a' ? 'b' : 'a'}${i}`;
            const set = { [`${me}_${phase}`]: i };
            // Both orders: even pairs are merged by the `a` side, odd ones by the `b` side.
            if (phase === 'y' && (i % 2 === 0) === (me === 'a')) {
              list.push(row(teamId, mine, '$identify', { $anon_distinct_id: theirs, $set: { ...set, identified: true } }));
            } else list.push(row(teamId, mine, 'page', { $set: set }));
          }
          // Both sides update the same existing groups at once.
          if (phase === 'x') {
            for (let j = 0; j < GROUPS; j++) {
              const properties = { $group_type: 'company', $group_key: `r${round}-g${j}`, $group_set: { [`${me}_later`]: j } };
              list.push(row(teamId, `r${round}-${me}${j}`, '$groupidentify', properties));
            }
          }
        }
        // The same definitions from both sides, in opposite orders.
        for (let k = 0; k < DEFINITIONS; k++) {
          const d = side === 0 ? k : DEFINITIONS - 1 - k;
          list.push(row(teamId, `r${round}-${me}0`, `r${round}-def-${d}`, { [`r${round}-p-${d}`]: d, [`r${round}-q-${d}`]: 'x' }));
        }
      }
      for (const list of sides) for (const r of list) enqueued.push(r.payload.uuid);
      await ingestionQueue.enqueue([...sides[0]!, ...sides[1]!]);
      const records = (await readQueueBatch(database.db, 'realtime', 100_000, MAX_PROCESSING_ATTEMPTS)).records;
      expect(records).toHaveLength(sides[0]!.length + sides[1]!.length);
      const split: QueueRecord[][] = [[], []];
      for (const record of records) {
        const { distinct_id } = JSON.parse(record.payload) as { distinct_id: string };
        split[distinct_id.startsWith(`r${round}-a`) ? 0 : 1]!.push(record);
      }
      const batches = split.map((list) => batchesOf(list, 8));
      if (BACKEND === 'postgres') {
        const run = async (w: number, db: Database) => {
          for (const batch of batches[w]!) await runBatch(db, batch, workers[w]!);
        };
        await Promise.all([run(0, database), run(1, second)]);
      } else {
        // One writer: the same batches, one after the other, in turns.
        for (let b = 0; b < Math.max(batches[0]!.length, batches[1]!.length); b++) {
          for (const w of [0, 1]) if (batches[w]![b]) await runBatch(database, batches[w]![b]!, workers[w]!);
        }
      }

      for (let i = 0; i < PAIRS; i++) {
        const a = await getPersonByDistinctId(database.db, teamId, `r${round}-a${i}`);
        const b = await getPersonByDistinctId(database.db, teamId, `r${round}-b${i}`);
        // One person holds both distinct ids, with what each side set (disjoint keys: any order gives this).
        expect(a?.id, `pair ${i} of round ${round}`).toBe(b?.id);
        expect(a?.isIdentified).toBe(true);
        expect(comparable(a?.properties), `pair ${i} of round ${round}`).toEqual({
          a_x: i,
          a_y: i,
          a_z: i,
          b_x: i,
          b_y: i,
          b_z: i,
          identified: true,
        });
      }
      const companyIndex = (
        await database.db
          .selectFrom('group_type_mappings')
          .select('group_type_index')
          .where('team_id', '=', teamId)
          .where('group_type', '=', 'company')
          .executeTakeFirstOrThrow()
      ).group_type_index;
      const companies = await database.db
        .selectFrom('groups')
        .select(['group_key', 'group_properties'])
        .where('team_id', '=', teamId)
        .where('group_type_index', '=', Number(companyIndex))
        .where('group_key', 'like', `r${round}-g%`)
        .orderBy('group_key')
        .execute();
      expect(companies).toHaveLength(GROUPS);
      for (const group of companies) {
        const j = Number(group.group_key.slice(`r${round}-g`.length));
        const properties = typeof group.group_properties === 'string' ? JSON.parse(group.group_properties) : group.group_properties;
        // Neither side's `$group_set` was lost to the other's.
        expect(properties, group.group_key).toEqual({ a_set: j, b_set: j, a_later: j, b_later: j });
      }
      const definitions = await database.db
        .selectFrom('event_definitions')
        .select('name')
        .where('team_id', '=', teamId)
        .where('name', 'like', `r${round}-def-%`)
        .execute();
      expect(definitions).toHaveLength(DEFINITIONS);
      const properties = await database.db
        .selectFrom('property_definitions')
        .select('name')
        .where('team_id', '=', teamId)
        .where('name', 'like', `r${round}-%`)
        .execute();
      expect(properties).toHaveLength(DEFINITIONS * 2);
    }

    // Each group type got an index of its own, whichever side took it first.
    const types = await database.db
      .selectFrom('group_type_mappings')
      .select(['group_type', 'group_type_index'])
      .where('team_id', '=', teamId)
      .execute();
    expect(types.map((t) => t.group_type).sort()).toEqual(['company', 'org']);
    expect(new Set(types.map((t) => Number(t.group_type_index)))).toEqual(new Set([0, 1]));
    const warnings = await database.db.selectFrom('ingestion_warnings').select('type').where('team_id', '=', teamId).execute();
    expect(warnings.filter((w) => w.type === 'group_type_limit_reached')).toEqual([]);

    // Every event stored exactly once: one uuid row each, and one line each in the outbox.
    const uuids = await database.db.selectFrom('event_uuids').select('uuid').where('team_id', '=', teamId).execute();
    expect(uuids.map((u) => u.uuid).sort()).toEqual([...enqueued].sort());
    const outbox = await database.db.selectFrom('analytics_outbox').select('events').execute();
    const lines_ = outbox.flatMap((o) => (o.events ? o.events.split('\n') : [])).map((l) => (JSON.parse(l) as { uuid: string }).uuid);
    expect(lines_.sort()).toEqual([...enqueued].sort());
    expect(await database.db.selectFrom('ingestion_queue').select('id').execute()).toEqual([]);

    const retries = workers[0]!.retry.retried + workers[1]!.retry.retried;
    // Every retry was logged with its cause, and every one succeeded (no error escaped above).
    expect(lines.filter((l) => l.msg === 'batch lost a race with a concurrent writer; retrying it')).toHaveLength(retries);
    if (BACKEND === 'sqlite') expect(retries).toBe(0);
    if (process.env.TEST_REPORT_CONFLICTS)
      console.log(
        `concurrent batches: ${retries} retries`,
        lines.map((l) => l.code),
      );
  }, 120_000);
});
