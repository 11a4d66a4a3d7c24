import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { columnTypes } from '../../src/platform/db/migrations/column-types.js';
import { migrateToLatest, migrations } from '../../src/platform/db/migrations/index.js';
import { listDeliveries } from '../../src/subscriptions/deliveries-store.js';
import { TEST_DATABASE_URL, freshStorage, type TestStorage } from '../helpers/backend.js';

/**
 * Migration 017 on a database whose `subscription_deliveries` holds a row per attempt, as before
 * it: the attempts at one occurrence fold into one delivery that lists them.
 */
let storage: TestStorage;
let database: Database;

beforeAll(async () => {
  storage = await freshStorage();
  database = await openDatabase({
    databaseUrl: TEST_DATABASE_URL,
    sqliteFile: path.join(storage.dataDir, 'hoglet.db'),
    ...(storage.schema ? { pgSchema: storage.schema } : {}),
  });
});
afterAll(async () => {
  await database?.close();
  await storage?.dispose();
});

describe('017-subscription-delivery-attempts', () => {
  it('folds the old per-attempt rows into deliveries with their attempts', async () => {
    const index = migrations.findIndex((m) => m.name === '017-subscription-delivery-attempts');
    const types = columnTypes(database.dialect);
    await database.db.transaction().execute(async (trx) => {
      const db = trx as unknown as Kysely<any>;
      await db.schema
        .createTable('hoglet_migrations')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('executed_at', 'text', (c) => c.notNull())
        .execute();
      for (const migration of migrations.slice(0, index)) {
        await migration.up(db, types);
        await db.insertInto('hoglet_migrations').values({ name: migration.name, executed_at: new Date().toISOString() }).execute();
      }
    });
    const db = database.db as unknown as Kysely<any>;
    const { id } = await db
      .insertInto('subscriptions')
      .values({
        team_id: 7,
        insight_id: 1,
        target_type: 'email',
        target_value: 'a@example.com',
        frequency: 'daily',
        interval: 1,
        start_date: '2030-01-01T08:00:00.000Z',
        created_at: '2029-12-01T00:00:00.000Z',
        attempts: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const day = (n: number) => `2030-01-0${n}T08:00:00.000Z`;
    const old: Array<[kind: string, occurrence: string | null, status: string, attempt: number, error: string | null]> = [
      ['invite', null, 'sent', 1, null],
      ['scheduled', day(1), 'failed', 1, 'down'],
      ['scheduled', day(1), 'failed', 2, 'still down'],
      ['scheduled', day(1), 'sent', 3, null],
      ['scheduled', day(2), 'sent', 1, null],
      ['scheduled', day(3), 'failed', 1, 'nope'],
      ['scheduled', day(3), 'abandoned', 2, 'nope again'],
      ['scheduled', day(4), 'skipped', 1, null],
      ['scheduled', day(5), 'failed', 1, 'waiting'],
    ];
    let minute = 0;
    for (const [kind, occurrence, status, attempt, error] of old) {
      await db
        .insertInto('subscription_deliveries')
        .values({
          subscription_id: id,
          team_id: 7,
          kind,
          occurrence,
          status,
          attempt,
          skipped_occurrences: 0,
          error,
          created_at: new Date(Date.UTC(2030, 0, 6, 0, minute++)).toISOString(),
        })
        .execute();
    }

    expect(await migrateToLatest(database)).toContain('017-subscription-delivery-attempts');

    const { count, deliveries } = await listDeliveries(database.db, { subscriptionId: Number(id) }, { limit: 100, offset: 0 });
    expect(count).toBe(6);
    const at = (m: number) => new Date(Date.UTC(2030, 0, 6, 0, m)).toISOString();
    expect(
      deliveries.reverse().map((d) => ({
        kind: d.kind,
        occurrence: d.occurrence,
        status: d.status,
        attempt: d.attempt,
        error: d.error,
        lastAttemptAt: d.lastAttemptAt,
        deliveredAt: d.deliveredAt,
        target: d.target.type,
        attempts: d.attempts.map((a) => [a.attempt, a.status, a.error]),
      })),
    ).toEqual([
      {
        kind: 'invite',
        occurrence: null,
        status: 'delivered',
        attempt: 1,
        error: null,
        lastAttemptAt: at(0),
        deliveredAt: at(0),
        target: null,
        attempts: [[1, 'delivered', null]],
      },
      {
        kind: 'scheduled',
        occurrence: day(1),
        status: 'delivered',
        attempt: 3,
        error: null,
        lastAttemptAt: at(3),
        deliveredAt: at(3),
        target: null,
        attempts: [
          [1, 'failed', 'down'],
          [2, 'failed', 'still down'],
          [3, 'delivered', null],
        ],
      },
      {
        kind: 'scheduled',
        occurrence: day(2),
        status: 'delivered',
        attempt: 1,
        error: null,
        lastAttemptAt: at(4),
        deliveredAt: at(4),
        target: null,
        attempts: [[1, 'delivered', null]],
      },
      {
        kind: 'scheduled',
        occurrence: day(3),
        status: 'failed',
        attempt: 2,
        error: 'nope again',
        lastAttemptAt: at(6),
        deliveredAt: null,
        target: null,
        attempts: [
          [1, 'failed', 'nope'],
          [2, 'failed', 'nope again'],
        ],
      },
      {
        kind: 'scheduled',
        occurrence: day(4),
        status: 'skipped',
        attempt: 1,
        error: null,
        lastAttemptAt: at(7),
        deliveredAt: null,
        target: null,
        attempts: [[1, 'skipped', null]],
      },
      {
        kind: 'scheduled',
        occurrence: day(5),
        status: 'retrying',
        attempt: 1,
        error: 'waiting',
        lastAttemptAt: at(8),
        deliveredAt: null,
        target: null,
        attempts: [[1, 'failed', 'waiting']],
      },
    ]);
  });
});
