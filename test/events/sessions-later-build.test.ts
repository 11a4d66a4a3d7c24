/**
 * A data folder that a later build opened: its `sessions` table has columns this build does not
 * know, anywhere in the table. This build's own inserts into it (an event deletion's rebuild of a
 * session, a backfill) name their columns, so they go on working, and leave the unknown ones empty.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { openAnalyticsStore } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { deleteEventsBatch } from '../../src/deletions/analytics-deletion-store.js';
import { eventRow } from '../../src/events/outbox-rows.js';
import { backfillSessions } from '../../src/events/sessions-table.js';
import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { ch, raw, typed } from '../../src/platform/analytics/sql.js';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import { toJson } from '../../src/platform/db/values.js';
import { freshStorage } from '../helpers/backend.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const silent = pino({ level: 'silent' });

function row(session: string, event: string, at: string, uuid = randomUUID()): string {
  return eventRow(1, uuid, event, 'd', '00000000-0000-4000-8000-000000000001', toJson({ $pathname: `/${event}` }), at, at, session, null);
}

async function sessions(analytics: AnalyticsEngine): Promise<Array<[string, number, string, string]>> {
  const { sql, params } = ch`SELECT session_id, uniqExactMerge(event_count) AS events, toString(max(max_timestamp)) AS end,
      argMinMerge(entry_pathname) AS entry
    FROM ${raw(analytics.table('sessions'))} GROUP BY session_id ORDER BY session_id`.compile();
  const rows = await analytics.query<{ session_id: string; events: number; end: string; entry: string }>(sql, params);
  return rows.map((r) => [r.session_id, Number(r.events), r.end, r.entry]);
}

async function unknownColumns(analytics: AnalyticsEngine): Promise<{ first: number; last: number }> {
  const [states] = await analytics.query<{ first: number; last: number }>(
    `SELECT minMerge(later_first) AS first, maxMerge(later_last) AS last FROM ${analytics.table('sessions')}`,
  );
  return { first: Number(states!.first), last: Number(states!.last) };
}

it('deletes events and backfills sessions in a table that a later build gave more columns', async () => {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const config = loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1' });
  const analytics = await openAnalyticsStore(config, silent);
  cleanups.push(() => analytics.close());
  const sessionsTable = analytics.table('sessions');
  // Where a later build might put them: right after the key, and at the end.
  await analytics.command(`ALTER TABLE ${sessionsTable} ADD COLUMN later_first AggregateFunction(min, UInt8) AFTER session_id`);
  await analytics.command(`ALTER TABLE ${sessionsTable} ADD COLUMN later_last AggregateFunction(max, UInt8)`);

  const last = randomUUID();
  await analytics.insert(
    'events',
    [
      row('s-a', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-a', '$autocapture', '2025-11-10T10:00:05Z', last),
      row('s-b', '$pageview', '2025-11-11T10:00:00Z'),
    ].join('\n'),
  );
  const stored = [
    ['s-a', 2, '2025-11-10 10:00:05.000000', '/$pageview'],
    ['s-b', 1, '2025-11-11 10:00:00.000000', '/$pageview'],
  ];
  expect(await sessions(analytics)).toEqual(stored);

  // A deletion rebuilds the deleted event's session without it.
  const database = await openAndMigrate(config, silent);
  cleanups.push(() => database.close());
  const condition = ch`team_id = ${typed('Int64', 1)} AND uuid = ${typed('UUID', last)}`;
  expect((await deleteEventsBatch(database, analytics, 1, condition, 10)).deleted).toBe(1);
  const afterDeletion = [['s-a', 1, '2025-11-10 10:00:00.000000', '/$pageview'], stored[1]];
  expect(await sessions(analytics)).toEqual(afterDeletion);

  // A backfill of the whole table, and one of later columns, from the events.
  await analytics.command(`TRUNCATE TABLE ${sessionsTable}`);
  await analytics.command(`ALTER TABLE ${sessionsTable} MODIFY COMMENT 'backfill pending'`);
  await backfillSessions(analytics, '');
  expect(await sessions(analytics)).toEqual(afterDeletion);
  await analytics.command(`ALTER TABLE ${sessionsTable} MODIFY COMMENT 'columns backfill pending: entry_channel_type_properties after 0'`);
  await backfillSessions(analytics, '');
  expect(await sessions(analytics)).toEqual(afterDeletion);
  const [table] = await analytics.query<{ comment: string }>(
    "SELECT comment FROM system.tables WHERE name = 'sessions' AND database = {database:String}",
    { database: /^`([^`]+)`/.exec(sessionsTable)![1] },
  );
  expect(table!.comment).toBe('');
  // The unknown columns hold empty states only: nothing of this build's went into them.
  expect(await unknownColumns(analytics)).toEqual({ first: 0, last: 0 });
});
