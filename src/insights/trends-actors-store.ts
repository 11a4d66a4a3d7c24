/**
 * The persons behind one value of a trends answer (PostHog's InsightActorsQuery over a TrendsQuery):
 * the persons with events of the series in that value's time span and breakdown value, each with
 * how many of those events are theirs. The time span is the one the value was counted over, so for
 * unique users (daily, weekly or monthly active) the persons listed are the persons counted.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, raw, type ChSql } from '../platform/analytics/sql.js';
import { personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import { BREAKDOWN_OTHER } from './trends-results.js';
import { breakdownValue, effectiveMath, rankValues, run, seriesEventsWhere, TEAM } from './trends-store.js';
import type { TrendsWindow } from './trends-window.js';
import type { TrendsQuery, TrendsSeries } from './trends.js';
import type { ActorRow } from './actors-query.js';
import { ACTOR_AGGREGATES, actorRow, type ActorAggregates } from './actors-columns.js';

/** One value of a trends answer: a series in one period's window, a bucket of it (null: the whole window), a breakdown value. */
export interface TrendsPoint {
  series: TrendsSeries;
  window: TrendsWindow;
  bucket: number | null;
  /** null without a breakdown. */
  breakdown: string | null;
}

/** The time conditions of the point: the span its value was counted over (trends-store.ts). */
function spanOf(query: TrendsQuery, point: TrendsPoint): ChSql[] {
  const { window, bucket } = point;
  const tz = window.timezone;
  const math = effectiveMath(point.series.math, query.interval);
  const activeDays = math === 'weekly_active' ? 7 : math === 'monthly_active' ? 30 : 0;
  if (bucket === null) {
    const from = activeDays
      ? ch`e.timestamp > toTimeZone(${chTime(window.from)}, ${tz}) - toIntervalDay(${activeDays - 1})`
      : ch`e.timestamp >= ${chTime(window.from)}`;
    return [from, ch`e.timestamp < ${chTime(window.to)}`];
  }
  const start = window.buckets[bucket]!;
  const end = window.buckets[bucket + 1] ?? window.to;
  if (activeDays) {
    // An active-users bucket starting at d counts the events in (d - (days - 1) local days, d + 1 local day];
    // a cumulative line sums the buckets up to it, so its persons are those of any of their spans.
    const d = ch`toTimeZone(${chTime(start)}, ${tz})`;
    const first = query.cumulative ? ch`toTimeZone(${chTime(window.from)}, ${tz})` : d;
    return [ch`e.timestamp > ${first} - toIntervalDay(${activeDays - 1})`, ch`e.timestamp <= ${d} + toIntervalDay(1)`];
  }
  // A cumulative value counts everything from the range's start.
  return [ch`e.timestamp >= ${chTime(query.cumulative ? window.from : start)}`, ch`e.timestamp < ${chTime(end)}`];
}

/** The breakdown condition: the value itself, or for "other" none of the values shown. */
async function breakdownCondition(
  analytics: AnalyticsEngine,
  teamId: number,
  query: TrendsQuery,
  point: TrendsPoint,
): Promise<ChSql | null> {
  if (query.breakdown === null || point.breakdown === null) return null;
  const value = breakdownValue(query.breakdown);
  if (point.breakdown !== BREAKDOWN_OTHER) return ch`${value} = ${point.breakdown}`;
  // The values shown are those ranked over the period's window, as the answer ranked them.
  const ranked = seriesEventsWhere(query, point.series, [
    ch`e.timestamp >= ${chTime(point.window.from)}`,
    ch`e.timestamp < ${chTime(point.window.to)}`,
  ]);
  const top = (await rankValues(analytics, teamId, query.breakdown, query.breakdownLimit, ranked)).filter((v) => v !== BREAKDOWN_OTHER);
  return top.length === 0 ? null : ch`${value} NOT IN ${top}`;
}

/**
 * A page of the point's persons, most events first, then by uuid descending; `limit + 1` rows are
 * asked for so the caller can tell whether more follow.
 */
export async function trendsActors(
  analytics: AnalyticsEngine,
  teamId: number,
  query: TrendsQuery,
  point: TrendsPoint,
  page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  const conditions = [...spanOf(query, point)];
  const breakdown = await breakdownCondition(analytics, teamId, query, point);
  if (breakdown) conditions.push(breakdown);
  const rows = await run<ActorAggregates>(
    analytics,
    teamId,
    ch`SELECT toString(${raw(personIdExpression())}) AS person, ${ACTOR_AGGREGATES}
      FROM ${raw(analytics.table('events'))} AS e ${raw(personOverridesJoin(analytics, TEAM))}
      WHERE ${seriesEventsWhere(query, point.series, conditions)}
      GROUP BY person
      ORDER BY event_count DESC, person DESC
      LIMIT ${raw(String(page.limit + 1))} OFFSET ${raw(String(page.offset))}`,
  );
  return rows.map(actorRow);
}
