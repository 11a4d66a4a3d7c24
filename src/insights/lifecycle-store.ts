/**
 * The lifecycle insight computed by ClickHouse, as PostHog's LifecycleQueryRunner does: per person
 * (through merges), the sorted local buckets with a matching event, from one bucket before the
 * window to its end; each active bucket is new, returning or resurrecting by the one before it,
 * and the bucket after an active one without activity is dormant. Only the counts per bucket and
 * status come back (lifecycle.ts fills the empty ones).
 */
import type { AppContext } from '../context.js';
import type { ActorRow } from './actors-query.js';
import type { Team } from '../environments/models.js';
import { personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { lifecycleResults, readLifecycleQuery, type LifecycleCell, type LifecycleQuery } from './lifecycle.js';
import { resolvedFrom, zoneOfTeam } from './query-window.js';
import { checkWindowWhole } from './trends-results.js';
import { bucketStart, filterCondition, run, TEAM } from './trends-store.js';
import { bucketStart as windowBucketStart, trendsWindow, type Interval, type TrendsWindow, type TrendsZone } from './trends-window.js';

/**
 * How far past a bucket's start an instant surely lies in the next bucket, whatever the DST shift
 * (days are 23 to 25 hours, months 28 to 31 days). By hour, the next bucket is the local hour
 * holding start + 1 h, as trends-window.ts's nextBucket cuts the window.
 */
const INTO_NEXT_BUCKET_S: Record<Interval, number> = {
  hour: 3600,
  day: 36 * 3600,
  week: 10 * 86400,
  month: 45 * 86400,
};

/** Events without a person profile (`$process_person_profile: false`) count for nobody, as PostHog leaves them out. */
const PERSONFUL = raw(`ifNull(JSONExtract(e.properties, '$process_person_profile', 'Nullable(String)') != 'false', 1)`);

/** The lifecycle at `now`, over the trends window of its range in the environment's zone. */
export async function lifecycleAnswer(analytics: AnalyticsEngine, teamId: number, read: LifecycleQuery, now: Date, zone: TrendsZone) {
  const { query, window } = await lifecycleWindow(analytics, teamId, read, now, zone);
  const cells = window.buckets.length === 0 ? [] : await countLifecycle(analytics, teamId, query, window);
  return { results: lifecycleResults(query, window, cells), window };
}

/** PostHog's `query/` answer to a LifecycleQuery. */
export async function runLifecycle(
  ctx: AppContext,
  team: Team,
  source: Record<string, unknown>,
  now: Date,
): Promise<Record<string, unknown>> {
  const { results, window } = await lifecycleAnswer(ctx.analytics, team.id, readLifecycleQuery(source), now, zoneOfTeam(team));
  return {
    results,
    timezone: window.timezone,
    resolved_date_range: { date_from: window.from.toISOString(), date_to: window.to.toISOString() },
  };
}

/** The query with `all` resolved, and its window at `now` in the environment's zone, checked whole. */
export async function lifecycleWindow(analytics: AnalyticsEngine, teamId: number, read: LifecycleQuery, now: Date, zone: TrendsZone) {
  const query = { ...read, dateFrom: await resolvedFrom(analytics, teamId, read.dateFrom, now) };
  const window = trendsWindow(query, now, zone);
  checkWindowWhole(window, query.interval);
  return { query, window };
}

/** The bucket start (Unix seconds) of the instant `seconds` (Unix seconds) in the window's zone and week. */
function startOf(query: LifecycleQuery, window: TrendsWindow, seconds: string): ChSql {
  return ch`toUnixTimestamp(${bucketStart(query.interval, window, raw(`toDateTime(${seconds})`))})`;
}

/**
 * Each person's (bucket, status) within the window. A person's `created_at` is PostHog's for "new";
 * Hoglet's persons are not in ClickHouse, so it is the time of the person's first event ever (any
 * event with a person profile, through merges), which is what PostHog sets it from when it
 * processes that event: a person is new in the bucket of their first event only.
 */
function statuses(analytics: AnalyticsEngine, query: LifecycleQuery, window: TrendsWindow): ChSql {
  const events = raw(analytics.table('events'));
  const person = raw(personIdExpression());
  const overrides = raw(personOverridesJoin(analytics, TEAM));
  // One bucket before the window: it decides the first bucket's returning, resurrecting and dormant.
  const lookBack = windowBucketStart(new Date(window.from.getTime() - 1), query.interval, window.timezone, window.weekStart);
  const where = [raw(`e.team_id = ${TEAM}`), PERSONFUL, ch`e.timestamp >= ${chTime(lookBack)}`, ch`e.timestamp < ${chTime(window.to)}`];
  if (query.event !== null) where.push(ch`e.event = ${query.event}`);
  for (const filter of query.properties) {
    const condition = filterCondition(filter);
    if (condition) where.push(condition);
  }
  const next = String(INTO_NEXT_BUCKET_S[query.interval]);
  // Per person: `periods` the sorted active buckets, `previous` the bucket before each (the
  // creation's for the first), `following` the active bucket after each (0 after the last).
  return ch`SELECT person, cell.1 AS bucket, cell.2 AS status
      FROM (
        SELECT
          a.person AS person,
          a.periods AS periods,
          arrayPopBack(arrayPushFront(periods, ${startOf(query, window, 'c.first')})) AS previous,
          arrayPopFront(arrayPushBack(periods, 0)) AS following,
          arrayMap((p, prev, j) -> (p, multiIf(
              prev = p, 'new',
              j > 1 AND ${startOf(query, window, 'p - 1')} = prev, 'returning',
              'resurrecting')), periods, previous, arrayEnumerate(periods)) AS active,
          arrayMap((p, f) -> (${startOf(query, window, `p + ${next}`)}, f), periods, following) AS after,
          arrayMap(x -> (x.1, 'dormant'), arrayFilter(x -> x.1 != x.2, after)) AS dormant,
          arrayConcat(active, dormant) AS cells
        FROM (
          SELECT ${person} AS person, toUnixTimestamp(min(e.timestamp)) AS first
          FROM ${events} AS e ${overrides}
          WHERE e.team_id = ${raw(TEAM)} AND ${PERSONFUL} AND e.timestamp < ${chTime(window.to)}
          GROUP BY person
        ) AS c
        -- The active persons on the right: the side ClickHouse holds in memory, and the smaller.
        INNER JOIN (
          SELECT ${person} AS person, arraySort(groupUniqArray(${startOf(query, window, 'e.timestamp')})) AS periods
          FROM ${events} AS e ${overrides}
          WHERE ${join(where, ' AND ')}
          GROUP BY person
        ) AS a ON a.person = c.person
      )
      ARRAY JOIN cells AS cell
      WHERE cell.1 >= ${Math.round(window.from.getTime() / 1000)} AND cell.1 < ${Math.round(window.to.getTime() / 1000)}`;
}

/** Persons per (bucket, status) within the window. */
export async function countLifecycle(
  analytics: AnalyticsEngine,
  teamId: number,
  query: LifecycleQuery,
  window: TrendsWindow,
): Promise<LifecycleCell[]> {
  return run<LifecycleCell>(
    analytics,
    teamId,
    ch`SELECT bucket, status, count() AS total FROM (${statuses(analytics, query, window)}) GROUP BY bucket, status`,
  );
}

/**
 * A page of the persons of one status in the bucket starting at `bucket` (PostHog's lifecycle
 * actors), by uuid; `limit + 1` rows so the caller can tell whether more follow.
 */
export async function lifecycleActors(
  analytics: AnalyticsEngine,
  teamId: number,
  query: LifecycleQuery,
  window: TrendsWindow,
  point: { bucket: Date; status: string },
  page: { limit: number; offset: number },
): Promise<ActorRow[]> {
  if (window.buckets.length === 0) return [];
  const rows = await run<{ person: string }>(
    analytics,
    teamId,
    ch`SELECT toString(person) AS person FROM (${statuses(analytics, query, window)})
      WHERE bucket = ${Math.round(point.bucket.getTime() / 1000)} AND status = ${point.status}
      ORDER BY person
      LIMIT ${raw(String(page.limit + 1))} OFFSET ${raw(String(page.offset))}`,
  );
  return rows.map((row) => ({ person: row.person, eventCount: 0, distinctIds: [], events: [] }));
}
