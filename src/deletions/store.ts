import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/values.js';
import type { DeletedUpTo } from './analytics-deletion-store.js';
import type { PendingDeletionsTable } from './tables.js';
import { markPersonEventDeletionsVerified } from './person-event-status-store.js';
import { chunks } from '../lib/chunks.js';
import { outboxMarkQuery } from '../events/outbox-copy.js';

type Db = Kysely<Schema>;

/**
 * Every table that holds environment data, found by its `team_id` column, so a feature added later
 * is covered without registering anything. Rows that hang off those tables by other keys must use
 * ON DELETE CASCADE foreign keys. Reads only this Hoglet's own schema.
 */
export async function teamOwnedTables(database: Database): Promise<string[]> {
  const rows =
    database.dialect === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.columns
          where table_schema = ${database.schema ?? 'public'} and column_name = 'team_id'`.execute(database.db)
      : await sql<{ name: string }>`select m.name as name from sqlite_master m, pragma_table_info(m.name) c
          where m.type = 'table' and c.name = 'team_id'`.execute(database.db);
  return [...new Set(rows.rows.map((r) => r.name))].filter((name) => name !== 'teams').sort();
}

/**
 * `environment`: all of an environment's data. `person_events` and `person_recordings`: the events
 * or the session recordings of a deleted person (`target`, its uuid), by the distinct ids it had.
 */
export type DeletionKind = 'environment' | 'person_events' | 'person_recordings';
export type PendingDeletion = Selectable<PendingDeletionsTable>;

/**
 * Records a deletion for the background runner; in the caller's transaction, with what it deletes
 * at once. Returns its id. The same statement reads the outbox's mark: the runner waits for the
 * events committed before the deletion, and for no later ones, to reach ClickHouse.
 */
export async function queueDeletion(
  db: Db,
  deletion: { teamId: number; kind: DeletionKind; target?: string; distinctIds?: readonly string[] },
): Promise<number> {
  const row = await db
    .insertInto('background_deletions')
    .values({
      owner_team_id: deletion.teamId,
      kind: deletion.kind,
      target: deletion.target ?? null,
      cursor_timestamp: null,
      cursor_uuid: null,
      created_at: nowIso(),
      outbox_mark: outboxMarkQuery(db),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const distinctIds = [...new Set(deletion.distinctIds ?? [])];
  for (const chunk of chunks(distinctIds, 500)) {
    await db
      .insertInto('pending_deletion_distinct_ids')
      .values(chunk.map((distinctId) => ({ deletion_id: Number(row.id), distinct_id: distinctId })))
      .execute();
  }
  return Number(row.id);
}

/**
 * The deletion's outbox mark. One queued before migration 030 has none and is given the outbox's
 * mark now, once: a row committed before the deletion and not yet copied is visible to this read,
 * so lies at or below it. (Read afresh at every look instead, a steady stream of batches would
 * keep the deletion waiting.)
 */
export async function deletionOutboxMark(db: Db, deletion: PendingDeletion): Promise<number> {
  if (deletion.outbox_mark !== null) return Number(deletion.outbox_mark);
  await db
    .updateTable('background_deletions')
    .set({ outbox_mark: outboxMarkQuery(db) })
    .where('id', '=', deletion.id)
    .where('outbox_mark', 'is', null)
    .execute();
  const row = await db.selectFrom('background_deletions').select('outbox_mark').where('id', '=', deletion.id).executeTakeFirst();
  return Number(row?.outbox_mark ?? 0);
}

/**
 * The distinct ids of these person-events deletions, each with the latest time one of them was
 * queued: events of those ids stored until then are the deleted persons' (later ones belong to
 * whoever uses the id since).
 */
export async function deletedDistinctIds(db: Db, deletions: readonly PendingDeletion[]): Promise<Map<string, string>> {
  const queuedAt = new Map(deletions.map((d) => [Number(d.id), d.created_at]));
  const owned = new Map<string, string>();
  const ids = [...queuedAt.keys()];
  for (const chunk of chunks(ids, 500)) {
    const rows = await db
      .selectFrom('pending_deletion_distinct_ids')
      .select(['deletion_id', 'distinct_id'])
      .where('deletion_id', 'in', chunk)
      .execute();
    for (const row of rows) {
      const at = queuedAt.get(Number(row.deletion_id))!;
      const known = owned.get(row.distinct_id);
      if (known === undefined || known < at) owned.set(row.distinct_id, at);
    }
  }
  return owned;
}

/** Failed batches after which a deletion is left alone (it stays listed, with its attempts). */
export const MAX_DELETION_ATTEMPTS = 10;

/**
 * The tables whose rows an environment's deletion leaves to the background: the ones that grow
 * with traffic, each indexed by team first. The others (flags, cohorts, insights, dashboards,
 * subscriptions, sharing, the queue…) are small and go in the request's transaction, so nothing
 * keeps acting on the environment's definitions (a subscription sending, a flag evaluating) while
 * its data is being deleted.
 */
export const BULK_TEAM_TABLES: ReadonlySet<string> = new Set([
  // Events live in ClickHouse (the runner deletes them there); the SQL table only had those moved out on upgrade.
  'events',
  'event_uuids',
  'person_overrides',
  'persons',
  'person_distinct_ids',
  'groups',
  'ingestion_warnings',
  'activity_log',
  'session_recordings',
  'recording_chunks',
  'recording_views',
  'flag_hash_key_overrides',
]);

/** The oldest deletion that is not parked. */
export async function nextPendingDeletion(db: Db): Promise<PendingDeletion | undefined> {
  return db
    .selectFrom('background_deletions')
    .selectAll()
    .where('attempts', '<', MAX_DELETION_ATTEMPTS)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** Parked deletions start over (at start-up: their cause may be mended). */
export async function resetParkedDeletions(db: Db): Promise<void> {
  await db.updateTable('background_deletions').set({ attempts: 0 }).where('attempts', '>=', MAX_DELETION_ATTEMPTS).execute();
}

/** Parked deletions (all, or these ids) start over; returns how many. */
export async function retryParkedDeletions(db: Db, ids?: number[]): Promise<number> {
  let query = db.updateTable('background_deletions').set({ attempts: 0 }).where('attempts', '>=', MAX_DELETION_ATTEMPTS);
  if (ids) query = query.where('id', 'in', ids.length > 0 ? ids : [-1]);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0);
}

export async function listPendingDeletions(db: Db): Promise<PendingDeletion[]> {
  return db.selectFrom('background_deletions').selectAll().orderBy('id').execute();
}

/** A batch of this deletion failed; returns its attempts so far. */
export async function countFailedAttempt(db: Db, id: number): Promise<number> {
  const row = await db
    .updateTable('background_deletions')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .returning('attempts')
    .executeTakeFirst();
  return Number(row?.attempts ?? 0);
}

/** Whether any row of the table still belongs to the team (a read: no write lock). */
export async function teamHasRows(database: Database, table: string, teamId: number): Promise<boolean> {
  const row = await sql`select 1 as one from ${sql.table(table)} where team_id = ${teamId} limit 1`.execute(database.db);
  return row.rows.length > 0;
}

/** The deletions are done: they leave the table, and the person-event deletions they carried are verified. */
export async function finishDeletions(db: Db, ids: number[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await markPersonEventDeletionsVerified(trx, ids);
    await trx.deleteFrom('background_deletions').where('id', 'in', ids).execute();
  });
}

/** Person-events deletions carried out together: at most this many persons per batch. */
const PERSONS_PER_BATCH = 500;

/**
 * The pending person-events deletions of the team to carry out with `deletion` (it among them):
 * one batch deletes the events of all of them, so deleting many persons costs a statement per
 * batch of their events, not per person.
 */
export async function personEventsGroup(db: Db, deletion: PendingDeletion): Promise<PendingDeletion[]> {
  const group = await db
    .selectFrom('background_deletions')
    .selectAll()
    .where('kind', '=', 'person_events')
    .where('owner_team_id', '=', deletion.owner_team_id)
    .where('attempts', '<', MAX_DELETION_ATTEMPTS)
    .orderBy('id')
    .limit(PERSONS_PER_BATCH)
    .execute();
  return group.some((d) => d.id === deletion.id) ? group : [deletion, ...group.slice(0, PERSONS_PER_BATCH - 1)];
}

/**
 * Deletes up to `limit` rows of `table` that belong to the team, in one short statement (on
 * SQLite the write lock is held only for it); returns how many it deleted.
 */
export async function deleteTeamRowsBatch(database: Database, table: string, teamId: number, limit: number): Promise<number> {
  const id = database.dialect === 'postgres' ? sql.raw('ctid') : sql.raw('rowid');
  const result =
    await sql`delete from ${sql.table(table)} where ${id} in (select ${id} from ${sql.table(table)} where team_id = ${teamId} limit ${limit})`.execute(
      database.db,
    );
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The next recordings a person-recordings deletion removes: the team's recordings whose distinct
 * id was one of the person's (PostHog's delete-recordings-with-person workflow picks the sessions
 * of those distinct ids) and that began before the deletion was queued; a distinct id used again
 * since starts recordings that are not the deleted person's. As many as hold `maxChunks` chunks
 * together (one recording at least, however large), so a batch deletes a bounded number of rows.
 */
export async function personRecordingsBatch(db: Db, deletion: PendingDeletion, maxChunks: number): Promise<string[]> {
  const rows = await db
    .selectFrom('session_recordings')
    .select(['session_id', 'chunk_count'])
    .where('team_id', '=', Number(deletion.owner_team_id))
    .where('distinct_id', 'in', (eb) =>
      eb.selectFrom('pending_deletion_distinct_ids').select('distinct_id').where('deletion_id', '=', Number(deletion.id)),
    )
    .where('created_at', '<=', deletion.created_at)
    .orderBy('session_id')
    .limit(maxChunks)
    .execute();
  const batch: string[] = [];
  let chunks = 0;
  for (const row of rows) {
    const count = Number(row.chunk_count);
    if (batch.length > 0 && chunks + count > maxChunks) break;
    batch.push(row.session_id);
    chunks += count;
  }
  return batch;
}

/** How far these deletions got: the last event deleted (what `hoglet deletions list` shows). */
export async function saveDeletionCursor(db: Db, ids: number[], cursor: DeletedUpTo): Promise<void> {
  await db
    .updateTable('background_deletions')
    .set({ cursor_timestamp: cursor.timestamp, cursor_uuid: cursor.uuid })
    .where('id', 'in', ids)
    .execute();
}
