/**
 * Trends computed by ClickHouse: per series one GROUP BY over the environment's events of the
 * window, by bucket (toStartOfDay/Hour/Week/Month in the environment's time zone, as the window's
 * buckets are cut) and breakdown value. Only the aggregates come back (trends-results.ts fills
 * the empty buckets).
 *
 * Unique users count the person each event belongs to now (person overrides: a person merged
 * into another by $identify or $create_alias counts once).
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { materializedColumn, personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import {
  compileClickHouseCondition,
  propertyNumber,
  propertyText,
  type PropertySource,
} from '../posthog/clickhouse-property-conditions.js';
import { InvalidPropertyFilter, readPropertyCondition } from '../posthog/property-conditions.js';
import type { PropertyFilterInput } from './properties.js';
import {
  BREAKDOWN_NULL,
  BREAKDOWN_OTHER,
  seriesResults,
  totalResults,
  type SeriesCells,
  type TrendsCell,
  type TrendsResult,
} from './trends-results.js';
import type { Interval, TrendsWindow } from './trends-window.js';
import type { TrendsMath, TrendsQuery, TrendsSeries } from './trends.js';

const SOURCE: PropertySource = { column: 'e.properties', columnOf: materializedColumn };
/** The environment's id, bound once for the whole statement (the person overrides' join uses it too). */
export const TEAM = '{team:Int64}';

/** PostHog's trends result of the query over `window`: one entry per series (per breakdown value when broken down). */
export async function computeTrends(
  analytics: AnalyticsEngine,
  teamId: number,
  query: TrendsQuery,
  window: TrendsWindow,
): Promise<TrendsResult[]> {
  const computed = await Promise.all(query.series.map((series) => seriesCells(analytics, teamId, query, series, window)));
  if (query.totalValue) return query.series.flatMap((series, order) => totalResults(series, order, computed[order]!));
  return query.series.flatMap((series, order) => seriesResults(series, order, window, computed[order]!, query.cumulative));
}

/** The environment's first event's time (to the second), null before any. */
export async function earliestEvent(analytics: AnalyticsEngine, teamId: number): Promise<Date | null> {
  const [row] = await run<{ first: number | string; n: number | string }>(
    analytics,
    teamId,
    raw(`SELECT toUnixTimestamp(min(e.timestamp)) AS first, count() AS n FROM ${analytics.table('events')} AS e WHERE e.team_id = ${TEAM}`),
  );
  return row && Number(row.n) > 0 ? new Date(Number(row.first) * 1000) : null;
}

export async function run<T>(analytics: AnalyticsEngine, teamId: number, statement: ChSql): Promise<T[]> {
  const { sql, params } = statement.compile();
  return analytics.query<T>(sql, { ...params, team: teamId });
}

/**
 * One filter of a trends series or a funnel step as ClickHouse's condition. A regular expression
 * RE2 does not take matches nothing (its negation everything), as insights have always read it,
 * rather than failing the whole insight.
 */
export function filterCondition(filter: PropertyFilterInput): ChSql | null {
  try {
    // A filter sent without a value compares with None in PostHog.
    return compileClickHouseCondition(readPropertyCondition({ ...filter, value: filter.value ?? null }, 'insights'), SOURCE);
  } catch (error) {
    if (error instanceof InvalidPropertyFilter && (filter.operator === 'regex' || filter.operator === 'not_regex')) {
      return raw(filter.operator === 'regex' ? '0' : '1');
    }
    throw error;
  }
}

/** The series' events from `from` (or the window's start) to the window's end. */
function eventsWhere(query: TrendsQuery, series: TrendsSeries, window: TrendsWindow, from?: ChSql): ChSql {
  return seriesEventsWhere(query, series, [from ?? ch`e.timestamp >= ${chTime(window.from)}`, ch`e.timestamp < ${chTime(window.to)}`]);
}

/** The series' events (its event and filters, the query's filters) within the `time` conditions. */
export function seriesEventsWhere(query: TrendsQuery, series: TrendsSeries, time: ChSql[]): ChSql {
  const parts = [raw(`e.team_id = ${TEAM}`), ...time];
  if (series.event !== null) parts.push(ch`e.event = ${series.event}`);
  for (const filter of [...query.properties, ...series.properties]) {
    const condition = filterCondition(filter);
    if (condition) parts.push(condition);
  }
  return join(parts, ' AND ');
}

/** The local start of the bucket holding `time` (a DateTime in the environment's zone). */
export function bucketStart(interval: Interval, window: TrendsWindow, time: ChSql): ChSql {
  const tz = window.timezone;
  switch (interval) {
    case 'hour':
      return ch`toStartOfHour(${time}, ${tz})`;
    case 'day':
      return ch`toStartOfDay(${time}, ${tz})`;
    case 'week':
      // Sunday or Monday first (mode 0 or 1), as the environment's week_start_day.
      return ch`toDateTime(toStartOfWeek(${time}, ${raw(String(window.weekStart))}, ${tz}), ${tz})`;
    case 'month':
      return ch`toDateTime(toStartOfMonth(${time}, ${tz}), ${tz})`;
  }
}

/** The breakdown value: the property as text, PostHog's null label when missing, null or empty. */
export function breakdownValue(key: string): ChSql {
  return ch`coalesce(nullIf(${propertyText(SOURCE, key)}, ''), ${BREAKDOWN_NULL})`;
}

/** PostHog falls back to unique users for weekly active users by week or month, monthly ones by month. */
export function effectiveMath(math: TrendsMath, interval: Interval): TrendsMath {
  if (math === 'weekly_active' && (interval === 'week' || interval === 'month')) return 'dau';
  if (math === 'monthly_active' && interval === 'month') return 'dau';
  return math;
}

const QUANTILES: Partial<Record<TrendsMath, number>> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };

/** The aggregate of a bucket, as PostHog's AggregationOperations: property maths read the property as a number, 0 without one. */
function aggregate(series: TrendsSeries, math: TrendsMath): ChSql {
  if (math === 'dau') return ch`uniqExact(${raw(personIdExpression())})`;
  if (math === 'unique_session') return raw(`uniqExactIf(e.session_id, e.session_id != '')`);
  if (series.mathProperty === null) return raw('count()');
  const number = propertyNumber(SOURCE, series.mathProperty);
  const quantile = QUANTILES[math];
  if (quantile !== undefined) return ch`ifNull(quantile(${raw(String(quantile))})(${number}), 0)`;
  if (math === 'sum' || math === 'avg' || math === 'min' || math === 'max') return ch`ifNull(${raw(math)}(${number}), 0)`;
  return raw('count()');
}

interface Ranked {
  value: string;
  n: number;
}

/** The `limit` breakdown values to show, by events in the window (most first, then by value), then BREAKDOWN_OTHER when more are left. */
export async function rankValues(analytics: AnalyticsEngine, teamId: number, key: string, limit: number, where: ChSql): Promise<string[]> {
  const rows = await run<Ranked>(
    analytics,
    teamId,
    ch`SELECT ${breakdownValue(key)} AS value, count() AS n FROM ${raw(analytics.table('events'))} AS e
      WHERE ${where} GROUP BY value ORDER BY n DESC, value LIMIT ${raw(String(limit + 1))}`,
  );
  const values = rows.slice(0, limit).map((r) => r.value);
  return rows.length > limit ? [...values, BREAKDOWN_OTHER] : values;
}

async function seriesCells(
  analytics: AnalyticsEngine,
  teamId: number,
  query: TrendsQuery,
  series: TrendsSeries,
  window: TrendsWindow,
): Promise<SeriesCells> {
  if (window.buckets.length === 0) return { values: query.breakdown === null ? null : [], cells: [] };
  const where = eventsWhere(query, series, window);
  let values: string[] | null = null;
  let value = ch`''`;
  if (query.breakdown !== null) {
    values = await rankValues(analytics, teamId, query.breakdown, query.breakdownLimit, where);
    if (values.length === 0) return { values, cells: [] };
    const shown = breakdownValue(query.breakdown);
    const top = values.filter((v) => v !== BREAKDOWN_OTHER);
    value = values.includes(BREAKDOWN_OTHER) ? ch`if(${shown} IN ${top}, ${shown}, ${BREAKDOWN_OTHER})` : shown;
  }
  const math = effectiveMath(series.math, query.interval);
  // A total-value display: one aggregate over the whole window (bucket 0).
  const bucket = query.totalValue ? raw('0') : ch`toUnixTimestamp(${bucketStart(query.interval, window, raw('e.timestamp'))})`;
  if (query.cumulative && math === 'dau')
    return { values, cells: await firstSeenUsers(analytics, teamId, query.interval, window, where, value) };
  const active = math === 'weekly_active' || math === 'monthly_active';
  if (active && query.totalValue) {
    return { values, cells: await activeUsersTotal(analytics, teamId, query, series, window, value, math === 'weekly_active' ? 7 : 30) };
  }
  const cells = active
    ? await activeUsers(analytics, teamId, query, series, window, value, math === 'weekly_active' ? 7 : 30)
    : await run<TrendsCell>(
        analytics,
        teamId,
        ch`SELECT ${bucket} AS bucket, ${value} AS value,
              ${aggregate(series, math)} AS total
            FROM ${raw(analytics.table('events'))} AS e ${raw(math === 'dau' ? personOverridesJoin(analytics, TEAM) : '')}
            WHERE ${where} GROUP BY bucket, value`,
      );
  return { values, cells };
}

/**
 * Unique users for a cumulative display, as PostHog counts them: each person (per breakdown value)
 * once, in the bucket of their first event in the window; the running sum makes the line.
 */
async function firstSeenUsers(
  analytics: AnalyticsEngine,
  teamId: number,
  interval: Interval,
  window: TrendsWindow,
  where: ChSql,
  value: ChSql,
): Promise<TrendsCell[]> {
  return run<TrendsCell>(
    analytics,
    teamId,
    ch`SELECT toUnixTimestamp(${bucketStart(interval, window, raw('first'))}) AS bucket, value, count() AS total
      FROM (
        SELECT ${raw(personIdExpression())} AS person, ${value} AS value, min(e.timestamp) AS first
        FROM ${raw(analytics.table('events'))} AS e ${raw(personOverridesJoin(analytics, TEAM))}
        WHERE ${where}
        GROUP BY person, value
      )
      GROUP BY bucket, value`,
  );
}

/**
 * Weekly or monthly active users as one value over the range, as PostHog's total-value displays
 * count them: the persons active in the trailing window of any day of the range, that is with an
 * event after the first day's start less `days - 1` local days.
 */
async function activeUsersTotal(
  analytics: AnalyticsEngine,
  teamId: number,
  query: TrendsQuery,
  series: TrendsSeries,
  window: TrendsWindow,
  value: ChSql,
  days: number,
): Promise<TrendsCell[]> {
  const from = ch`e.timestamp > toTimeZone(${chTime(window.from)}, ${window.timezone}) - toIntervalDay(${days - 1})`;
  return run<TrendsCell>(
    analytics,
    teamId,
    ch`SELECT 0 AS bucket, ${value} AS value, uniqExact(${raw(personIdExpression())}) AS total
      FROM ${raw(analytics.table('events'))} AS e ${raw(personOverridesJoin(analytics, TEAM))}
      WHERE ${eventsWhere(query, series, window, from)}
      GROUP BY value`,
  );
}

/**
 * Weekly or monthly active users, as PostHog counts them: for a bucket starting at d, the persons
 * with an event in (d - (days - 1) days, d + 1 day], in local calendar days. The events are
 * reduced to (person, value, slot) first, the slot being the local day (hour, by hour) that ends
 * at or after the event, which decides the windows it falls in; each slot then lists the bucket
 * starts whose window holds it, and only the window's own buckets are kept.
 */
async function activeUsers(
  analytics: AnalyticsEngine,
  teamId: number,
  query: TrendsQuery,
  series: TrendsSeries,
  window: TrendsWindow,
  value: ChSql,
  days: number,
): Promise<TrendsCell[]> {
  const tz = window.timezone;
  // Just before the event: an event at midnight belongs to the day that ends then.
  const before = raw('e.timestamp - toIntervalMicrosecond(1)');
  const slot = query.interval === 'hour' ? ch`toStartOfHour(${before}, ${tz})` : ch`toStartOfDay(${before}, ${tz})`;
  // Day slots s: the buckets starting on s .. s + days - 1. Hour slots s (ending at s + 1h): the
  // hours d with d + 1 day >= s + 1h and d - (days - 1) days < s + 1h.
  const candidates =
    query.interval === 'hour'
      ? raw(
          `arrayFilter(d -> d <= addDays(s, ${days - 1}), arrayMap(k -> addHours(addDays(s + toIntervalHour(1), -1), k), range(${24 * days + 1})))`,
        )
      : raw(`arrayMap(k -> addDays(s, k), range(${days}))`);
  const starts = window.buckets.map((b) => Math.round(b.getTime() / 1000));
  const from = ch`e.timestamp >= ${chTime(window.from)} - toIntervalDay(${days + 1})`;
  return run<TrendsCell>(
    analytics,
    teamId,
    ch`SELECT toUnixTimestamp(d) AS bucket, value, uniqExact(person) AS total
      FROM (
        SELECT DISTINCT ${raw(personIdExpression())} AS person, ${value} AS value, ${slot} AS s
        FROM ${raw(analytics.table('events'))} AS e ${raw(personOverridesJoin(analytics, TEAM))}
        WHERE ${eventsWhere(query, series, window, from)}
      )
      ARRAY JOIN ${candidates} AS d
      WHERE toUnixTimestamp(d) IN ${starts}
      GROUP BY bucket, value`,
  );
}
