import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { ch, raw } from '../../src/platform/analytics/sql.js';
import { fromClickHouseTime } from '../../src/platform/analytics/sql.js';

/** A stored event as ClickHouse holds it, in the shape the old SQL `events` rows had. */
export interface StoredEvent {
  team_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string;
  /** The JSON text. */
  properties: string;
  timestamp: string;
  created_at: string;
  session_id: string | null;
  elements_chain: string | null;
}

/** The events stored in ClickHouse, optionally of one environment, oldest first (then by uuid). */
export async function storedEvents(analytics: AnalyticsEngine, teamId?: number): Promise<StoredEvent[]> {
  const where = teamId === undefined ? raw('1') : ch`team_id = ${teamId}`;
  const { sql, params } = ch`SELECT team_id, toString(uuid) AS uuid, event, distinct_id, toString(person_id) AS person_id, properties,
      timestamp, created_at, session_id, elements_chain
    FROM ${raw(analytics.table('events'))} WHERE ${where} ORDER BY timestamp, uuid`.compile();
  const rows = await analytics.query<StoredEvent>(sql, params);
  return rows.map((row) => ({
    ...row,
    timestamp: fromClickHouseTime(row.timestamp),
    created_at: fromClickHouseTime(row.created_at),
    session_id: row.session_id === '' ? null : row.session_id,
    elements_chain: row.elements_chain === '' ? null : row.elements_chain,
  }));
}
