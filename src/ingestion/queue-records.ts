/**
 * The worker's view of the ingestion queue: records, one per queued event, read a batch at a time
 * in queue order. A queue row holds one event, or a chunk: the events of one capture request, or
 * of the requests one commit carried, as a JSON array (queue.ts, core/queue-rows.ts). A chunk is
 * read whole and split into one record per event, each with its own text; a batch only ever holds
 * whole rows, so deleting its rows dequeues exactly its events. When events are retried one at a time (one-by-one.ts), a chunk is rewritten to
 * hold the events still to do (ChunkState).
 */
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { splitJsonArray } from '../lib/json-array.js';
import type { Lane } from './queue.js';
import { isPostgres } from '../platform/db/dialect.js';

type Db = Kysely<Schema>;

/** One queued event: its row, and its JSON text (see queue.ts QueuedEvent). */
export interface QueueRecord {
  /** The queue row's id (shared by the events of a chunk). */
  id: number;
  team_id: number;
  payload: string;
  /** The row's queue partition (core/partition.ts): a row parked or deferred from it keeps it. */
  partition: number;
  /** Set when the row is a chunk: this event's place in it. */
  chunk?: ChunkPart | undefined;
}

export interface ChunkPart {
  state: ChunkState;
  index: number;
}

/** A change to a chunk's row: one event taken out (stored, or parked in a row of its own), or its text replaced. */
export type ChunkChange = { remove: number } | { replace: number; text: string };

/**
 * A chunk's events as this process last committed its row: which are done (taken out), each
 * one's text, and the row's payload then, which an update of the row must still find there (a
 * commit reported failed may have committed all the same: the row then differs, and the change
 * is not made twice).
 */
export class ChunkState {
  private readonly done: boolean[];
  private readonly parts: string[];

  constructor(
    parts: readonly string[],
    /** The row's payload as last committed. */
    public stored: string,
  ) {
    this.parts = [...parts];
    this.done = parts.map(() => false);
  }

  /**
   * The row's payload after `change`: a chunk of the events not done, the event itself when one
   * is left (a row of one event is never an array), undefined when none is; `first`, the text of
   * its first event (the row names that event's distinct id and receipt time).
   */
  rewritten(change: ChunkChange): { payload: string; count: number; first: string } | undefined {
    const left: string[] = [];
    for (let i = 0; i < this.parts.length; i++) {
      if (this.done[i] || ('remove' in change && change.remove === i)) continue;
      left.push('replace' in change && change.replace === i ? change.text : this.parts[i]!);
    }
    if (left.length === 0) return undefined;
    return { payload: left.length === 1 ? left[0]! : `[${left.join(',')}]`, count: left.length, first: left[0]! };
  }

  /** After the transaction that wrote `rewritten(change)` committed. */
  committed(change: ChunkChange): void {
    const after = this.rewritten(change);
    if ('remove' in change) this.done[change.remove] = true;
    else this.parts[change.replace] = change.text;
    this.stored = after?.payload ?? '';
  }
}

/** A batch read: its records in queue order, and whether the lane holds more after them. */
export interface QueueBatch {
  records: QueueRecord[];
  more: boolean;
}

/**
 * The partitions a read takes: those listed, or every one (undefined: a worker that holds them
 * all, and always on SQLite, reads the lane without a partition condition).
 */
export type PartitionFilter = readonly number[] | undefined;

/**
 * Reads the next batch of a lane: whole rows, oldest first, skipping parked ones (`attempts` at
 * `maxAttempts`), as many as fit in `maxEvents` events (at least one row, whatever its size);
 * with `afterId`, only rows after it (the batch after one still being written); with
 * `partitions`, only rows of those partitions (the ones this worker holds).
 *
 * Two reads: which rows make the batch, from the lane index alone (it holds `attempts` and
 * `event_count`, migration 011: in a chunk's row both come after its long payload), then those
 * rows' payloads.
 */
export async function readQueueBatch(
  db: Db,
  lane: Lane,
  maxEvents: number,
  maxAttempts: number,
  afterId?: number,
  partitions?: PartitionFilter,
): Promise<QueueBatch> {
  return withQueueReadPlan(db, async (from) => {
    const candidates = await batchCandidates(from, lane, maxEvents, maxAttempts, afterId, partitions);
    if (candidates.length === 0) return { records: [], more: false };
    let taken = 1;
    let events = Number(candidates[0]!.event_count);
    while (taken < candidates.length && events + Number(candidates[taken]!.event_count) <= maxEvents) {
      events += Number(candidates[taken]!.event_count);
      taken++;
    }
    const rows = await laneRows(from, lane, maxAttempts, partitions)
      .select(['id', 'team_id', 'payload', 'event_count', 'partition'])
      .where('id', '>=', candidates[0]!.id)
      .where('id', '<=', candidates[taken - 1]!.id)
      .orderBy('id')
      .execute();
    return { records: toRecords(rows), more: taken < candidates.length };
  });
}

/** Rows read first for a batch's size: enough for a batch of chunks, a fraction of one of single events. */
const FIRST_SIZES_READ = 64;

/**
 * The sizes of the rows that may make the next batch, in queue order: enough rows to exceed
 * `maxEvents` events, or all there are. A first short read serves a queue of chunks (a few rows a
 * batch); only a queue of single events needs the second, for the rest.
 */
async function batchCandidates(
  from: Db,
  lane: Lane,
  maxEvents: number,
  maxAttempts: number,
  afterId: number | undefined,
  partitions: PartitionFilter,
) {
  const read = (after: number | undefined, limit: number) => {
    let sizes = laneRows(from, lane, maxAttempts, partitions).select(['id', 'event_count']);
    if (after !== undefined) sizes = sizes.where('id', '>', after);
    return sizes.orderBy('id').limit(limit).execute();
  };
  // One row more than a batch of single events can take tells whether more follow.
  const most = maxEvents + 1;
  const first = await read(afterId, Math.min(most, FIRST_SIZES_READ));
  let events = 0;
  for (const row of first) events += Number(row.event_count);
  if (events > maxEvents || first.length < Math.min(most, FIRST_SIZES_READ)) return first;
  return [...first, ...(await read(first[first.length - 1]!.id, most - first.length))];
}

/** The id of the lane's first row not parked (from the lane index alone), of `partitions`, if any. */
export async function queueHeadId(db: Db, lane: Lane, maxAttempts: number, partitions?: PartitionFilter): Promise<number | undefined> {
  const head = await withQueueReadPlan(db, (from) =>
    laneRows(from, lane, maxAttempts, partitions).select('id').orderBy('id').limit(1).executeTakeFirst(),
  );
  return head && Number(head.id);
}

/**
 * The lane's rows not parked, of `partitions` when listed: what every queue read starts from.
 * The partition condition is checked in the lane index (it covers `partition`, migration 025),
 * read in id order.
 */
function laneRows(from: Db, lane: Lane, maxAttempts: number, partitions: PartitionFilter) {
  const rows = from.selectFrom('ingestion_queue').where('lane', '=', lane).where('attempts', '<', maxAttempts);
  return partitions ? rows.where('partition', 'in', [...partitions]) : rows;
}

/**
 * PostgreSQL: the lane index read in order, stopping at the limit, is the only sensible plan for
 * a queue. On statistics that misjudge the lane (a new install before its first analyze, or one
 * made while another lane held the backlog) the planner chose a bitmap scan of the whole lane and
 * a sort instead: a cost that grows with the backlog, paid by every batch (a third of the
 * worker's time on a fresh database). Sorting is ruled out for these reads.
 */
async function withQueueReadPlan<T>(db: Db, read: (from: Db) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return read(db);
  // `begin` and the setting in one statement, a round trip fewer per read (without parameters pg
  // uses the simple protocol, which takes several statements).
  return db.connection().execute(async (conn) => {
    let result: T;
    try {
      await sql`begin; set local enable_sort = off`.execute(conn);
      result = await read(conn);
    } catch (error) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw error;
    }
    await sql`commit`.execute(conn);
    return result;
  });
}

/** One record per event: a chunk's row becomes one record per element of its array. */
function toRecords(rows: Array<{ id: number; team_id: number; payload: string; event_count: number; partition: number }>): QueueRecord[] {
  const records: QueueRecord[] = [];
  for (const row of rows) {
    const id = Number(row.id);
    const teamId = Number(row.team_id);
    const partition = Number(row.partition);
    if (Number(row.event_count) === 1 || !row.payload.startsWith('[')) {
      records.push({ id, team_id: teamId, payload: row.payload, partition });
      continue;
    }
    let parts: string[];
    try {
      parts = splitJsonArray(row.payload);
    } catch {
      // Not an array after all (capture writes none such): the worker's parse of it reports why.
      records.push({ id, team_id: teamId, payload: row.payload, partition });
      continue;
    }
    const state = new ChunkState(parts, row.payload);
    for (let index = 0; index < parts.length; index++)
      records.push({ id, team_id: teamId, payload: parts[index]!, partition, chunk: { state, index } });
  }
  return records;
}

/** The distinct queue rows of `records`, in order. */
export function rowIdsOf(records: readonly QueueRecord[]): number[] {
  const ids: number[] = [];
  for (const record of records) if (ids[ids.length - 1] !== record.id) ids.push(record.id);
  return ids;
}
