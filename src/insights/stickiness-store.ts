/**
 * Stickiness computed by ClickHouse, and its `query/` runner: per series, each person's active
 * buckets of the window (local toStartOfDay/Hour/Week/Month, as trends cut them), then how many
 * persons had 1, 2, … of them. Only those counts come back (stickiness.ts fills the rest with 0).
 *
 * A person is the one each event belongs to now (person overrides): someone merged by $identify
 * counts once, with the buckets of all their distinct ids together.
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, raw, type ChSql } from '../platform/analytics/sql.js';
import type { ActorRow } from './actors-query.js';
import { trendsPeriods, zoneOfTeam } from './query-window.js';
import {
  criteriaOperator,
  readStickinessQuery,
  stickinessResult,
  type StickinessQuery,
  type StickinessResult,
  type StickinessRow,
} from './stickiness.js';
import { bucketStart, run, seriesEventsWhere, TEAM } from './trends-store.js';
import type { TrendsSeries } from './trends.js';
import type { TrendsWindow, TrendsZone } from './trends-window.js';

/**
 * Each person's number of active buckets of `window`. A bucket is active for a person with one of
 * the series' events in it, or with stickinessCriteria, with a number of them that passes it
 * (PostHog's `HAVING count() <op> value`).
 */
function personIntervals(query: StickinessQuery, series: TrendsSeries, window: TrendsWindow, analytics: AnalyticsEngine): ChSql {
  const where = seriesEventsWhere(query.trends, series, [
    ch`e.timestamp >= ${chTime(window.from)}`,
    ch`e.timestamp < ${chTime(window.to)}`,
  ]);
  // The value is a checked integer, so it goes in as text like the operator.
  const having = query.criteria ? raw(`count() ${criteriaOperator(query.criteria.operator)} ${query.criteria.value}`) : raw('1');
  return ch`SELECT person, count() AS intervals
        FROM (
          SELECT ${raw(personIdExpression())} AS person, ${bucketStart(query.trends.interval, window, raw('e.timestamp'))} AS bucket
          FROM ${raw(analytics.table('events'))} AS e ${raw(personOverridesJoin(analytics, TEAM))}
          WHERE ${where}
          GROUP BY person, bucket
          HAVING ${having}
        )
        GROUP BY person`;
}

/** How many persons were active in exactly k buckets of `window`, for each k seen. */
export async function countStickiness(
  analytics: AnalyticsEngine,
  teamId: number,
  query: StickinessQuery,
  series: TrendsSeries,
  window: TrendsWindow,
): Promise<StickinessRow[]> {
  if (window.buckets.length === 0) return [];
  return run<StickinessRow>(
    analytics,
    teamId,
    ch`SELECT intervals, count() AS persons FROM (${personIntervals(query, series, window, analytics)}) GROUP BY intervals`,
  );
}

/**
 * A page of the persons active in exactly `intervals` buckets (with `cumulative`, that many or
 * more), PostHog's stickiness actors, by uuid; `limit + 1` rows so the caller can tell whether
 * more follow.
 */
export async function stickinessActors(
  analytics: AnalyticsEngine,
  teamId: number,
  query: StickinessQuery,
  point: { series: TrendsSeries; window: TrendsWindow; intervals: number },
  page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  if (point.window.buckets.length === 0) return [];
  const rows = await run<{ person: string }>(
    analytics,
    teamId,
    ch`SELECT toString(person) AS person FROM (${personIntervals(query, point.series, point.window, analytics)})
      WHERE intervals ${raw(query.cumulative ? '>=' : '=')} ${point.intervals}
      ORDER BY person
      LIMIT ${raw(String(page.limit + 1))} OFFSET ${raw(String(page.offset))}`,
  );
  return rows.map((row) => ({ person: row.person, eventCount: 0, distinctIds: [], events: [] }));
}

/**
 * PostHog's StickinessQuery on `query/`: one entry per series, or with a comparison two (the
 * current period, then the previous one, each over its own number of buckets), as PostHog orders
 * them. The windows and the bound on the answer's size are the trends query's.
 */
export async function runStickiness(
  ctx: AppContext,
  team: Team,
  source: Record<string, unknown>,
  now: Date,
): Promise<Record<string, unknown>> {
  const { results, window } = await stickinessAnswer(ctx.analytics, team.id, readStickinessQuery(source), now, zoneOfTeam(team));
  return {
    results,
    timezone: window.timezone,
    resolved_date_range: { date_from: window.from.toISOString(), date_to: window.to.toISOString() },
  };
}

/** The stickiness at `now`: per series its current period's entry, then with a comparison its previous one's. */
export async function stickinessAnswer(analytics: AnalyticsEngine, teamId: number, read: StickinessQuery, now: Date, zone: TrendsZone) {
  const periods = await trendsPeriods(analytics, teamId, read.trends, now, zone);
  const query: StickinessQuery = { ...read, trends: periods.query };
  const { window, previousWindow } = periods;
  const windows = previousWindow === null ? [window] : [window, previousWindow];
  const results = await Promise.all(
    query.trends.series.flatMap((series, order) =>
      windows.map(async (w, i): Promise<StickinessResult> => {
        const rows = await countStickiness(analytics, teamId, query, series, w);
        const result = stickinessResult(query, series, order, w.buckets.length, rows);
        if (previousWindow === null) return result;
        return { ...result, compare: true, compare_label: i === 0 ? 'current' : 'previous' };
      }),
    ),
  );
  return { results, window };
}
