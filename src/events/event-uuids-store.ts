import { sql } from 'kysely';
import type { Database } from '../platform/db/database.js';

/**
 * `event_uuids`, the worker's dedupe, remembers an event's uuid for a window of days
 * (INGESTION_DEDUPE_DAYS, docs/decisions/0012-event-uuid-window.md): a copy resent within it is
 * dropped; once the row is pruned, a copy is stored as a new event.
 */

const DAY_MS = 86_400_000;

/** The day of `timeMs` as `event_uuids.stored_day` counts it: whole days since 1970-01-01 UTC. */
export function dedupeDay(timeMs: number): number {
  return Math.floor(timeMs / DAY_MS);
}

/**
 * The first day whose rows are kept when it is `nowMs` and the window is `days` long: rows stored
 * before it are expired. A uuid is remembered `days` whole days at least (up to one more).
 */
export function firstKeptDay(nowMs: number, days: number): number {
  return dedupeDay(nowMs) - days;
}

/**
 * Deletes up to `limit` rows stored before `beforeDay`, in one short statement (on SQLite the
 * write lock is held only for it); returns how many it deleted. Found through the stored_day
 * index, so it costs the rows it deletes, not the table.
 */
export async function pruneEventUuidsBatch(database: Database, beforeDay: number, limit: number): Promise<number> {
  const result =
    database.dialect === 'postgres'
      ? // `= any(array(…))`: a TID scan of the rows picked, whatever the planner thinks of the table.
        await sql`delete from event_uuids where ctid = any(array(select ctid from event_uuids where stored_day < ${beforeDay} limit ${limit}))`.execute(
          database.db,
        )
      : await sql`delete from event_uuids where rowid in (select rowid from event_uuids where stored_day < ${beforeDay} limit ${limit})`.execute(
          database.db,
        );
  return Number(result.numAffectedRows ?? 0);
}
