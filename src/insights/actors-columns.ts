/**
 * What every insight's actors are read with in ClickHouse, whatever the insight: per person, how
 * many events make them an actor, the distinct ids those were sent with, and up to 100 of them
 * (PostHog's `matching_events`) for the recordings they fall in.
 */
import { fromClickHouseTime, raw, type ChSql } from '../platform/analytics/sql.js';
import type { ActorRow } from './actors-query.js';

/** The columns, over events `e` grouped by person: `event_count`, `distinct_ids`, `events`. */
export const ACTOR_AGGREGATES: ChSql = raw(`count() AS event_count, groupUniqArray(e.distinct_id) AS distinct_ids,
  groupUniqArray(100)((formatDateTime(e.timestamp, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC'), toString(e.uuid), e.session_id, ifNull(e.mat_window_id, ''))) AS events`);

/** An actor as ClickHouse answers it: events as (timestamp, uuid, session id, window id) tuples. */
export interface ActorAggregates {
  person: string;
  event_count: number | string;
  distinct_ids: string[];
  events: Array<[string, string, string, string]>;
}

export function actorRow(row: ActorAggregates): ActorRow {
  return {
    person: row.person,
    eventCount: Number(row.event_count),
    distinctIds: row.distinct_ids,
    // %f prints microseconds; times are shown with milliseconds unless more were stored.
    events: row.events
      .map(([timestamp, uuid, sessionId, windowId]) => ({ timestamp: fromClickHouseTime(timestamp), uuid, sessionId, windowId }))
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
  };
}
