/**
 * The sessions table's pageview-prioritised attribution (src/events/sessions-table.ts, PostHog's
 * raw_sessions v3) on a data folder the version before made: the next start adds the
 * `entry_channel_type_properties` column, points the view at it and at the prioritised times, and
 * fills it from the events stored before, a month at a time, resumably. The other entry states of
 * sessions stored before keep their old values (each field's earliest); sessions stored after get
 * the prioritised ones.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { openAnalyticsStore } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { eventRow } from '../../src/events/outbox-rows.js';
import {
  ATTRIBUTION_COLUMNS,
  BOUNCE_COLUMNS,
  channelPropertiesTuple,
  packChannelProperties,
  sessionStatesSelect,
} from '../../src/events/sessions-table.js';
import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { raw } from '../../src/platform/analytics/sql.js';
import { toJson } from '../../src/platform/db/values.js';
import { freshStorage } from '../helpers/backend.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function recording(): { log: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }), lines };
}

async function open(config: Config, log = pino({ level: 'silent' })): Promise<AnalyticsEngine> {
  const analytics = await openAnalyticsStore(config, log);
  cleanups.push(() => analytics.close());
  return analytics;
}

function row(session: string, event: string, at: string, properties: Record<string, unknown>): string {
  const all = { $pathname: '/', ...properties };
  return eventRow(1, randomUUID(), event, 'd', '00000000-0000-4000-8000-000000000001', toJson(all), at, at, session, null);
}

const database = (analytics: AnalyticsEngine) => /^`([^`]+)`/.exec(analytics.table('sessions'))![1]!;

async function sessionColumns(analytics: AnalyticsEngine): Promise<string[]> {
  const rows = await analytics.query<{ name: string }>(
    "SELECT name FROM system.columns WHERE database = {database:String} AND table = 'sessions' ORDER BY position",
    { database: database(analytics) },
  );
  return rows.map((r) => r.name);
}

async function comment(analytics: AnalyticsEngine): Promise<string> {
  const [table] = await analytics.query<{ comment: string }>(
    "SELECT comment FROM system.tables WHERE name = 'sessions' AND database = {database:String}",
    { database: database(analytics) },
  );
  return table!.comment;
}

/** The view's SELECT as the version before wrote it: every entry and exit state over the plain timestamp. */
function unprioritised(select: string): string {
  const plain = select
    .replaceAll("if(event = '$pageview' OR event = '$screen', timestamp, timestamp + toIntervalYear(1))", 'timestamp')
    .replaceAll("if(event = '$pageview' OR event = '$screen', timestamp, timestamp - toIntervalYear(1))", 'timestamp');
  expect(plain).not.toContain('toIntervalYear');
  return plain;
}

/** The table and view as the version before left them: the bounce columns, no channel state, plain times. */
async function asBeforeAttribution(analytics: AnalyticsEngine): Promise<void> {
  await analytics.command(`DROP VIEW ${analytics.table('sessions_mv')}`);
  for (const column of ATTRIBUTION_COLUMNS) await analytics.command(`ALTER TABLE ${analytics.table('sessions')} DROP COLUMN ${column}`);
  const before = (await sessionColumns(analytics)).filter((name) => name !== 'team_id' && name !== 'session_id');
  const oldView = unprioritised(sessionStatesSelect(analytics, raw('1'), before).compile().sql);
  await analytics.command(`CREATE MATERIALIZED VIEW ${analytics.table('sessions_mv')} TO ${analytics.table('sessions')} AS ${oldView}`);
}

interface Entry {
  tuple: [string | null, string | null, string | null, string | null, boolean, boolean, string | null];
  source: string | null;
  url: string | null;
  exit: string | null;
}

async function entries(analytics: AnalyticsEngine): Promise<Record<string, Entry>> {
  const rows = await analytics.query<{
    session_id: string;
    tuple: Entry['tuple'];
    source: string | null;
    url: string | null;
    exit: string | null;
  }>(
    `SELECT session_id, ${channelPropertiesTuple('argMinMerge(entry_channel_type_properties)')} AS tuple, argMinMerge(entry_utm_source) AS source,
       argMinMerge(entry_url) AS url, argMaxMerge(exit_url) AS exit
     FROM ${analytics.table('sessions')} GROUP BY session_id ORDER BY session_id`,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.session_id,
      {
        tuple: [...r.tuple.slice(0, 4), Boolean(r.tuple[4]), Boolean(r.tuple[5]), r.tuple[6]] as Entry['tuple'],
        source: r.source,
        url: r.url,
        exit: r.exit,
      },
    ]),
  );
}

/** A session whose first event is no pageview, with other utm values and URL than its first pageview's; the last event no pageview either. */
function clickFirst(session: string, day: string): string[] {
  return [
    row(session, 'clicked', `${day}T10:00:00Z`, { utm_source: 'newsletter', utm_medium: 'email', $current_url: 'https://x.test/click' }),
    row(session, '$pageview', `${day}T10:00:01Z`, {
      utm_source: 'google',
      gclid: 'g1',
      $referring_domain: 'www.google.com',
      $current_url: 'https://x.test/landing',
    }),
    row(session, '$pageview', `${day}T10:00:02Z`, { $current_url: 'https://x.test/last' }),
    row(session, 'clicked', `${day}T10:00:03Z`, { $current_url: 'https://x.test/after' }),
  ];
}

/** A session whose first pageview has no utm_source and a later event has one. */
function sourceLater(session: string, day: string): string[] {
  return [
    row(session, '$pageview', `${day}T10:00:00Z`, { $referring_domain: 'www.google.com', $current_url: 'https://x.test/' }),
    row(session, '$autocapture', `${day}T10:00:01Z`, { utm_source: 'newsletter', utm_medium: 'email' }),
  ];
}

const PAGEVIEW_TUPLE: Entry['tuple'] = ['google', null, null, 'www.google.com', true, false, null];
const NO_SOURCE_TUPLE: Entry['tuple'] = [null, null, null, 'www.google.com', false, false, null];

it('adds and fills the channel state of sessions stored before it, resumably; old entry states stay, new ones are prioritised', async () => {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const config = loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1' });
  let analytics = await open(config);
  const current = await sessionColumns(analytics);
  await asBeforeAttribution(analytics);
  await analytics.insert('events', [...clickFirst('s-click', '2025-10-10'), ...sourceLater('s-later', '2025-11-10')].join('\n'));
  // That version's bounce backfill, cut short after its first month: started over with the channel state.
  await analytics.command(`ALTER TABLE ${analytics.table('sessions')} MODIFY COMMENT 'bounce backfill pending after 202510'`);
  await analytics.close();

  const first = recording();
  analytics = await open(config, first.log);
  const started = first.lines.find((l) => l.msg === "filling the sessions' new columns from their events");
  expect(started).toMatchObject({ columns: [...BOUNCE_COLUMNS, ...ATTRIBUTION_COLUMNS], months: 2, events: 6 });
  const progress = first.lines.filter((l) => l.msg === "filling the sessions' new columns");
  expect(progress.map((l) => [l.month, l.filled, l.total])).toEqual([
    [202510, 4, 6],
    [202511, 6, 6],
  ]);
  expect(await comment(analytics)).toBe('');
  // Column for column as this version makes the table.
  expect(await sessionColumns(analytics)).toEqual(current);

  // Stored from now on, through the changed view.
  await analytics.insert('events', [...clickFirst('s-new-click', '2025-11-20'), ...sourceLater('s-new-later', '2025-11-20')].join('\n'));
  const filled = await entries(analytics);
  expect(filled).toEqual({
    // Stored before: the channel state filled from the events, prioritised; the other states as they were.
    's-click': { tuple: PAGEVIEW_TUPLE, source: 'newsletter', url: 'https://x.test/click', exit: 'https://x.test/after' },
    's-later': { tuple: NO_SOURCE_TUPLE, source: 'newsletter', url: 'https://x.test/', exit: 'https://x.test/' },
    // Stored after: every entry and exit state prioritised; a field is still its own first non-null value.
    's-new-click': { tuple: PAGEVIEW_TUPLE, source: 'google', url: 'https://x.test/landing', exit: 'https://x.test/last' },
    's-new-later': { tuple: NO_SOURCE_TUPLE, source: 'newsletter', url: 'https://x.test/', exit: 'https://x.test/' },
  });

  // A backfill cut short after its first month goes on from the second; the month filled twice changes nothing.
  await analytics.command(
    `ALTER TABLE ${analytics.table('sessions')} MODIFY COMMENT 'columns backfill pending: entry_channel_type_properties after 202510'`,
  );
  await analytics.close();
  const resumed = recording();
  analytics = await open(config, resumed.log);
  expect(resumed.lines.filter((l) => l.msg === "filling the sessions' new columns").map((l) => l.month)).toEqual([202511]);
  expect(await comment(analytics)).toBe('');
  expect(await entries(analytics)).toEqual(filled);

  // Started again with nothing pending: nothing is filled.
  await analytics.close();
  const idle = recording();
  analytics = await open(config, idle.log);
  expect(idle.lines.filter((l) => String(l.msg).includes('filling'))).toEqual([]);
  expect(await entries(analytics)).toEqual(filled);
});

/** Values a packing could lose: quotes, backslashes, brackets and commas, unicode, control characters, NUL. */
const AWKWARD = ['say "hi"', 'back\\slash\\', '["a", null]', 'é — 日本 😀', 'tab\tnew\nline\r\u001f', 'nul\u0000end', 'null'];

it('packs the channel inputs losslessly: empty is not missing, and any text comes back as it was', async () => {
  const storage = await freshStorage();
  cleanups.push(() => storage.dispose());
  const analytics = await open(loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1' }));
  const text = (value: string) => `unhex('${Buffer.from(value).toString('hex')}')`;

  // The packing itself: an empty string and a NULL stay apart.
  const [packed] = await analytics.query<{ tuple: Entry['tuple'] }>(
    `SELECT ${channelPropertiesTuple(packChannelProperties(["''", 'NULL', text(AWKWARD[0]!), text(AWKWARD[1]!), 'true', 'false', text(AWKWARD[5]!)]))} AS tuple`,
  );
  expect(packed!.tuple).toEqual(['', null, AWKWARD[0], AWKWARD[1], true, false, AWKWARD[5]]);

  // Through the view: each awkward value as an entry's utm_source, with an empty utm_medium (a
  // property's empty text is NULL, PostHog's nullIf) and no campaign; a later pageview's values lose.
  await analytics.insert(
    'events',
    AWKWARD.flatMap((value, i) => [
      row(`s-${i}`, '$pageview', '2025-11-10T10:00:00Z', {
        utm_source: value,
        utm_medium: '',
        $referring_domain: AWKWARD[(i + 1) % AWKWARD.length],
        gad_source: value,
        fbclid: 'f',
      }),
      row(`s-${i}`, '$pageview', '2025-11-10T10:00:01Z', { utm_source: 'later', utm_medium: 'later', utm_campaign: 'later' }),
    ]).join('\n'),
  );
  const stored = await entries(analytics);
  expect(Object.keys(stored)).toHaveLength(AWKWARD.length);
  // Stored events hold a NUL as U+FFFD (platform/db/values.ts): the packing above keeps a real one.
  const kept = AWKWARD.map((value) => value.replaceAll('\u0000', '\uFFFD'));
  kept.forEach((value, i) => {
    const domain = kept[(i + 1) % kept.length];
    expect(stored[`s-${i}`]!.tuple, JSON.stringify(value)).toEqual([value, null, null, domain, false, true, value]);
  });
});
