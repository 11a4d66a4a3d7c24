import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import type { Database } from '../platform/db/database.js';
import { personUuidFromDistinctId } from '../persons/person-uuid.js';
import { eventRow } from './outbox-rows.js';

/**
 * Stored properties (PostgreSQL's parsed JSON, SQLite's text) as eventRow's JSON value: an object's
 * text as it is, anything else as a JSON string, which ClickHouse stores as the same text (a value
 * an older version stored that is not an object would otherwise fail the whole insert).
 */
function storedPropertiesValue(stored: unknown): string {
  const isObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (typeof stored !== 'string') return isObject(stored) ? JSON.stringify(stored) : JSON.stringify(JSON.stringify(stored));
  // Whitespace around the object would not be kept: ClickHouse stores the object's text alone.
  if (stored.startsWith('{') && stored.endsWith('}')) {
    try {
      if (isObject(JSON.parse(stored))) return stored;
    } catch {
      // not JSON: stored as the text it is
    }
  }
  return JSON.stringify(stored);
}

/** Events moved per step: one ClickHouse insert and one SQL delete. */
export const UPGRADE_BATCH_SIZE = 10_000;

/**
 * Events stored in the SQL `events` table by versions before ClickHouse held them move there, once,
 * at start (before the process serves: every read is ClickHouse's). A step moves the first batch
 * in (team_id, uuid) order, then deletes it from SQL; its insert's deduplication token is derived
 * from the batch's first and last key, so a step cut short (SIGKILL between the insert and the
 * delete) is repeated whole after a restart and ClickHouse drops the repeated insert. Processes
 * starting together on the same storage move the same batches with the same tokens: nothing is
 * stored twice either. Returns how many events this call moved.
 */
export async function moveSqlEventsToClickHouse(
  database: Database,
  analytics: AnalyticsEngine,
  log: Logger,
  options: { batchSize?: number } = {},
): Promise<number> {
  const { db } = database;
  const batchSize = options.batchSize ?? UPGRADE_BATCH_SIZE;
  const count = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  const total = Number(count.n);
  if (total === 0) return 0;
  log.info({ total }, 'moving stored events from the SQL database to ClickHouse');
  let moved = 0;
  for (;;) {
    const rows = await db.selectFrom('events').selectAll().orderBy('team_id').orderBy('uuid').limit(batchSize).execute();
    if (rows.length === 0) break;
    const lines = rows.map((row) => {
      const teamId = Number(row.team_id);
      // Personless events had no person; ClickHouse's carry the one PostHog attributes them to.
      const personId = row.person_id ?? personUuidFromDistinctId(teamId, row.distinct_id);
      return eventRow(
        teamId,
        row.uuid,
        row.event,
        row.distinct_id,
        personId,
        storedPropertiesValue(row.properties),
        row.timestamp,
        row.created_at,
        row.session_id,
        row.elements_chain,
      );
    });
    const first = rows[0]!;
    const last = rows[rows.length - 1]!;
    const key = createHash('sha256')
      .update(JSON.stringify([Number(first.team_id), first.uuid, Number(last.team_id), last.uuid]))
      .digest('hex');
    await analytics.insert('events', lines.join('\n'), { deduplicationToken: `sql-events-${key.slice(0, 40)}` });
    // Exactly the batch: the rows from its first key to its last (nothing writes this table any more).
    await db
      .deleteFrom('events')
      .where(sql<boolean>`(team_id, uuid) >= (${first.team_id}, ${first.uuid}) and (team_id, uuid) <= (${last.team_id}, ${last.uuid})`)
      .execute();
    moved += rows.length;
    log.info({ moved, total }, 'moving stored events to ClickHouse');
  }
  log.info({ moved }, 'stored events moved to ClickHouse');
  return moved;
}
