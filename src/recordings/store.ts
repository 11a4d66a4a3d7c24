/**
 * Storage of session recordings: a metadata row per recording and its rrweb events in gzip chunks.
 *
 * Each ingested batch becomes one chunk (JSON lines `[windowId, event]`, gzipped) and is folded into
 * the recording's metadata inside the same transaction, so the metadata is always that of the chunks
 * stored, and neither ingestion nor reading ever holds more than one chunk of a recording in memory.
 */
import { chunks } from '../lib/chunks.js';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, toJson } from '../platform/db/values.js';
import { emptyMetadata, foldBatch, type RecordingMetadata, type SnapshotBatch } from './core/index.js';
import type { SessionRecordingsTable } from './tables.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

type Db = Kysely<Schema>;

export interface RecordingRow {
  teamId: number;
  sessionId: string;
  distinctId: string;
  meta: RecordingMetadata;
  chunkCount: number;
  createdAt: string;
  lastIngestedAt: string;
}

function toRow(row: SessionRecordingsTable): RecordingRow {
  return {
    teamId: Number(row.team_id),
    sessionId: row.session_id,
    distinctId: row.distinct_id,
    meta: fromJson<RecordingMetadata>(row.metadata) ?? emptyMetadata(),
    chunkCount: Number(row.chunk_count),
    createdAt: row.created_at,
    lastIngestedAt: row.last_ingested_at,
  };
}

/** The stored form of a batch: gzip of its JSON lines. Compressed before the transaction opens. */
export async function encodeChunk(batch: SnapshotBatch): Promise<Buffer> {
  const prefix = `[${JSON.stringify(batch.windowId)},`;
  const lines = batch.events.map((event) => `${prefix}${JSON.stringify(event)}]\n`);
  return gzipAsync(Buffer.from(lines.join(''), 'utf8'));
}

/**
 * Appends one batch to its recording (created on first sight) and folds it into the metadata. The
 * row is locked for the read-fold-write: on PostgreSQL with `for update`, on SQLite by the write
 * lock `begin immediate` takes.
 */
export async function appendBatch(database: Database, teamId: number, batch: SnapshotBatch, data: Buffer, now: Date): Promise<void> {
  if (batch.events.length === 0) return;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const event of batch.events) {
    if (event.timestamp < first) first = event.timestamp;
    if (event.timestamp > last) last = event.timestamp;
  }
  const nowIso = now.toISOString();
  await database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('session_recordings')
      .values({
        team_id: teamId,
        session_id: batch.sessionId,
        distinct_id: batch.distinctId,
        duration: 0,
        metadata: toJson(emptyMetadata()),
        chunk_count: 0,
        created_at: nowIso,
        last_ingested_at: nowIso,
      })
      .onConflict((oc) => oc.columns(['team_id', 'session_id']).doNothing())
      .execute();
    const current = await trx
      .selectFrom('session_recordings')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('session_id', '=', batch.sessionId)
      .$if(database.dialect === 'postgres', (q) => q.forUpdate())
      .executeTakeFirstOrThrow();
    const row = toRow(current);
    const meta = foldBatch(row.meta, batch);
    await trx
      .insertInto('recording_chunks')
      .values({
        team_id: teamId,
        session_id: batch.sessionId,
        seq: row.chunkCount,
        window_id: batch.windowId,
        first_timestamp: first,
        last_timestamp: last,
        event_count: batch.events.length,
        data,
      })
      .execute();
    await trx
      .updateTable('session_recordings')
      .set({
        // The recording belongs to the distinct id of its earliest batch, as PostHog's first event.
        distinct_id: meta.distinctId ?? row.distinctId,
        start_time: meta.firstTimestamp === null ? null : new Date(meta.firstTimestamp).toISOString(),
        end_time: meta.lastTimestamp === null ? null : new Date(meta.lastTimestamp).toISOString(),
        duration:
          meta.firstTimestamp === null || meta.lastTimestamp === null
            ? 0
            : Math.floor(meta.lastTimestamp / 1000) - Math.floor(meta.firstTimestamp / 1000),
        metadata: toJson(meta),
        chunk_count: row.chunkCount + 1,
        last_ingested_at: nowIso,
      })
      .where('team_id', '=', teamId)
      .where('session_id', '=', batch.sessionId)
      .execute();
  });
}

export async function getRecording(db: Db, teamId: number, sessionId: string): Promise<RecordingRow | undefined> {
  const row = await db
    .selectFrom('session_recordings')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  return row && toRow(row);
}

export interface RecordingFilter {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  /**
   * Recordings of any of these distinct ids or of any other distinct id of their persons (the
   * `distinct_id(s)` filter): a session begun anonymously is recorded under the anonymous id,
   * which identify then gives to the person asked for.
   */
  distinctIds?: string[] | undefined;
  /**
   * Recordings of any distinct id of this person (the `person_uuid` filter), read in the query
   * itself: a merged person may have more ids than a statement takes parameters.
   */
  personId?: number | undefined;
  sessionIds?: string[] | undefined;
  /** Whole seconds, inclusive. */
  minDuration?: number | undefined;
  maxDuration?: number | undefined;
  order: 'start_time' | 'duration';
  direction: 'asc' | 'desc';
}

export async function listRecordings(
  db: Db,
  teamId: number,
  filter: RecordingFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: RecordingRow[] }> {
  let query = db.selectFrom('session_recordings').where('team_id', '=', teamId).where('start_time', 'is not', null);
  if (filter.dateFrom) query = query.where('start_time', '>=', filter.dateFrom);
  if (filter.dateTo) query = query.where('start_time', '<=', filter.dateTo);
  if (filter.distinctIds) {
    if (filter.distinctIds.length === 0) return { count: 0, rows: [] };
    const asked = filter.distinctIds;
    query = query.where((eb) =>
      eb.or([
        eb('distinct_id', 'in', asked),
        eb(
          'distinct_id',
          'in',
          eb
            .selectFrom('person_distinct_ids as sibling')
            .select('sibling.distinct_id')
            .where('sibling.team_id', '=', teamId)
            .where('sibling.person_id', 'in', (inner) =>
              inner
                .selectFrom('person_distinct_ids as own')
                .select('own.person_id')
                .where('own.team_id', '=', teamId)
                .where('own.distinct_id', 'in', asked),
            ),
        ),
      ]),
    );
  }
  if (filter.personId !== undefined) {
    const personId = filter.personId;
    query = query.where('distinct_id', 'in', (eb) =>
      eb.selectFrom('person_distinct_ids').select('distinct_id').where('team_id', '=', teamId).where('person_id', '=', personId),
    );
  }
  if (filter.sessionIds) {
    if (filter.sessionIds.length === 0) return { count: 0, rows: [] };
    query = query.where('session_id', 'in', filter.sessionIds);
  }
  if (filter.minDuration !== undefined) query = query.where('duration', '>=', filter.minDuration);
  if (filter.maxDuration !== undefined) query = query.where('duration', '<=', filter.maxDuration);
  const counted = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query
    .selectAll()
    .orderBy(filter.order, filter.direction)
    .orderBy('session_id', filter.direction)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(counted?.n ?? 0), rows: rows.map(toRow) };
}

/** Removes the recording with its snapshot data, views and sharing. False when there was none. */
export async function deleteRecording(database: Database, teamId: number, sessionId: string): Promise<boolean> {
  return (await deleteRecordings(database, teamId, [sessionId])) > 0;
}

/**
 * Removes these recordings of the team with their snapshot data, views and sharing, in one
 * transaction (a reader sees a recording whole or not at all); returns how many there were.
 * The caller keeps the list within the backends' bound-parameter limits.
 */
export async function deleteRecordings(database: Database, teamId: number, sessionIds: readonly string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  return database.db.transaction().execute(async (trx) => {
    const deleted = await trx
      .deleteFrom('session_recordings')
      .where('team_id', '=', teamId)
      .where('session_id', 'in', sessionIds)
      .executeTakeFirst();
    for (const table of ['recording_chunks', 'recording_views', 'recording_sharing'] as const) {
      await trx.deleteFrom(table).where('team_id', '=', teamId).where('session_id', 'in', sessionIds).execute();
    }
    return Number(deleted.numDeletedRows);
  });
}

export interface ChunkInfo {
  seq: number;
  windowId: string;
  firstTimestamp: number;
  lastTimestamp: number;
}

export async function listChunks(db: Db, teamId: number, sessionId: string): Promise<ChunkInfo[]> {
  const rows = await db
    .selectFrom('recording_chunks')
    .select(['seq', 'window_id', 'first_timestamp', 'last_timestamp'])
    .where('team_id', '=', teamId)
    .where('session_id', '=', sessionId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({
    seq: Number(r.seq),
    windowId: r.window_id,
    firstTimestamp: Number(r.first_timestamp),
    lastTimestamp: Number(r.last_timestamp),
  }));
}

/**
 * The decompressed JSON lines of chunks `from`..`to` (inclusive), one chunk at a time: each is read
 * from the database only when the consumer asks for it, so a stream of a large recording stays small.
 */
export async function* readChunks(db: Db, teamId: number, sessionId: string, from = 0, to?: number): AsyncGenerator<Buffer> {
  let next = from;
  while (to === undefined || next <= to) {
    const row = await db
      .selectFrom('recording_chunks')
      .select(['seq', 'data'])
      .where('team_id', '=', teamId)
      .where('session_id', '=', sessionId)
      .where('seq', '>=', next)
      .$if(to !== undefined, (q) => q.where('seq', '<=', to!))
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    if (!row) return;
    yield await gunzipAsync(Buffer.from(row.data));
    next = Number(row.seq) + 1;
  }
}

export async function setViewed(db: Db, teamId: number, sessionId: string, userId: number, viewed: boolean): Promise<void> {
  if (viewed) {
    await db
      .insertInto('recording_views')
      .values({ team_id: teamId, session_id: sessionId, user_id: userId, created_at: new Date().toISOString() })
      .onConflict((oc) => oc.columns(['team_id', 'session_id', 'user_id']).doNothing())
      .execute();
  } else {
    await db
      .deleteFrom('recording_views')
      .where('team_id', '=', teamId)
      .where('session_id', '=', sessionId)
      .where('user_id', '=', userId)
      .execute();
  }
}

/** Which of these recordings the user has viewed. */
export async function viewedBy(db: Db, teamId: number, userId: number, sessionIds: string[]): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('recording_views')
    .select('session_id')
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .where('session_id', 'in', sessionIds)
    .execute();
  return new Set(rows.map((r) => r.session_id));
}

/** Which of these sessions have a recording, asked a batch at a time (a statement's parameters are bounded). */
export async function recordedSessions(db: Db, teamId: number, sessionIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of chunks(
    [...new Set(sessionIds)].filter((id) => id !== ''),
    500,
  )) {
    const rows = await db
      .selectFrom('session_recordings')
      .select('session_id')
      .where('team_id', '=', teamId)
      .where('session_id', 'in', chunk)
      .execute();
    for (const row of rows) found.add(row.session_id);
  }
  return found;
}
