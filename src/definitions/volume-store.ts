import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, raw, typed } from '../platform/analytics/sql.js';

const THIRTY_DAYS_MS = 30 * 24 * 3_600_000;

/**
 * How many events of each name the project's environments stored in the last 30 days (PostHog's
 * `volume_30_day`; a definition is the project's, so is its volume), counted in ClickHouse for the
 * names of one page: nothing is counted at ingestion.
 */
export async function eventVolumes(
  analytics: AnalyticsEngine,
  teamIds: readonly number[],
  names: string[],
  nowMs: number,
): Promise<Map<string, number>> {
  const volumes = new Map<string, number>();
  if (names.length === 0 || teamIds.length === 0) return volumes;
  const { sql, params } = ch`SELECT event, count() AS n FROM ${raw(analytics.table('events'))}
    WHERE team_id IN ${typed('Array(Int64)', [...teamIds])} AND has(${typed('Array(String)', names)}, event) AND timestamp >= ${chTime(new Date(nowMs - THIRTY_DAYS_MS))}
    GROUP BY event`.compile();
  for (const row of await analytics.query<{ event: string; n: string | number }>(sql, params)) volumes.set(row.event, Number(row.n));
  return volumes;
}
