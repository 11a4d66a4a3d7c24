import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, raw, typed, type ChSql } from '../platform/analytics/sql.js';
import { BOUNCE_DURATION_SECONDS, SESSION_CLICK_IDS, SESSION_UTM_PARAMS } from '../recordings/core/index.js';
import { materializedColumn } from './analytics-columns.js';

/**
 * The `sessions` table: one row per session, kept up to date at ingestion by a materialized view
 * over `events` (PostHog's raw_sessions), so session queries read no events. A session's rows are
 * partial states, merged by AggregatingMergeTree and by reads (`…Merge`, `min`, `max`, GROUP BY
 * session_id). Every state is idempotent (min, max, argMin, argMax, uniqExact of uuids): an insert
 * ClickHouse repeats into the view (a deduplicated insert into `events` still reaches it) or a
 * backfill over events the view saw already changes nothing.
 */

const TIME = "DateTime64(6, 'UTC')";

/** The event property of each `entry_*` attribution column: its first non-empty value (pageviews first, ENTRY_TIME). */
export const SESSION_ENTRY_PROPERTIES: Readonly<Record<string, string>> = Object.fromEntries(
  ['$referring_domain', ...SESSION_UTM_PARAMS, ...SESSION_CLICK_IDS].map((key) => [`entry_${key.replace(/^\$/, '')}`, key]),
);

/** The properties the view reads that have no column of their own (materializedColumn). */
function unmaterialized(): string[] {
  return [...Object.values(SESSION_ENTRY_PROPERTIES), '$external_click_url'].filter((key) => !materializedColumn(key));
}

/**
 * Those properties, all from one JSONExtract: the expression is the same for each, so ClickHouse
 * parses a row's properties once for all of them instead of once each.
 */
function unmaterializedAtOnce(): string {
  return `JSONExtract(properties, 'Tuple(${unmaterialized()
    .map((key) => `\`${key}\` Nullable(String)`)
    .join(', ')})')`;
}

/** A property's text, NULL when missing, JSON null or empty (PostHog's `nullIf(toString(…), '')`). */
function propertyText(key: string): string {
  const column = materializedColumn(key);
  if (column) return `nullIf(${column}, '')`;
  if (!unmaterialized().includes(key)) throw new Error(`the sessions view reads ${key}: add it to unmaterialized()`);
  return `nullIf(tupleElement(${unmaterializedAtOnce()}, '${key}'), '')`;
}

/**
 * A property as a number, NULL when it is none: numbers and numeric text, not booleans (HogQL's
 * `toFloat`, as the session and web vitals cores read it).
 */
export function propertyNumber(key: string): string {
  const quoted = `'${key.replace(/'/g, "\\'")}'`;
  const value = `JSONExtract(properties, ${quoted}, 'Nullable(Float64)')`;
  return `if(JSONType(properties, ${quoted}) = 'Bool' OR NOT isFinite(${value}), NULL, ${value})`;
}

/**
 * PostHog's raw_sessions v3 times for the entry and exit states: a pageview's or screen's value wins
 * over another event's up to a year earlier (PostHog's stand-in for "after any pageview"). Each
 * Nullable state still skips NULLs: a field is its own first non-null value.
 */
const ENTRY_TIME = "if(event = '$pageview' OR event = '$screen', timestamp, timestamp + toIntervalYear(1))";
const EXIT_TIME = "if(event = '$pageview' OR event = '$screen', timestamp, timestamp - toIntervalYear(1))";

/**
 * The channel type's inputs of one event, in PostHog's order (utm source, medium, campaign,
 * referring domain, has gclid, has fbclid, gad_source), NULLs included.
 */
const CHANNEL_TUPLE = 'Tuple(Nullable(String), Nullable(String), Nullable(String), Nullable(String), Bool, Bool, Nullable(String))';

/**
 * Those inputs packed into one string, the JSON array of the tuple: lossless for any value (quotes,
 * backslashes, control characters, NUL; NULL stays null, '' stays ""), and never NULL, so its argMin
 * keeps the first event's seven values together. PostHog's column is an argMin of the tuple itself;
 * ClickHouse merges a String argMin far faster than a Tuple one (docs/benchmarks.md).
 */
function channelProperties(): string {
  return packChannelProperties([
    propertyText('utm_source'),
    propertyText('utm_medium'),
    propertyText('utm_campaign'),
    propertyText('$referring_domain'),
    `${propertyText('gclid')} IS NOT NULL`,
    `${propertyText('fbclid')} IS NOT NULL`,
    propertyText('gad_source'),
  ]);
}

/** Seven expressions, in CHANNEL_TUPLE's order, packed as channelProperties packs an event's. */
export function packChannelProperties(fields: readonly string[]): string {
  return `toJSONString(CAST(tuple(${fields.join(', ')}), '${CHANNEL_TUPLE}'))`;
}

/**
 * The tuple back from a merged `entry_channel_type_properties` (`packed`): read once per session,
 * after its states are merged. A session without the state (an empty string) reads all NULL/false.
 */
export function channelPropertiesTuple(packed: string): string {
  return `JSONExtract(${packed}, '${CHANNEL_TUPLE}')`;
}

/** Column → [its type, the state the view computes from a block of events]. */
function sessionColumns(): [string, string, string][] {
  const argMin = (expression: string, type = 'Nullable(String)', time = 'timestamp'): [string, string] => [
    `AggregateFunction(argMin, ${type}, ${TIME})`,
    `argMinState(${expression}, ${time})`,
  ];
  const entry = (expression: string): [string, string] => argMin(expression, 'Nullable(String)', ENTRY_TIME);
  const argMax = (expression: string, time = 'timestamp'): [string, string] => [
    `AggregateFunction(argMax, Nullable(String), ${TIME})`,
    `argMaxState(${expression}, ${time})`,
  ];
  const columns: Record<string, [string, string]> = {
    min_timestamp: [`SimpleAggregateFunction(min, ${TIME})`, 'min(timestamp)'],
    max_timestamp: [`SimpleAggregateFunction(max, ${TIME})`, 'max(timestamp)'],
    distinct_id: [`AggregateFunction(argMin, String, ${TIME})`, 'argMinState(distinct_id, timestamp)'],
    entry_url: entry(propertyText('$current_url')),
    exit_url: argMax(propertyText('$current_url'), EXIT_TIME),
    entry_pathname: entry(propertyText('$pathname')),
    exit_pathname: argMax(propertyText('$pathname'), EXIT_TIME),
    ...Object.fromEntries(Object.entries(SESSION_ENTRY_PROPERTIES).map(([column, key]) => [column, entry(propertyText(key))])),
    last_external_click_url: argMax(propertyText('$external_click_url')),
    vitals_lcp: argMin(propertyNumber('$web_vitals_LCP_value'), 'Nullable(Float64)'),
    event_count: ['AggregateFunction(uniqExact, UUID)', 'uniqExactState(uuid)'],
    ...BOUNCE_STATES,
    ...ATTRIBUTION_STATES(),
  };
  return Object.entries(columns).map(([name, [type, state]]) => [name, type, state]);
}

/**
 * What a session's bounce needs (sessionIsBounce), cheaper to merge than the uniqExact sets: two
 * distinct pageviews are the smallest and largest pageview uuid differing, NULL without any.
 * Plain min and max, so a row repeated changes nothing. Added after the other columns: tables made
 * before them get them at start (upgradeSessions).
 */
const BOUNCE_STATES: Record<string, [string, string]> = {
  pageview_uuid_min: ['SimpleAggregateFunction(min, Nullable(UUID))', "min(if(event = '$pageview', uuid, NULL))"],
  pageview_uuid_max: ['SimpleAggregateFunction(max, Nullable(UUID))', "max(if(event = '$pageview', uuid, NULL))"],
  has_autocapture: ['SimpleAggregateFunction(max, UInt8)', "max(event = '$autocapture')"],
};

/** The channel type's inputs as one state (channelProperties); added after the bounce columns, as they were. */
const ATTRIBUTION_STATES = (): Record<string, [string, string]> => ({
  entry_channel_type_properties: [`AggregateFunction(argMin, String, ${TIME})`, `argMinState(${channelProperties()}, ${ENTRY_TIME})`],
});

export const BOUNCE_COLUMNS: readonly string[] = Object.keys(BOUNCE_STATES);
export const ATTRIBUTION_COLUMNS: readonly string[] = Object.keys(ATTRIBUTION_STATES());

/**
 * The columns added after the table was first made, in the order added: at start, a table without
 * them gets them, and they are filled from the events stored before (upgradeSessions, backfillSessions).
 */
export const LATER_COLUMNS: readonly string[] = [...BOUNCE_COLUMNS, ...ATTRIBUTION_COLUMNS];

/**
 * The uniqExact uuid sets per event name the bounce columns replaced: read by nothing, and each
 * event cost the view a set insert. Tables made before lose them at start (upgradeSessions).
 */
export const DROPPED_COLUMNS: readonly string[] = ['pageview_count', 'autocapture_count', 'screen_count'];

/**
 * Whether a session bounced, from its rows merged by `GROUP BY session_id` (`duration` its length
 * in seconds): PostHog's `$is_bounce` in its default mode (`count_pageviews`): at most one
 * pageview, no autocapture and shorter than 10 s. Screens do not count (PostHog's other mode,
 * `uniq_page_screen_autocaptures`, counts them). PostHog answers NULL for a session without
 * pageviews; every session web analytics reads has one.
 */
export function sessionIsBounce(duration: string): string {
  return `NOT (ifNull(min(pageview_uuid_min) != max(pageview_uuid_max), 0) OR max(has_autocapture) = 1 OR ${duration} >= ${BOUNCE_DURATION_SECONDS})`;
}

/**
 * The view's SELECT: events (a block of them, in the view) as session states; also the backfill's,
 * and a deletion's that rebuilds sessions (`where` picks the events; `only` these columns).
 */
export function sessionStatesSelect(engine: AnalyticsEngine, where: ChSql = raw('1'), only?: readonly string[]): ChSql {
  const states = sessionColumns()
    .filter(([name]) => only === undefined || only.includes(name))
    .map(([name, , state]) => `${state} AS \`${name}\``)
    .join(',\n      ');
  return ch`SELECT team_id, session_id,
      ${raw(states)}
    FROM ${raw(engine.table('events'))}
    WHERE session_id != '' AND ${where}
    GROUP BY team_id, session_id`;
}

/**
 * An INSERT of sessionStatesSelect's states into `sessions`, its columns named: a table that a later
 * build gave more columns takes this build's rows too (their other columns' empty states merge as
 * nothing).
 */
export function insertSessionStates(engine: AnalyticsEngine, where: ChSql = raw('1'), only?: readonly string[]): ChSql {
  const names = sessionColumns()
    .map(([name]) => name)
    .filter((name) => only === undefined || only.includes(name))
    .map((name) => `\`${name}\``)
    .join(', ');
  return ch`INSERT INTO ${raw(engine.table('sessions'))} (team_id, session_id, ${raw(names)})
    ${sessionStatesSelect(engine, where, only)}`;
}

/** A table made before its backfill is done carries this comment until it is (a crash in between backfills again). */
const BACKFILL_PENDING = 'backfill pending';

export function sessionsStatements(
  engine: AnalyticsEngine,
  onCluster: string,
  engineOf: (family: string, name: string) => string,
): string[] {
  const columns = sessionColumns()
    .map(([name, type]) => `\`${name}\` ${type}`)
    .join(',\n      ');
  return [
    `CREATE TABLE IF NOT EXISTS ${engine.table('sessions')}${onCluster} (
      team_id Int64,
      session_id String,
      ${columns}
    ) ENGINE = ${engineOf('AggregatingMergeTree', 'sessions')}
    ORDER BY (team_id, session_id)
    COMMENT '${BACKFILL_PENDING}'`,
    // Tables made before the later columns get them here (the view below is checked against the
    // table even when it exists); upgradeSessions makes their view fill them.
    ...sessionColumns()
      .filter(([name]) => LATER_COLUMNS.includes(name))
      .map(([name, type]) => `ALTER TABLE ${engine.table('sessions')}${onCluster} ADD COLUMN IF NOT EXISTS \`${name}\` ${type}`),
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${engine.table('sessions_mv')}${onCluster} TO ${engine.table('sessions')}
    AS ${sessionStatesSelect(engine).compile().sql}`,
  ];
}

/**
 * A table with later columns to fill carries this comment, then the columns (`: a, b`), then
 * ` after <month>` once a month is filled, until they all are.
 */
const COLUMNS_PENDING = 'columns backfill pending';
/** What a version before the attribution column wrote for its bounce columns (same meaning, those columns). */
const BOUNCE_PENDING = 'bounce backfill pending';

interface Pending {
  columns: readonly string[];
  /** The last month filled, 0 for none. */
  after: number;
}

/** The columns a comment says are still to fill, undefined when none. */
function pendingOf(comment: string): Pending | undefined {
  const after = Number(/ after (\d+)$/.exec(comment)?.[1] ?? 0);
  if (comment.startsWith(BOUNCE_PENDING)) return { columns: BOUNCE_COLUMNS, after };
  const listed = new RegExp(`^${COLUMNS_PENDING}: ([a-z_, ]+?)(?: after \\d+)?$`).exec(comment);
  if (!listed) return undefined;
  return { columns: listed[1]!.split(', ').filter((name) => LATER_COLUMNS.includes(name)), after };
}

function pendingComment({ columns, after }: Pending): string {
  return `${COLUMNS_PENDING}: ${columns.join(', ')}${after ? ` after ${after}` : ''}`;
}

/** The database the tables are in (an embedded engine shared by servers of one process names it after the folder). */
export function databaseOf(engine: AnalyticsEngine): string {
  return /^`([^`]+)`\./.exec(engine.table('sessions'))?.[1] ?? engine.database;
}

async function tableText(engine: AnalyticsEngine, name: string): Promise<{ comment: string; query: string } | undefined> {
  const [table] = await engine.query<{ comment: string; query: string }>(
    'SELECT comment, create_table_query AS query FROM system.tables WHERE database = {database:String} AND name = {name:String}',
    { database: databaseOf(engine), name },
  );
  return table;
}

async function setComment(engine: AnalyticsEngine, onCluster: string, comment: string): Promise<void> {
  await engine.command(`ALTER TABLE ${engine.table('sessions')}${onCluster} MODIFY COMMENT '${comment}'`);
}

/**
 * The view of a table made before some later columns fills them from now on, and no longer the
 * dropped ones (MODIFY QUERY: inserts go on meanwhile). The table is marked for their backfill
 * first, so a start cut short in between still fills them; a backfill under way starts over with
 * the new columns too (every state is idempotent: a month filled twice changes nothing). Then the
 * dropped columns go: after the view, whose inserts named them; a start cut short in between drops
 * them at the next. Nothing to do once the view is the current one and the columns are gone.
 */
export async function upgradeSessions(engine: AnalyticsEngine, onCluster: string): Promise<void> {
  const view = (await tableText(engine, 'sessions_mv'))?.query ?? '';
  const missing = LATER_COLUMNS.filter((name) => !view.includes(name));
  if (missing.length > 0) {
    const comment = (await tableText(engine, 'sessions'))?.comment ?? '';
    // A table whose whole backfill is pending gets the columns from that one.
    if (comment !== BACKFILL_PENDING) {
      const pending = pendingOf(comment);
      const columns = LATER_COLUMNS.filter((name) => missing.includes(name) || pending?.columns.includes(name));
      const restart = pending === undefined || columns.length > pending.columns.length;
      if (restart) await setComment(engine, onCluster, pendingComment({ columns, after: 0 }));
    }
  }
  if (missing.length > 0 || DROPPED_COLUMNS.some((name) => view.includes(name))) {
    await engine.command(
      `ALTER TABLE ${engine.table('sessions_mv')}${onCluster} MODIFY QUERY ${sessionStatesSelect(engine).compile().sql}`,
    );
  }
  const dropped = await engine.query<{ name: string }>(
    "SELECT name FROM system.columns WHERE database = {database:String} AND table = 'sessions' AND name IN {names:Array(String)}",
    { database: databaseOf(engine), names: [...DROPPED_COLUMNS] },
  );
  for (const { name } of dropped) {
    await engine.command(`ALTER TABLE ${engine.table('sessions')}${onCluster} DROP COLUMN IF EXISTS \`${name}\``);
  }
}

export interface ProgressLog {
  info(details: object, message: string): void;
}

/**
 * Sessions of the events stored before the view existed: once, after the table and the view are
 * made (events stored meanwhile are counted by both, which changes nothing). Or, for a table made
 * before some later columns, those columns (backfillColumns).
 */
export async function backfillSessions(engine: AnalyticsEngine, onCluster: string, log?: ProgressLog): Promise<void> {
  const comment = (await tableText(engine, 'sessions'))?.comment ?? '';
  if (comment === BACKFILL_PENDING) {
    const { sql, params } = insertSessionStates(engine).compile();
    await engine.command(sql, params);
    await setComment(engine, onCluster, '');
    return;
  }
  const pending = pendingOf(comment);
  if (pending) await backfillColumns(engine, onCluster, pending, log);
}

/**
 * Later columns of the sessions stored before them, from their events a month (a partition of
 * `events`) at a time, oldest first: the comment keeps the last month filled, and a start cut short
 * goes on from the next. Each month inserts those columns and the session's start and end (the
 * other columns' empty states merge as nothing); all are idempotent states (min, max, argMin), so a
 * month filled twice, or events the view counted already, change nothing.
 */
async function backfillColumns(engine: AnalyticsEngine, onCluster: string, pending: Pending, log?: ProgressLog): Promise<void> {
  const { after } = pending;
  const months = await engine.query<{ month: number; events: number }>(
    `SELECT toYYYYMM(timestamp) AS month, count() AS events FROM ${engine.table('events')}
     WHERE session_id != '' AND toYYYYMM(timestamp) > {after:UInt32} GROUP BY month ORDER BY month`,
    { after },
  );
  const total = months.reduce((sum, m) => sum + Number(m.events), 0);
  log?.info(
    { columns: pending.columns, months: months.length, events: total, after: after || undefined },
    "filling the sessions' new columns from their events",
  );
  const filling = ['min_timestamp', 'max_timestamp', ...pending.columns];
  let filled = 0;
  for (const { month, events } of months) {
    const { sql, params } = insertSessionStates(engine, ch`toYYYYMM(timestamp) = ${typed('UInt32', month)}`, filling).compile();
    await engine.command(sql, params);
    await setComment(engine, onCluster, pendingComment({ columns: pending.columns, after: month }));
    filled += Number(events);
    log?.info({ month, filled, total }, "filling the sessions' new columns");
  }
  await setComment(engine, onCluster, '');
}
