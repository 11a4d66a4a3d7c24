import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { materializedColumn, personIdExpression, personOverridesJoin } from '../events/analytics-columns.js';
import type { PropertyFilterInput } from './properties.js';
import type { FunnelCounts, FunnelsQuery, FunnelStep, FunnelTrendsParams, TimeToConvert, TimeToConvertParams } from './funnels.js';
import type { FunnelTrendsCell } from './funnel-trends.js';
import { bucketStart, filterCondition } from './trends-store.js';
import type { TrendsWindow } from './trends-window.js';

export function filtersCondition(filters: readonly PropertyFilterInput[]): ChSql {
  const conditions = filters.map(filterCondition).filter((c): c is ChSql => c !== null);
  return conditions.length === 0 ? raw('1') : ch`(${join(conditions, ' AND ')})`;
}

export function stepCondition(step: FunnelStep): ChSql {
  const event = step.event === null ? raw('1') : ch`e.event = ${step.event}`;
  return ch`(${event} AND ${filtersCondition(step.properties)})`;
}

/** A step repeats the one before it (the same event, at least its filters): its event must come strictly later. */
function repeatsPrevious(steps: readonly FunnelStep[], i: number): boolean {
  if (i === 0 || steps[i]!.event !== steps[i - 1]!.event) return false;
  const own = new Set(steps[i]!.properties.map((p) => JSON.stringify(p)));
  return steps[i - 1]!.properties.every((p) => own.has(JSON.stringify(p)));
}

/**
 * Each person's attempts, one per time they did the first step: the earliest next step at or after
 * the previous one and within the window, step by step (0: not reached). Step timestamps are
 * milliseconds, sorted, per step (`a0`, `a1`, …).
 */
function attempts(steps: readonly FunnelStep[]): string {
  const reached: string[] = ['t0'];
  for (let i = 1; i < steps.length; i++) {
    const after = repeatsPrevious(steps, i) ? '>' : '>=';
    const previous = `_t${i - 1}`;
    const find = `arrayFirst(x -> x ${after} ${i === 1 ? 't0' : previous} AND x <= t0 + {window_ms:Int64}, a${i})`;
    reached.push(i === 1 ? `${find} AS _t1` : `if(${previous} = 0, 0, ${find}) AS _t${i}`);
  }
  return `arrayMap(t0 -> [${reached.join(', ').replace(/^t0/, 't0 AS _t0')}], a0)`;
}

/**
 * One row per person who did any step: the `person`, the breakdown value (of their earliest
 * first step) and their attempts (`paths`, as `attempts` makes them; empty without a first step).
 */
function personPaths(engine: AnalyticsEngine, query: FunnelsQuery, range: { from: Date; to: Date }): ChSql {
  const stepColumns = query.steps.map((step, i) => ch`${stepCondition(step)} AS s${raw(String(i))}`);
  const anyStep = raw(query.steps.map((_, i) => `s${i}`).join(' OR '));
  const breakdown = query.breakdown === null ? raw('NULL') : compileBreakdown(query.breakdown);
  const arrays = query.steps.map((_, i) => raw(`arraySort(groupArrayIf(ms, s${i})) AS a${i}`));
  return ch`
            SELECT person, argMinIf(breakdown_prop, ms, s0) AS breakdown_value, ${join(arrays)}, ${raw(attempts(query.steps))} AS paths
            FROM (
              SELECT ${raw(personIdExpression())} AS person, toUnixTimestamp64Milli(e.timestamp) AS ms, ${breakdown} AS breakdown_prop,
                ${join(stepColumns)}
              FROM ${raw(engine.table('events'))} AS e
              ${raw(personOverridesJoin(engine, '{team:Int64}'))}
              WHERE e.team_id = {team:Int64} AND e.timestamp >= ${chTime(range.from)} AND e.timestamp < ${chTime(range.to)}
                AND ${filtersCondition(query.properties)}
            )
            WHERE ${anyStep}
            GROUP BY person`;
}

/**
 * One row per person who did any step: the `person`, the breakdown value, their attempts (`paths`)
 * and how many steps they reached (`level`, 0 without a first step). The counts and the funnel's
 * actors (funnel-actors-store.ts) both read these rows, so the two cannot disagree.
 */
export function personLevels(engine: AnalyticsEngine, query: FunnelsQuery, range: { from: Date; to: Date }): ChSql {
  return ch`
          SELECT person, breakdown_value, paths, if(empty(paths), 0, arrayMax(arrayMap(p -> arrayCount(x -> x != 0, p), paths))) AS level
          FROM (${personPaths(engine, query, range)})`;
}

/**
 * One row per person who did the first step: the breakdown value, how many steps they reached
 * (`level`) and, per step k after the first, `time{k}` in seconds (with milliseconds) from step
 * k - 1, of one attempt: as PostHog's funnel UDF, the one that reached the furthest step first
 * (it stops there), of those the latest started (meaningless past `level`).
 */
function personRuns(engine: AnalyticsEngine, query: FunnelsQuery, range: { from: Date; to: Date }): ChSql {
  const n = query.steps.length;
  const times = Array.from({ length: n - 1 }, (_, k) => k + 1).map((k) => raw(`(best[${k + 1}] - best[${k}]) / 1000 AS time${k}`));
  return ch`
      SELECT breakdown_value, level, ${join(times)}
      FROM (
        SELECT breakdown_value, level,
          arraySort(p -> (p[level], -p[1]), arrayFilter(p -> arrayCount(x -> x != 0, p) = level, paths))[1] AS best
        FROM (${personLevels(engine, query, range)})
        WHERE level > 0
      )`;
}

export async function run<T>(engine: AnalyticsEngine, teamId: number, query: FunnelsQuery, statement: ChSql): Promise<T[]> {
  const { sql, params } = statement.compile();
  return engine.query<T>(sql, { ...params, team: teamId, window_ms: query.windowSeconds * 1000 });
}

/** The funnel counted by ClickHouse: per breakdown value, persons per step and conversion times. */
export async function countFunnel(
  engine: AnalyticsEngine,
  teamId: number,
  query: FunnelsQuery,
  range: { from: Date; to: Date },
): Promise<FunnelCounts[]> {
  const n = query.steps.length;
  const counts = Array.from({ length: n }, (_, i) => raw(`countIf(level >= ${i + 1}) AS c${i}`));
  // PostHog's funnel leaves out conversions of no time (both steps at the same instant).
  const stats = Array.from({ length: n - 1 }, (_, k) => k + 1).map((k) => {
    const converted = `level >= ${k + 1} AND time${k} > 0`;
    return raw(`avgIf(time${k}, ${converted}) AS avg${k}, medianIf(time${k}, ${converted}) AS median${k}`);
  });
  const rows = await run<Record<string, number | string | null>>(
    engine,
    teamId,
    query,
    ch`SELECT breakdown_value, ${join(counts)}${raw(n > 1 ? ', ' : '')}${join(stats)}
      FROM (${personRuns(engine, query, range)})
      GROUP BY breakdown_value`,
  );
  return rows.map((row) => ({
    breakdownValue: row.breakdown_value === null ? null : String(row.breakdown_value),
    counts: Array.from({ length: n }, (_, i) => Number(row[`c${i}`] ?? 0)),
    averages: [null, ...Array.from({ length: n - 1 }, (_, k) => finite(row[`avg${k + 1}`]))],
    medians: [null, ...Array.from({ length: n - 1 }, (_, k) => finite(row[`median${k + 1}`]))],
  }));
}

/**
 * The histogram of conversion times from step `fromStep` to `toStep` of the persons who reached
 * `toStep`, binned by ClickHouse as PostHog's FunnelTimeToConvertUDF: bins start at the shortest
 * time (floored) and are ceil((longest - shortest) / count) seconds wide (60 when that is 0, as
 * when nobody converted), `count` being the one asked (1 to 90) or the cube root of the persons (1
 * to 60); `count + 1` bins are answered so the longest time has one. The average and median are
 * PostHog's, unrounded (null without conversions).
 */
export async function timeToConvert(
  engine: AnalyticsEngine,
  teamId: number,
  query: FunnelsQuery,
  range: { from: Date; to: Date },
  { fromStep, toStep, binCount }: TimeToConvertParams,
): Promise<TimeToConvert> {
  const total = Array.from({ length: toStep - fromStep }, (_, i) => `time${fromStep + i + 1}`).join(' + ');
  const bins = binCount === null ? 'least(60, greatest(1, toUInt64(ceil(cbrt(count())))))' : String(binCount);
  const [row] = await run<{ from_s: number; width: number; average: number | null; median: number | null; counts: Array<number | string> }>(
    engine,
    teamId,
    query,
    ch`SELECT from_s, width, average, median, arrayMap(i -> countEqual(slots, i), range(toUInt64(bins) + 1)) AS counts
      FROM (
        SELECT
          if(count() = 0, 0, floor(min(t))) AS from_s,
          if(count() = 0, 0, ceil(max(t))) AS to_s,
          if(count() = 0, NULL, avg(t)) AS average,
          if(count() = 0, NULL, median(t)) AS median,
          ${raw(bins)} AS bins,
          ceil((to_s - from_s) / bins) AS raw_width,
          if(raw_width > 0, raw_width, 60) AS width,
          arrayMap(x -> toUInt64(floor((x - from_s) / width)), groupArray(t)) AS slots
        FROM (SELECT ${raw(total)} AS t FROM (${personRuns(engine, query, range)}) WHERE level >= ${raw(String(toStep + 1))})
      )`,
  );
  const from = Number(row!.from_s);
  const width = Number(row!.width);
  return {
    bins: row!.counts.map((count, i) => [from + i * width, Number(count)]),
    average_conversion_time: finite(row!.average),
    median_conversion_time: finite(row!.median),
  };
}

/**
 * The trends view's counts (PostHog's FunnelTrends): per breakdown value and bucket of the
 * window (by the first step's time, in the environment's zone), the persons who started an
 * attempt there, each once, by the furthest step of those attempts: reaching step `fromStep`,
 * and of them `toStep`, within the conversion window. Buckets nobody entered have no row.
 */
export async function funnelTrends(
  engine: AnalyticsEngine,
  teamId: number,
  query: FunnelsQuery,
  window: TrendsWindow,
  { interval, fromStep, toStep }: FunnelTrendsParams,
): Promise<FunnelTrendsCell[]> {
  if (window.buckets.length === 0) return [];
  const entered = bucketStart(interval, window, raw('fromUnixTimestamp64Milli(toInt64(path[1]))'));
  const rows = await run<{
    breakdown_value: string | null;
    bucket: number | string;
    reached_from: number | string;
    reached_to: number | string;
  }>(
    engine,
    teamId,
    query,
    ch`SELECT breakdown_value, bucket,
        countIf(level >= ${raw(String(fromStep + 1))}) AS reached_from, countIf(level >= ${raw(String(toStep + 1))}) AS reached_to
      FROM (
        SELECT person, breakdown_value, toUnixTimestamp(${entered}) AS bucket, max(arrayCount(x -> x != 0, path)) AS level
        FROM (${personPaths(engine, query, window)})
        ARRAY JOIN paths AS path
        GROUP BY person, breakdown_value, bucket
      )
      GROUP BY breakdown_value, bucket`,
  );
  return rows.map((row) => ({
    breakdownValue: row.breakdown_value === null ? null : String(row.breakdown_value),
    bucket: Number(row.bucket),
    reachedFrom: Number(row.reached_from),
    reachedTo: Number(row.reached_to),
  }));
}

function finite(value: unknown): number | null {
  const n = Number(value);
  return value === null || value === undefined || !Number.isFinite(n) ? null : n;
}

function compileBreakdown(key: string): ChSql {
  const column = materializedColumn(key);
  return column ? raw(`e.${column}`) : ch`JSONExtract(e.properties, ${key}, 'Nullable(String)')`;
}
