import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { compileClickHouseRegex } from '../lib/linear-regex.js';
import { propertyNumber } from '../events/sessions-table.js';
import { WEB_VITALS_METRICS, WEB_VITALS_QUANTILE, type PathCleaningFilter, type WebVitalsMetric } from '../recordings/core/index.js';

export interface WebVitalsQuery {
  teamId: number;
  event: string;
  /** The window, epoch milliseconds, both ends included. */
  from: number;
  to: number;
  /** Weeks start on Sunday (0) or Monday (1). */
  weekStartDay: 0 | 1;
  /** The path asked for, cleaned; events' paths are compared once cleaned by `filters`. */
  target: string;
  filters: readonly PathCleaningFilter[];
}

/**
 * An event's path as the core reads it: `$pathname` when it is text, else the path of an absolute
 * `$current_url` (`/` when it has none, as a URL parser gives).
 */
const EVENT_PATH = `if(JSONType(properties, '$pathname') = 'String', mat_pathname,
    if(JSONType(properties, '$current_url') = 'String' AND protocol(mat_current_url) != '',
      if(path(mat_current_url) = '', '/', path(mat_current_url)), NULL))`;

/** The team's path cleaning rules in order, each a `replaceRegexpAll`; those RE2 refuses are skipped (as the core does). */
function cleanedPath(filters: readonly PathCleaningFilter[]): ChSql {
  let path = raw(EVENT_PATH);
  for (const filter of filters) {
    if (!filter || typeof filter.regex !== 'string' || !compileClickHouseRegex(filter.regex)) continue;
    path = ch`replaceRegexpAll(${path}, ${filter.regex}, ${String(filter.alias ?? '')})`;
  }
  return path;
}

/**
 * The p90 of each metric per week of the window, for the events of the path: week start (ISO
 * day) → metric → p90, a metric without a value in a week left out. Aggregated in ClickHouse
 * (`quantile`, as PostHog's trends), only the window's events of that name read.
 */
export async function webVitalsByWeek(
  analytics: AnalyticsEngine,
  query: WebVitalsQuery,
): Promise<Map<string, Partial<Record<WebVitalsMetric, number>>>> {
  const metrics = WEB_VITALS_METRICS.map(
    (metric) => ch`quantile(${raw(String(WEB_VITALS_QUANTILE))})(${raw(propertyNumber(`$web_vitals_${metric}_value`))}) AS ${raw(metric)}`,
  );
  const { sql, params } = ch`SELECT toString(toStartOfWeek(timestamp, ${raw(String(query.weekStartDay))})) AS week, ${join(metrics)}
    FROM ${raw(analytics.table('events'))}
    WHERE team_id = ${query.teamId} AND event = ${query.event}
      AND timestamp >= ${chTime(new Date(query.from))} AND timestamp <= ${chTime(new Date(query.to))}
      AND ${cleanedPath(query.filters)} = ${query.target}
    GROUP BY week`.compile();
  const rows = await analytics.query<{ week: string } & Record<WebVitalsMetric, number | null>>(sql, params);
  const byWeek = new Map<string, Partial<Record<WebVitalsMetric, number>>>();
  for (const row of rows) {
    const values: Partial<Record<WebVitalsMetric, number>> = {};
    for (const metric of WEB_VITALS_METRICS) {
      const value = row[metric];
      if (typeof value === 'number' && Number.isFinite(value)) values[metric] = value;
    }
    byWeek.set(row.week, values);
  }
  return byWeek;
}
