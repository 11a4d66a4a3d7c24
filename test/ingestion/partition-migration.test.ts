/**
 * Migration 025: the queue gets its partition column; rows queued before it on PostgreSQL get the
 * partition of the distinct id they name (SQLite's queue is one partition: 0).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { partitionCount, queuePartition } from '../../src/ingestion/core/partition.js';
import { BACKEND, freshStorage, type TestStorage } from '../helpers/backend.js';
import { databaseBefore } from '../helpers/migrated.js';

let storage: TestStorage | undefined;
let database: Database | undefined;
afterAll(async () => {
  await database?.close();
  await storage?.dispose();
});

describe('migration 025-ingestion-partitions', () => {
  it('gives rows queued before it their partition', async () => {
    storage = await freshStorage();
    const before = await databaseBefore(storage, '025-ingestion-partitions');
    database = before.database;
    const { db, types, step: at } = before;
    // 2500 rows: more than one read of the migration's.
    const queued = Array.from({ length: 2500 }, (_, i) => ({
      team_id: 1 + (i % 3),
      lane: i % 2 ? 'realtime' : 'historical',
      distinct_id: `before-${i}`,
      payload: '{}',
      received_at: new Date().toISOString(),
    }));
    for (let i = 0; i < queued.length; i += 500)
      await db
        .insertInto('ingestion_queue')
        .values(queued.slice(i, i + 500))
        .execute();
    await migrations[at]!.up(db, types);
    const rows = (await db.selectFrom('ingestion_queue').select(['team_id', 'distinct_id', 'partition']).orderBy('id').execute()) as Array<{
      team_id: number;
      distinct_id: string;
      partition: number;
    }>;
    expect(rows).toHaveLength(queued.length);
    const partitions = partitionCount(BACKEND);
    for (const row of rows) expect(row.partition).toBe(queuePartition(Number(row.team_id), row.distinct_id, partitions));
    expect(new Set(rows.map((row) => row.partition)).size).toBe(partitions);
  }, 120_000);
});
