/**
 * The reads of `properties_at_time` (persons/properties-at-time.ts): the property updates the
 * events of a person's distinct ids carried, as PostHog's point_in_time_properties.py selects them.
 */
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, raw, typed } from '../platform/analytics/sql.js';
import { storedInstantText } from '../platform/db/values.js';

/** PostHog's DEFAULT_PROPERTY_ROW_LIMIT. */
export const PROPERTY_ROW_LIMIT = 100_000;
/** PostHog's _HISTORY_SCAN_FLOOR: 365 × 2 days before the moment. */
const HISTORY_MS = 730 * 24 * 3600 * 1000;

/** One event's part in the rebuild: its `$set` and `$set_once` as JSON text (null when absent). */
export interface PropertyUpdateRow {
  event: string;
  set: string | null;
  setOnce: string | null;
}

/**
 * The property updates of these distinct ids' events from two years before `at` up to it
 * (inclusive), oldest first (equal times by uuid as text), at most PROPERTY_ROW_LIMIT. Events are
 * stored to the millisecond: the bounds round inward to whole milliseconds. (PostHog's newest
 * version binds the moment itself through HogQL; its earlier ones cut both bounds to whole seconds.)
 */
export async function propertyUpdatesUntil(
  analytics: AnalyticsEngine,
  teamId: number,
  distinctIds: readonly string[],
  at: { ms: number; extraMicros: number },
  includeSetOnce: boolean,
): Promise<PropertyUpdateRow[]> {
  const upper = storedInstantText(at.ms);
  const lower = storedInstantText(at.ms - HISTORY_MS + (at.extraMicros > 0 ? 1 : 0));
  const events = includeSetOnce ? ['$set', '$set_once'] : ['$set'];
  // A key holding JSON null is there (its raw text `null`); a missing one reads as ''.
  const { sql, params } = ch`SELECT event,
      if(JSONHas(properties, '$set'), JSONExtractRaw(properties, '$set'), NULL) AS set_json,
      if(JSONHas(properties, '$set_once'), JSONExtractRaw(properties, '$set_once'), NULL) AS set_once_json
    FROM ${raw(analytics.table('events'))}
    WHERE team_id = ${teamId} AND distinct_id IN ${typed('Array(String)', [...distinctIds])}
      AND timestamp >= ${chTime(lower)} AND timestamp <= ${chTime(upper)}
      AND (event IN ${events} OR JSONHas(properties, '$set'))
    ORDER BY timestamp, toString(uuid)
    LIMIT ${PROPERTY_ROW_LIMIT}`.compile();
  const rows = await analytics.query<{ event: string; set_json: string | null; set_once_json: string | null }>(sql, params);
  return rows.map((row) => ({ event: row.event, set: row.set_json, setOnce: row.set_once_json }));
}
