/**
 * The worker's dedupe remembers a stored event's uuid for INGESTION_DEDUPE_DAYS (decision 0012):
 * the pruner deletes exactly the rows stored before the window; a copy resent within it is
 * dropped; one resent after its uuid was pruned is stored again and remembered anew. Real
 * storage, both backends; the days are set in the rows and the pruner's clock, never waited for.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { EventUuidsPruner } from '../../src/events/event-uuids-pruner.js';
import { dedupeDay } from '../../src/events/event-uuids-store.js';
import { acquireLease, releaseLease } from '../../src/platform/lease.js';
import type { Database } from '../../src/platform/db/database.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import { useTestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';
import { waitFor } from '../helpers/wait.js';
import { databaseBefore } from '../helpers/migrated.js';

// The server's own pruner is off (a window of 0): the tests drive theirs, with their clock.
const server = useTestServer({ INGESTION_DEDUPE_DAYS: '0' });
const log = pino({ level: 'silent' });
const database = () => server.running.ctx.database;
const DAY_MS = 86_400_000;
const WINDOW = 7;

const pruner = (options: { now?: number; days?: number } = {}) =>
  new EventUuidsPruner(database(), log, { days: options.days ?? WINDOW, batchSize: 3, now: () => options.now ?? Date.now() });

async function send(uuid: string, distinctId: string): Promise<void> {
  const res = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api_key: server.token,
      batch: [{ uuid, event: 'resent', distinct_id: distinctId, properties: {}, timestamp: new Date().toISOString() }],
    }),
  });
  expect(res.status).toBe(200);
  await server.settle();
}

async function copiesOf(uuid: string): Promise<number> {
  return (await storedEvents(server.running.ctx.analytics, server.bootstrap.team.id)).filter((e) => e.uuid === uuid).length;
}

async function storedDayOf(uuid: string): Promise<number | undefined> {
  const row = await database()
    .db.selectFrom('event_uuids')
    .select('stored_day')
    .where('team_id', '=', server.bootstrap.team.id)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.stored_day);
}

async function setStoredDay(uuid: string, day: number): Promise<void> {
  await database().db.updateTable('event_uuids').set({ stored_day: day }).where('uuid', '=', uuid).execute();
}

describe('the event uuid dedupe window', () => {
  it('prunes exactly the rows stored before the window, of every environment, a batch at a time', async () => {
    const teamId = server.bootstrap.team.id;
    const now = Date.now();
    const today = dedupeDay(now);
    // Ten rows a day from today back to 10 days ago, in this environment and another one.
    const rows = Array.from({ length: 110 }, (_, i) => ({
      team_id: i % 2 ? teamId : teamId + 1000,
      uuid: randomUUID(),
      stored_day: today - (i % 11),
    }));
    await database().db.insertInto('event_uuids').values(rows).execute();
    const expired = rows.filter((r) => r.stored_day < today - WINDOW);
    expect(expired).toHaveLength(30); // 8, 9 and 10 days ago

    expect(await pruner({ now }).prune()).toBe(expired.length);

    const left = await database()
      .db.selectFrom('event_uuids')
      .select('uuid')
      .where(
        'uuid',
        'in',
        rows.map((r) => r.uuid),
      )
      .execute();
    const kept = rows.filter((r) => r.stored_day >= today - WINDOW).map((r) => r.uuid);
    expect(left.map((r) => r.uuid).sort()).toEqual(kept.sort());
    // Nothing left to prune: a second round deletes nothing.
    expect(await pruner({ now }).prune()).toBe(0);
  });

  it('drops a copy resent within the window', async () => {
    const uuid = randomUUID();
    await send(uuid, 'within');
    expect(await copiesOf(uuid)).toBe(1);
    // Stored on the window's first day: the oldest a uuid is still remembered.
    await setStoredDay(uuid, dedupeDay(Date.now()) - WINDOW);
    await pruner().prune();
    expect(await storedDayOf(uuid)).toBe(dedupeDay(Date.now()) - WINDOW);

    await send(uuid, 'within');
    expect(await copiesOf(uuid)).toBe(1);
  });

  it('stores again a copy resent after its uuid left the window, and remembers it anew', async () => {
    const uuid = randomUUID();
    await send(uuid, 'older');
    await setStoredDay(uuid, dedupeDay(Date.now()) - WINDOW - 1);
    expect(await pruner().prune()).toBeGreaterThanOrEqual(1);
    expect(await storedDayOf(uuid)).toBeUndefined();

    const before = dedupeDay(Date.now());
    await send(uuid, 'older');
    expect(await copiesOf(uuid)).toBe(2);
    const day = (await storedDayOf(uuid))!;
    expect(day).toBeGreaterThanOrEqual(before);
    expect(day).toBeLessThanOrEqual(dedupeDay(Date.now()));

    // Remembered from the day it was stored again: a third copy is dropped.
    await send(uuid, 'older');
    expect(await copiesOf(uuid)).toBe(2);
  });

  it('prunes nothing with a window of 0 days (uuids kept forever)', async () => {
    const uuid = randomUUID();
    await database().db.insertInto('event_uuids').values({ team_id: server.bootstrap.team.id, uuid, stored_day: 0 }).execute();
    expect(await pruner({ days: 0 }).prune()).toBe(0);
    expect(await storedDayOf(uuid)).toBe(0);
    await database().db.deleteFrom('event_uuids').where('uuid', '=', uuid).execute();
  });

  it('prunes at start; a stop ends a prune after the batch in progress, and the next start goes on', async () => {
    const expired = async () => {
      const row = await database()
        .db.selectFrom('event_uuids')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('stored_day', '<', dedupeDay(Date.now()) - WINDOW)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    const rows = Array.from({ length: 30 }, () => ({ team_id: server.bootstrap.team.id, uuid: randomUUID(), stored_day: 0 }));
    await database().db.insertInto('event_uuids').values(rows).execute();
    const before = await expired();
    const started = pruner();
    started.start();
    await started.stop(); // asked while its first batch (3 rows) is in progress
    expect(await expired()).toBe(before - 3);
    started.start();
    await waitFor(expired, { what: 'the expired uuids to be pruned', until: (n) => n === 0 });
    await started.stop();
  });

  it('prunes in one process at a time: another holding the lease prunes instead', async () => {
    const uuid = randomUUID();
    await database().db.insertInto('event_uuids').values({ team_id: server.bootstrap.team.id, uuid, stored_day: 0 }).execute();
    expect(await acquireLease(database().db, 'event-uuids-prune', 'another process', 60_000)).toBe(true);
    try {
      expect(await pruner().prune()).toBe(0);
      expect(await storedDayOf(uuid)).toBe(0);
    } finally {
      await releaseLease(database().db, 'event-uuids-prune', 'another process');
    }
    expect(await pruner().prune()).toBe(1);
    expect(await storedDayOf(uuid)).toBeUndefined();
  });
});

describe('migration 026-event-uuid-window', () => {
  let storage: TestStorage | undefined;
  let migrated: Database | undefined;
  afterAll(async () => {
    await migrated?.close();
    await storage?.dispose();
  });

  it('keeps the uuids stored before it one window from the upgrade', async () => {
    storage = await freshStorage();
    const before = await databaseBefore(storage, '026-event-uuid-window');
    migrated = before.database;
    const { db, types, step: at } = before;
    const uuids = Array.from({ length: 5 }, () => randomUUID());
    await db
      .insertInto('event_uuids')
      .values(uuids.map((uuid) => ({ team_id: 1, uuid })))
      .execute();
    const upgradedOn = dedupeDay(Date.now());
    await migrations[at]!.up(db, types);

    const rows = await db.selectFrom('event_uuids').select(['uuid', 'stored_day']).execute();
    expect(rows.map((r) => r.uuid).sort()).toEqual([...uuids].sort());
    for (const row of rows) expect([upgradedOn, dedupeDay(Date.now())]).toContain(Number(row.stored_day));
    const day = Number(rows[0]!.stored_day);
    const prunerAt = (dayNow: number) =>
      new EventUuidsPruner(migrated!, log, { days: WINDOW, now: () => dayNow * DAY_MS + DAY_MS / 2 }).prune();
    // The window's last day: kept; the day after: pruned.
    expect(await prunerAt(day + WINDOW)).toBe(0);
    expect(await prunerAt(day + WINDOW + 1)).toBe(uuids.length);
  });
});
