import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, raw, type ChSql } from '../platform/analytics/sql.js';
import { SESSION_CLICK_IDS, SESSION_UTM_PARAMS } from '../recordings/core/index.js';
import { materializedColumn } from './analytics-tables.js';

/**
 * The `sessions` table: one row per session, kept up to date at ingestion by a materialized view
 * over `events` (PostHog's raw_sessions), so session queries read no events. A session's rows are
 * partial states, merged by AggregatingMergeTree and by reads (`…Merge`, `min`, `max`, GROUP BY
 * session_id). Every state is idempotent (min, max, argMin, argMax, uniqExact of uuids): an insert
 * ClickHouse repeats into the view (a deduplicated insert into `events` still reaches it) or a
 * backfill over events the view saw already changes nothing.
 */

const TIME = "DateTime64(6, 'UTC')";

/** The event property of each `entry_*` attribution column: its earliest non-empty value. */
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

/** Column → [its type, the state the view computes from a block of events]. */
function sessionColumns(): [string, string, string][] {
  const argMin = (expression: string, type = 'Nullable(String)'): [string, string] => [
    `AggregateFunction(argMin, ${type}, ${TIME})`,
    `argMinState(${expression}, timestamp)`,
  ];
  const argMax = (expression: string): [string, string] => [
    `AggregateFunction(argMax, Nullable(String), ${TIME})`,
    `argMaxState(${expression}, timestamp)`,
  ];
  const count = (condition?: string): [string, string] => [
    'AggregateFunction(uniqExact, UUID)',
    condition ? `uniqExactStateIf(uuid, ${condition})` : 'uniqExactState(uuid)',
  ];
  const columns: Record<string, [string, string]> = {
    min_timestamp: [`SimpleAggregateFunction(min, ${TIME})`, 'min(timestamp)'],
    max_timestamp: [`SimpleAggregateFunction(max, ${TIME})`, 'max(timestamp)'],
    distinct_id: [`AggregateFunction(argMin, String, ${TIME})`, 'argMinState(distinct_id, timestamp)'],
    entry_url: argMin(propertyText('$current_url')),
    exit_url: argMax(propertyText('$current_url')),
    entry_pathname: argMin(propertyText('$pathname')),
    exit_pathname: argMax(propertyText('$pathname')),
    ...Object.fromEntries(Object.entries(SESSION_ENTRY_PROPERTIES).map(([column, key]) => [column, argMin(propertyText(key))])),
    last_external_click_url: argMax(propertyText('$external_click_url')),
    vitals_lcp: argMin(propertyNumber('$web_vitals_LCP_value'), 'Nullable(Float64)'),
    event_count: count(),
    pageview_count: count("event = '$pageview'"),
    autocapture_count: count("event = '$autocapture'"),
    screen_count: count("event = '$screen'"),
  };
  return Object.entries(columns).map(([name, [type, state]]) => [name, type, state]);
}

/**
 * The view's SELECT: events (a block of them, in the view) as session states; also the backfill's,
 * and a deletion's that rebuilds sessions (`where` picks the events).
 */
export function sessionStatesSelect(engine: AnalyticsEngine, where: ChSql = raw('1')): ChSql {
  const states = sessionColumns()
    .map(([name, , state]) => `${state} AS \`${name}\``)
    .join(',\n      ');
  return ch`SELECT team_id, session_id,
      ${raw(states)}
    FROM ${raw(engine.table('events'))}
    WHERE session_id != '' AND ${where}
    GROUP BY team_id, session_id`;
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
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${engine.table('sessions_mv')}${onCluster} TO ${engine.table('sessions')}
    AS ${sessionStatesSelect(engine).compile().sql}`,
  ];
}

/**
 * Sessions of the events stored before the view existed: once, after the table and the view are
 * made (events stored meanwhile are counted by both, which changes nothing).
 */
export async function backfillSessions(engine: AnalyticsEngine, onCluster: string): Promise<void> {
  // The database the table is in (an embedded engine shared by servers of one process names it after the folder).
  const database = /^`([^`]+)`\./.exec(engine.table('sessions'))?.[1] ?? engine.database;
  const [table] = await engine.query<{ comment: string }>(
    'SELECT comment FROM system.tables WHERE database = {database:String} AND name = {name:String}',
    { database, name: 'sessions' },
  );
  if (table?.comment !== BACKFILL_PENDING) return;
  await engine.command(`INSERT INTO ${engine.table('sessions')} ${sessionStatesSelect(engine).compile().sql}`);
  await engine.command(`ALTER TABLE ${engine.table('sessions')}${onCluster} MODIFY COMMENT ''`);
}
