import type { Database } from '../platform/db/database.js';
import { forEachEventPage } from '../events/event-pages.js';

/** An event of a session, as the session accumulator reads it (properties still stored JSON). */
export interface SessionEventRow {
  uuid: string;
  event: string;
  timestamp: string;
  session_id: string;
  properties: unknown;
}

/**
 * The environment's events that carry a `$session_id`, newest first, a page at a time, at most
 * `maxRows` of them.
 */
export async function forEachSessionEventPage(
  database: Database,
  teamId: number,
  options: { pageSize: number; maxRows: number },
  onPage: (rows: SessionEventRow[]) => void,
): Promise<void> {
  const select = () =>
    database.db
      .selectFrom('events')
      .select(['uuid', 'event', 'timestamp', 'session_id', 'properties'])
      .where('team_id', '=', teamId)
      .where('session_id', 'is not', null);
  await forEachEventPage<SessionEventRow>(database, select, { newestFirst: true, ...options }, onPage);
}
