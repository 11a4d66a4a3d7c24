/**
 * Retention counted by ClickHouse: per person the cohorts they are in (the periods of the window,
 * by index, in which they did the target event; for a first-time retention only the period of their
 * first such event ever, when the window holds it) and the periods they did the returning event in;
 * then, per cohort and interval, the persons. Persons are counted through merges.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, raw, type ChSql } from '../platform/analytics/sql.js';
import { personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import { filtersCondition } from './funnels-store.js';
import { bucketStart, run, TEAM } from './trends-store.js';
import type { RetentionCell, RetentionEntity, RetentionQuery } from './retention.js';
import type { TrendsWindow } from './trends-window.js';
import type { ActorRow } from './actors-query.js';

const named = (entity: RetentionEntity): ChSql => (entity.event === null ? raw('1') : ch`e.event = ${entity.event}`);
const matches = (entity: RetentionEntity): ChSql => ch`(${named(entity)} AND ${filtersCondition(entity.properties)})`;

/** The index of the window's period holding `time` (-1 outside it). */
function periodIndex(window: TrendsWindow, query: RetentionQuery, time: ChSql): ChSql {
  const starts = window.buckets.map((b) => Math.round(b.getTime() / 1000));
  return ch`(indexOf(${starts}, toUnixTimestamp(${bucketStart(query.period, window, time)})) - 1)`;
}

const EVENTS_OF_PERSONS = (analytics: AnalyticsEngine) => raw(`${analytics.table('events')} AS e ${personOverridesJoin(analytics, TEAM)}`);

/**
 * The first time each person did the target event: its period's index. For a first ever
 * occurrence, the person's first event of that name must itself match the filters (PostHog's
 * `min_ts == min_ts_with_props`); otherwise the first event that matches them.
 */
function firstTimes(analytics: AnalyticsEngine, query: RetentionQuery, window: TrendsWindow): ChSql {
  const global = filtersCondition(query.properties);
  const first =
    query.retentionType === 'retention_first_ever_occurrence'
      ? ch`SELECT ${raw(personIdExpression())} AS person, min(e.timestamp) AS first
          FROM ${EVENTS_OF_PERSONS(analytics)}
          WHERE e.team_id = ${raw(TEAM)} AND ${named(query.target)}
          GROUP BY person
          HAVING first = minIf(e.timestamp, ${filtersCondition(query.target.properties)} AND ${global})`
      : ch`SELECT ${raw(personIdExpression())} AS person, min(e.timestamp) AS first
          FROM ${EVENTS_OF_PERSONS(analytics)}
          WHERE e.team_id = ${raw(TEAM)} AND ${matches(query.target)} AND ${global}
          GROUP BY person`;
  return ch`SELECT person, [${periodIndex(window, query, raw('first'))}] AS starts FROM (${first})
      WHERE first >= ${chTime(window.from)} AND first < ${chTime(window.to)}`;
}

/** Per person in the window: the periods with a target event (`starts`) and with a returning event (`returns`). */
function periods(analytics: AnalyticsEngine, query: RetentionQuery, window: TrendsWindow): ChSql {
  return ch`SELECT person, groupUniqArrayIf(p, is_target) AS starts, groupUniqArrayIf(p, is_return) AS returns
      FROM (
        SELECT ${raw(personIdExpression())} AS person, ${periodIndex(window, query, raw('e.timestamp'))} AS p,
          ${matches(query.target)} AS is_target, ${matches(query.returning)} AS is_return
        FROM ${EVENTS_OF_PERSONS(analytics)}
        WHERE e.team_id = ${raw(TEAM)} AND e.timestamp >= ${chTime(window.from)} AND e.timestamp < ${chTime(window.to)}
          AND ${filtersCondition(query.properties)} AND (${matches(query.target)} OR ${matches(query.returning)})
      )
      WHERE p >= 0
      GROUP BY person`;
}

/**
 * Per person and cohort they are in: the intervals they count in (0, the cohort itself, and each
 * later period of the lookahead they did the returning event in; cumulative: every interval up to
 * the last of those).
 */
function memberships(analytics: AnalyticsEngine, query: RetentionQuery, window: TrendsWindow): ChSql {
  const cohorts =
    query.retentionType === 'retention_recurring'
      ? periods(analytics, query, window)
      : ch`SELECT f.person AS person, f.starts AS starts, p.returns AS returns
          FROM (${firstTimes(analytics, query, window)}) AS f
          LEFT JOIN (${periods(analytics, query, window)}) AS p ON p.person = f.person`;
  const lookahead = raw(String(query.totalIntervals));
  const intervals = query.cumulative ? raw('range(arrayMax(arrayConcat([0], later)) + 1)') : raw('arrayConcat([0], later)');
  return ch`SELECT person, cohort, ${intervals} AS intervals
      FROM (
        SELECT person, cohort, arrayFilter(d -> d > 0 AND d < ${lookahead}, arrayMap(r -> r - cohort, returns)) AS later
        FROM (${cohorts})
        ARRAY JOIN starts AS cohort
        WHERE cohort >= 0
      )`;
}

/** Persons per cohort and interval; none for an empty window. */
export async function countRetention(
  analytics: AnalyticsEngine,
  teamId: number,
  query: RetentionQuery,
  window: TrendsWindow,
): Promise<RetentionCell[]> {
  if (window.buckets.length === 0) return [];
  const rows = await run<{ cohort: number | string; interval: number | string; persons: number | string }>(
    analytics,
    teamId,
    ch`SELECT cohort, interval, count() AS persons
      FROM (SELECT cohort, arrayJoin(intervals) AS interval FROM (${memberships(analytics, query, window)}))
      GROUP BY cohort, interval`,
  );
  return rows.map((row) => ({ cohort: Number(row.cohort), interval: Number(row.interval), persons: Number(row.persons) }));
}

/**
 * A page of one cohort's persons (PostHog's retention actors), each with the intervals they count
 * in, those back most often first, then by uuid; `limit + 1` rows so the caller can tell whether
 * more follow.
 */
export async function retentionActors(
  analytics: AnalyticsEngine,
  teamId: number,
  query: RetentionQuery,
  window: TrendsWindow,
  cohort: number,
  page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  if (window.buckets.length === 0) return [];
  const rows = await run<{ person: string; intervals: Array<number | string> }>(
    analytics,
    teamId,
    ch`SELECT toString(person) AS person, intervals FROM (${memberships(analytics, query, window)})
      WHERE cohort = ${cohort}
      ORDER BY length(intervals) DESC, person ASC
      LIMIT ${raw(String(page.limit + 1))} OFFSET ${raw(String(page.offset))}`,
  );
  return rows.map((row) => ({ person: row.person, eventCount: 0, distinctIds: [], events: [], appearances: row.intervals.map(Number) }));
}
