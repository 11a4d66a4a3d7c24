import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { ConflictRetry } from '../../../src/ingestion/worker/conflict-retry.js';
import { processBatch, type BatchDeps } from '../../../src/ingestion/worker/batch.js';
import { SpikeDetector } from '../../../src/ingestion/worker/spike-detector.js';
import { DefinitionsCache } from '../../../src/ingestion/worker/definitions-step.js';
import { MAX_PROCESSING_ATTEMPTS } from '../../../src/ingestion/worker/worker.js';
import { readQueueBatch } from '../../../src/ingestion/queue-records.js';
import { ConcurrentWriteConflict } from '../../../src/platform/db/write-conflicts.js';
import { getPersonByDistinctId, insertPerson } from '../../../src/persons/store.js';
import { toJson } from '../../../src/platform/db/values.js';
import { BACKEND, TEST_DATABASE_URL } from '../../helpers/backend.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { queueRowMaker } from './helpers.js';

/**
 * A batch run again after losing a race with another worker's batch reads its persons locked
 * (BatchDeps.lockPersons): the persons it will write are its own until it commits, so another
 * worker that keeps updating them waits for it rather than making it lose again.
 */
const servers: TestServer[] = [];
const handles: Database[] = [];
afterAll(async () => {
  for (const h of handles) await h.close();
  for (const s of servers) await s.close();
});

const queueRow = queueRowMaker('2026-03-01T00:00:00.000Z');
const row = (teamId: number, distinctId: string, properties: Record<string, unknown>) => queueRow(teamId, distinctId, 'page', properties);

function deps(lockPersons: boolean): BatchDeps {
  return {
    spikes: new SpikeDetector(0),
    groupTypes: new Map(),
    definitions: new DefinitionsCache(),
    warnHot: () => undefined,
    lockPersons,
  };
}

describe('a batch run again after a conflict', () => {
  it('tells each attempt which retry it is', async () => {
    const seen: number[] = [];
    const retry = new ConflictRetry(pino({ level: 'silent' }), { forgetStale: () => undefined, pause: async () => undefined });
    const result = await retry.run(async (attempt) => {
      seen.push(attempt);
      if (attempt < 2) throw new ConcurrentWriteConflict('lost a race');
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual([0, 1, 2]);
    expect(retry.retried).toBe(2);
  });

  it('holds its persons locked from its first read, and writes what it read locked', async () => {
    const server = await startTestServer({ INGESTION_WORKER: 'off' });
    servers.push(server);
    const { database, ingestionQueue } = server.running.ctx;
    const teamId = server.bootstrap.team.id;
    // Another connection, as another worker process has.
    let other = database;
    if (BACKEND === 'postgres') {
      other = await openDatabase({ databaseUrl: TEST_DATABASE_URL, pgSchema: server.storage.schema! });
      handles.push(other);
    }
    const person = await insertPerson(
      database.db,
      {
        uuid: '00000000-0000-4000-8000-00000000c001',
        teamId,
        properties: { plan: 'free' },
        isIdentified: true,
        createdAt: new Date().toISOString(),
      },
      ['held', 'held-too'],
    );

    /** Whether another connection can lock the person row right now (without waiting). */
    const lockableElsewhere = async () => {
      if (BACKEND !== 'postgres') return true; // one writer: nothing to lock against
      try {
        await other.db.transaction().execute(async (trx) => {
          await sql`select id from persons where id = ${person.id} for update nowait`.execute(trx);
        });
        return true;
      } catch (error) {
        expect((error as { code?: string }).code).toBe('55P03'); // lock_not_available
        return false;
      }
    };

    // The events name the person without changing it: only a locked read can hold its row.
    const runBatch = async (lockPersons: boolean) => {
      await ingestionQueue.enqueue([row(teamId, 'held', {}), row(teamId, 'held-too', {})]);
      const { records } = await readQueueBatch(database.db, 'realtime', 100, MAX_PROCESSING_ATTEMPTS);
      let lockable: boolean | undefined;
      const outcome = await database.db.transaction().execute((trx) =>
        processBatch(trx, 'realtime', records, deps(lockPersons), undefined, async (inner, rows) => {
          lockable = await lockableElsewhere();
          const ids = rows.map((r) => Number(r.id));
          const deleted = await inner.deleteFrom('ingestion_queue').where('id', 'in', ids).executeTakeFirst();
          return { changed: Number(deleted.numDeletedRows), expected: ids.length };
        }),
      );
      outcome.committed();
      return lockable;
    };

    expect(await runBatch(false)).toBe(true);
    expect(await runBatch(true)).toBe(BACKEND !== 'postgres');
    expect(await lockableElsewhere()).toBe(true); // released with the commit

    // A locked read sees the person as committed by another writer, and the batch builds on it.
    await other.db
      .updateTable('persons')
      .set({ properties: toJson({ plan: 'pro' }), version: 7 })
      .where('id', '=', person.id)
      .execute();
    await ingestionQueue.enqueue([row(teamId, 'held', { $set: { seen: true } })]);
    const { records } = await readQueueBatch(database.db, 'realtime', 100, MAX_PROCESSING_ATTEMPTS);
    const outcome = await database.db.transaction().execute((trx) => processBatch(trx, 'realtime', records, deps(true)));
    outcome.committed();
    const stored = await getPersonByDistinctId(database.db, teamId, 'held');
    expect(stored?.properties).toEqual({ plan: 'pro', seen: true });
    expect(stored?.version).toBe(8);
  });
});
