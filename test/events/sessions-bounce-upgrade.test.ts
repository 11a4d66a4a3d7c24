/**
 * The sessions table's bounce columns (src/events/sessions-table.ts) on a data folder an earlier
 * version made: the next start adds them, points the view at them and fills them from the events
 * stored before, a month at a time with its progress logged; a backfill cut short goes on from the
 * month after the last it finished, and one repeated changes nothing. Each session's bounce is
 * then what the uniqExact counts it replaces say (PostHog's default mode; no screens here). The
 * uniqExact uuid sets that version kept per event name are dropped, from the view and the table;
 * a start cut short between the view's change and the drop is finished by the next.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { openAnalyticsStore } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { deleteEventsBatch } from '../../src/deletions/analytics-deletion-store.js';
import { eventRow } from '../../src/events/outbox-rows.js';
import { ensureAnalyticsSchema } from '../../src/events/analytics-tables.js';
import { BOUNCE_COLUMNS, DROPPED_COLUMNS, LATER_COLUMNS, sessionIsBounce, sessionStatesSelect } from '../../src/events/sessions-table.js';
import type { AnalyticsEngine, QueryParams } from '../../src/platform/analytics/engine.js';
import { ch, raw, typed } from '../../src/platform/analytics/sql.js';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import { toJson } from '../../src/platform/db/values.js';
import { freshStorage } from '../helpers/backend.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const silent = pino({ level: 'silent' });

/** A logger keeping what it logs. */
function recording(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }), lines };
}

async function open(config: Config, log = silent): Promise<AnalyticsEngine> {
  const analytics = await openAnalyticsStore(config, log);
  cleanups.push(() => analytics.close());
  return analytics;
}

function row(session: string, event: string, at: string, uuid = randomUUID()): string {
  return eventRow(1, uuid, event, 'd', '00000000-0000-4000-8000-000000000001', toJson({ $pathname: '/' }), at, at, session, null);
}

/** Each session's bounce from the new columns, and counted from its events as the uniqExact sets they replace did. */
async function bounces(analytics: AnalyticsEngine): Promise<Record<string, { bounce: number; counted: number }>> {
  const rows = await analytics.query<{ session_id: string; bounce: number; counted: number }>(
    `SELECT s.session_id AS session_id, s.bounce AS bounce, e.counted AS counted
     FROM (SELECT session_id, dateDiff('second', min(min_timestamp), max(max_timestamp)) AS duration, ${sessionIsBounce('duration')} AS bounce
       FROM ${analytics.table('sessions')} GROUP BY session_id) AS s
     INNER JOIN (SELECT session_id, NOT (uniqExactIf(uuid, event IN ('$pageview', '$autocapture', '$screen')) > 1
         OR dateDiff('second', min(timestamp), max(timestamp)) >= 10) AS counted
       FROM ${analytics.table('events')} GROUP BY session_id) AS e ON e.session_id = s.session_id
     ORDER BY session_id`,
  );
  return Object.fromEntries(rows.map((r) => [r.session_id, { bounce: Number(r.bounce), counted: Number(r.counted) }]));
}

async function sessionColumns(analytics: AnalyticsEngine): Promise<string[]> {
  const rows = await analytics.query<{ name: string }>(
    "SELECT name FROM system.columns WHERE database = {database:String} AND table = 'sessions' ORDER BY position",
    { database: /^`([^`]+)`/.exec(analytics.table('sessions'))![1] },
  );
  return rows.map((r) => r.name);
}

async function comment(analytics: AnalyticsEngine): Promise<string> {
  const [table] = await analytics.query<{ comment: string }>(
    "SELECT comment FROM system.tables WHERE name = 'sessions' AND database = {database:String}",
    { database: /^`([^`]+)`/.exec(analytics.table('sessions'))![1] },
  );
  return table!.comment;
}

async function viewQuery(analytics: AnalyticsEngine): Promise<string> {
  const [mv] = await analytics.query<{ query: string }>(
    "SELECT create_table_query AS query FROM system.tables WHERE name = 'sessions_mv' AND database = {database:String}",
    { database: /^`([^`]+)`/.exec(analytics.table('sessions'))![1] },
  );
  return mv!.query;
}

/** The uniqExact uuid sets per event name that earlier versions kept: column, event. */
const SETS = DROPPED_COLUMNS.map((name) => [name, `'$${name.replace('_count', '')}'`] as const);

async function addSetColumns(analytics: AnalyticsEngine): Promise<void> {
  for (const [name] of SETS)
    await analytics.command(`ALTER TABLE ${analytics.table('sessions')} ADD COLUMN ${name} AggregateFunction(uniqExact, UUID)`);
}

/** A view's SELECT that also fills the sets, as theirs did. */
function withSets(select: string): string {
  return select.replace(
    /\n\s*FROM /,
    `, ${SETS.map(([name, event]) => `uniqExactStateIf(uuid, event = ${event}) AS ${name}`).join(', ')} FROM `,
  );
}

/**
 * The table and view as a version before the bounce columns left them: none of the later columns
 * (the bounce ones, and the attribution one after them), and the sets, filled by its view.
 */
async function asBeforeBounceColumns(analytics: AnalyticsEngine): Promise<void> {
  await analytics.command(`DROP VIEW ${analytics.table('sessions_mv')}`);
  for (const column of LATER_COLUMNS) await analytics.command(`ALTER TABLE ${analytics.table('sessions')} DROP COLUMN ${column}`);
  const before = (await sessionColumns(analytics)).filter((name) => name !== 'team_id' && name !== 'session_id');
  await addSetColumns(analytics);
  const oldView = withSets(sessionStatesSelect(analytics, raw('1'), before).compile().sql);
  expect(oldView).toContain('pageview_count');
  await analytics.command(`CREATE MATERIALIZED VIEW ${analytics.table('sessions_mv')} TO ${analytics.table('sessions')} AS ${oldView}`);
}

/**
 * The engine, but a start through it stops at its first column drop: as a process killed between
 * the view's change and the drop.
 */
function stoppingAtDrop(engine: AnalyticsEngine): AnalyticsEngine {
  return {
    kind: engine.kind,
    database: engine.database,
    table: (name) => engine.table(name),
    query: <T>(sql: string, params?: QueryParams) => engine.query<T>(sql, params),
    command: async (sql, params) => {
      if (/\bDROP COLUMN\b/.test(sql)) throw new Error('start cut short before the column drop');
      await engine.command(sql, params);
    },
    insert: (table, rows, options) => engine.insert(table, rows, options),
    close: () => engine.close(),
  };
}

it('fills the bounce columns of sessions stored before them, resumably, drops the uniqExact sets, and the view keeps them after', async () => {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const config = loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1' });
  let analytics = await open(config);
  await asBeforeBounceColumns(analytics);

  const dup = row('s-dup', '$pageview', '2025-10-10T10:00:00Z');
  await analytics.insert(
    'events',
    [
      row('s-one', '$pageview', '2025-10-10T10:00:00Z'),
      row('s-two', '$pageview', '2025-10-10T10:00:00Z'),
      row('s-two', '$pageview', '2025-10-10T10:00:01Z'),
      // The same event stored twice.
      dup,
      dup,
      // Across the months: two rows of partial states, filled one month at a time.
      row('s-span', '$pageview', '2025-10-31T23:59:58Z'),
      row('s-span', '$pageview', '2025-11-01T00:00:01Z'),
      row('s-click', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-click', '$autocapture', '2025-11-10T10:00:01Z'),
      row('s-later', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-long', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-long', 'clicked', '2025-11-10T10:00:10Z'),
    ].join('\n'),
  );
  await analytics.close();

  const first = recording();
  analytics = await open(config, first.log);
  const progress = first.lines.filter((l) => l.msg === "filling the sessions' new columns");
  expect(progress.map((l) => [l.month, l.filled, l.total])).toEqual([
    [202510, 6, 12],
    [202511, 12, 12],
  ]);
  expect(await comment(analytics)).toBe('');
  const columns = await sessionColumns(analytics);
  expect(columns).toEqual(expect.arrayContaining([...BOUNCE_COLUMNS, 'event_count']));
  for (const name of DROPPED_COLUMNS) expect(columns).not.toContain(name);
  // Stored from now on: through the view, which fills the columns itself.
  const again = row('s-new', '$pageview', '2025-11-20T10:00:00Z');
  await analytics.insert('events', [row('s-later', '$pageview', '2025-11-10T10:00:01Z'), again, again].join('\n'));
  await analytics.insert(
    'events',
    [row('s-new-two', '$pageview', '2025-11-20T10:00:00Z'), row('s-new-two', '$pageview', '2025-11-20T10:00:02Z')].join('\n'),
  );
  const expected = {
    's-one': 1,
    's-two': 0,
    's-dup': 1,
    's-span': 0,
    's-click': 0,
    's-later': 0,
    's-long': 0,
    's-new': 1,
    's-new-two': 0,
  };
  const filled = await bounces(analytics);
  expect(Object.fromEntries(Object.entries(filled).map(([s, b]) => [s, b.bounce]))).toEqual(expected);
  for (const [session, b] of Object.entries(filled)) expect(b.counted, session).toBe(b.bounce);

  // A backfill cut short after its first month (the comment as the version before the attribution
  // column wrote it) goes on from the second; the months filled twice change nothing.
  await analytics.command(`ALTER TABLE ${analytics.table('sessions')} MODIFY COMMENT 'bounce backfill pending after 202510'`);
  await analytics.close();
  const resumed = recording();
  analytics = await open(config, resumed.log);
  const months = resumed.lines.filter((l) => l.msg === "filling the sessions' new columns").map((l) => l.month);
  expect(months).toEqual([202511]);
  expect(await comment(analytics)).toBe('');
  expect(await bounces(analytics)).toEqual(filled);

  // Started again with nothing pending: nothing is filled.
  await analytics.close();
  const idle = recording();
  analytics = await open(config, idle.log);
  expect(idle.lines.filter((l) => String(l.msg).includes('filling'))).toEqual([]);
  expect(await bounces(analytics)).toEqual(filled);
});

it('drops the uniqExact sets of a folder that has the bounce columns already, with nothing to fill', async () => {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const config = loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1' });
  let analytics = await open(config);
  // As the version before this one left the table and its view: the bounce columns and the sets.
  await addSetColumns(analytics);
  await analytics.command(
    `ALTER TABLE ${analytics.table('sessions_mv')} MODIFY QUERY ${withSets(sessionStatesSelect(analytics).compile().sql)}`,
  );
  await analytics.insert(
    'events',
    [
      row('s-one', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-two', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-two', '$pageview', '2025-11-10T10:00:01Z'),
    ].join('\n'),
  );
  const [stored] = await analytics.query<{ pageviews: number }>(
    `SELECT uniqExactMerge(pageview_count) AS pageviews FROM ${analytics.table('sessions')}`,
  );
  expect(Number(stored!.pageviews)).toBe(3);
  const filled = await bounces(analytics);
  await analytics.close();

  const started = recording();
  analytics = await open(config, started.log);
  expect(started.lines.filter((l) => String(l.msg).includes('filling'))).toEqual([]);
  expect(await comment(analytics)).toBe('');
  const columns = await sessionColumns(analytics);
  for (const name of DROPPED_COLUMNS) expect(columns).not.toContain(name);
  const view = await viewQuery(analytics);
  for (const name of DROPPED_COLUMNS) expect(view).not.toContain(name);
  // Stored through the view as changed, and the sessions as they were.
  await analytics.insert('events', row('s-three', '$pageview', '2025-11-10T10:00:00Z'));
  expect(await bounces(analytics)).toEqual({ ...filled, 's-three': { bounce: 1, counted: 1 } });
  expect(filled).toEqual({ 's-one': { bounce: 1, counted: 1 }, 's-two': { bounce: 0, counted: 0 } });
});

it('finishes at the next start an upgrade cut short between the view change and the column drop', async () => {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const config = loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1' });
  let analytics = await open(config);
  const current = await sessionColumns(analytics);
  await asBeforeBounceColumns(analytics);
  const click = randomUUID();
  await analytics.insert(
    'events',
    [
      row('s-one', '$pageview', '2025-10-10T10:00:00Z'),
      row('s-two', '$pageview', '2025-10-10T10:00:00Z'),
      row('s-two', '$pageview', '2025-10-10T10:00:01Z'),
      row('s-span', '$pageview', '2025-10-31T23:59:58Z'),
      row('s-span', '$pageview', '2025-11-01T00:00:01Z'),
      row('s-click', '$pageview', '2025-11-10T10:00:00Z'),
      row('s-click', '$autocapture', '2025-11-10T10:00:01Z', click),
    ].join('\n'),
  );

  // A start that gets as far as the view's change: the later columns added and the backfill
  // marked pending, the view this version's, and the sets still in the table.
  await expect(ensureAnalyticsSchema(stoppingAtDrop(analytics))).rejects.toThrow('cut short');
  expect(await comment(analytics)).toBe(`columns backfill pending: ${LATER_COLUMNS.join(', ')}`);
  const view = await viewQuery(analytics);
  for (const name of LATER_COLUMNS) expect(view).toContain(name);
  for (const name of DROPPED_COLUMNS) expect(view).not.toContain(name);
  expect(await sessionColumns(analytics)).toEqual(expect.arrayContaining([...DROPPED_COLUMNS, ...LATER_COLUMNS]));
  // Stored meanwhile, through the changed view into the table that still has the sets.
  await analytics.insert('events', row('s-between', '$pageview', '2025-11-12T10:00:00Z'));
  await analytics.close();

  const next = recording();
  analytics = await open(config, next.log);
  // The table as this version makes it, column for column.
  expect(await sessionColumns(analytics)).toEqual(current);
  expect(await comment(analytics)).toBe('');
  expect(next.lines.filter((l) => l.msg === "filling the sessions' new columns").map((l) => l.month)).toEqual([202510, 202511]);
  const sessions = async () => {
    const { sql, params } = ch`SELECT session_id, uniqExactMerge(event_count) AS events, toString(min(min_timestamp)) AS start,
        toString(max(max_timestamp)) AS end, argMinMerge(entry_pathname) AS entry
      FROM ${raw(analytics.table('sessions'))} GROUP BY session_id ORDER BY session_id`.compile();
    return analytics.query<{ session_id: string; events: number; start: string; end: string; entry: string }>(sql, params);
  };
  expect((await sessions()).map((s) => [s.session_id, Number(s.events), s.start, s.end, s.entry])).toEqual([
    ['s-between', 1, '2025-11-12 10:00:00.000000', '2025-11-12 10:00:00.000000', '/'],
    ['s-click', 2, '2025-11-10 10:00:00.000000', '2025-11-10 10:00:01.000000', '/'],
    ['s-one', 1, '2025-10-10 10:00:00.000000', '2025-10-10 10:00:00.000000', '/'],
    ['s-span', 2, '2025-10-31 23:59:58.000000', '2025-11-01 00:00:01.000000', '/'],
    ['s-two', 2, '2025-10-10 10:00:00.000000', '2025-10-10 10:00:01.000000', '/'],
  ]);
  const filled = await bounces(analytics);
  expect(Object.fromEntries(Object.entries(filled).map(([s, b]) => [s, b.bounce]))).toEqual({
    's-between': 1,
    's-click': 0,
    's-one': 1,
    's-span': 0,
    's-two': 0,
  });
  for (const [session, b] of Object.entries(filled)) expect(b.counted, session).toBe(b.bounce);

  // Events are still deletable: the session is rebuilt without the deleted one.
  const database = await openAndMigrate(config, silent);
  cleanups.push(() => database.close());
  const condition = ch`team_id = ${typed('Int64', 1)} AND uuid = ${typed('UUID', click)}`;
  expect((await deleteEventsBatch(database, analytics, 1, condition, 10)).deleted).toBe(1);
  const after = await sessions();
  expect(after.find((s) => s.session_id === 's-click')).toMatchObject({ events: 1, end: '2025-11-10 10:00:00.000000' });
  expect(await bounces(analytics)).toEqual({ ...filled, 's-click': { bounce: 1, counted: 1 } });
});
