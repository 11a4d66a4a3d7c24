import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../../platform/db/availability.js';
import type { Schema } from '../../platform/db/schema.js';
import { nextTurn } from '../../platform/next-turn.js';
import { decidePersonProcessing } from '../core/index.js';
import { insertWarnings, type Lane, type QueuedEvent } from '../queue.js';
import { processBatch, QueueRowsGone, type BatchDeps, type BatchOutcome, type Dequeue, type QueueRecord } from './batch.js';
import type { ChunkChange } from '../queue-records.js';

/**
 * A batch that failed as a whole is retried one event per transaction, so one bad event does not
 * stall the queue. What each event gets, in turn:
 * 1. processed alone, as in any batch;
 * 2. failing that, stored personless (what fails is almost always person processing), with an
 *    `event_processing_failed` warning;
 * 3. failing that too, an attempt is counted; at the last one the event is parked: it stays in
 *    the queue table (kept, never dropped; `attempts` says why it is not picked up) with a
 *    warning, and the events behind it go on.
 * An event of a chunk (one or more requests' events in one queue row, queue-records.ts) is taken
 * out of its chunk by the transaction that stores or parks it: the chunk is rewritten to hold the
 * events not done yet, so it keeps any that failed, in place, for the next round. Each event's
 * failures are counted in its own text (`attempts`); one that is parked moves to a row of its
 * own (at once when its text is no event at all: no round can read it).
 */

/**
 * Rounds an event may fail even when stored personless (or, for an identity event, which has no
 * personless form, at all) before the worker parks it.
 */
export const MAX_PROCESSING_ATTEMPTS = 3;

/** Another worker holds the lease now: this one stops writing (its batch is rolled back). */
export class LeaseLost extends Error {
  constructor() {
    super('another worker holds the ingestion lease');
  }
}

/** What the retry needs of the worker. */
export interface OneByOneContext {
  /** A transaction that first checks the worker still holds the lease (LeaseLost otherwise). */
  inFencedTransaction<T>(work: (trx: Transaction<Schema>) => Promise<T>): Promise<T>;
  batchDeps(): BatchDeps;
  /** After a batch's transaction committed. */
  afterCommit(outcome: BatchOutcome): Promise<void>;
  log: Logger;
}

/**
 * Retries a failed batch's rows one by one; LeaseLost goes up (the caller stops), and so does an
 * unreachable database's error (the worker retries later; no event counts it as a failure).
 */
export async function processOneByOne(ctx: OneByOneContext, lane: Lane, rows: QueueRecord[]): Promise<void> {
  for (const row of rows) {
    await processAlone(ctx, lane, row);
    await nextTurn();
  }
}

/**
 * Writes a chunk's row after `change`, in the caller's transaction, if the row is still as this
 * process last committed it; deletes it when no event is left. A row left with one event is a
 * plain row, counting that event's failures in its `attempts` as any such row.
 */
async function rewriteChunk(
  trx: Kysely<Schema>,
  record: QueueRecord,
  change: ChunkChange,
  set: { attempts?: number } = {},
): Promise<{ changed: number; expected: number }> {
  const { state } = record.chunk!;
  const after = state.rewritten(change);
  if (!after) {
    const deleted = await trx
      .deleteFrom('ingestion_queue')
      .where('id', '=', record.id)
      .where('payload', '=', state.stored)
      .executeTakeFirst();
    return { changed: Number(deleted.numDeletedRows), expected: 1 };
  }
  const first = readQueued(after.first);
  const attempts = after.count === 1 ? (first?.attempts ?? 0) : 0;
  // The row names its first event, as capture wrote it: with that one gone (a chunk may hold
  // several requests' events, of other persons), the next one (what `hoglet queue` shows).
  const names = rowNames(first);
  const updated = await trx
    .updateTable('ingestion_queue')
    .set({ payload: after.payload, event_count: after.count, attempts: typeof attempts === 'number' ? attempts : 0, ...names, ...set })
    .where('id', '=', record.id)
    .where('payload', '=', state.stored)
    .executeTakeFirst();
  return { changed: Number(updated.numUpdatedRows), expected: 1 };
}

/** One event of a chunk leaves it: the chunk's row keeps the others, or goes with the last. */
const takeOutOfChunk: Dequeue = (trx, [record]) => rewriteChunk(trx, record!, { remove: record!.chunk!.index });

/** Stores one event in a transaction of its own; a chunk's event is marked done once that commits. */
async function storeAlone(
  ctx: OneByOneContext,
  lane: Lane,
  row: QueueRecord,
  extra?: (trx: Transaction<Schema>) => Promise<void>,
): Promise<void> {
  const outcome = await ctx.inFencedTransaction(async (trx) => {
    const result = await processBatch(trx, lane, [row], ctx.batchDeps(), undefined, row.chunk ? takeOutOfChunk : undefined);
    await extra?.(trx);
    return result;
  });
  row.chunk?.state.committed({ remove: row.chunk.index });
  await ctx.afterCommit(outcome);
}

async function processAlone(ctx: OneByOneContext, lane: Lane, row: QueueRecord): Promise<void> {
  try {
    await storeAlone(ctx, lane, row);
  } catch (error) {
    // An unreachable database is no fault of the event: the batch is retried as it stands.
    if (error instanceof LeaseLost || isDatabaseUnavailable(error)) throw error;
    if (error instanceof QueueRowsGone) return; // another worker processed it
    ctx.log.error({ err: error, queueId: row.id, team: row.team_id }, 'event could not be processed; storing it without person processing');
    try {
      await processPersonless(ctx, lane, row, error);
    } catch (personlessError) {
      if (personlessError instanceof LeaseLost || isDatabaseUnavailable(personlessError)) throw personlessError;
      if (personlessError instanceof QueueRowsGone) return;
      await recordFailedAttempt(ctx, lane, row, personlessError); // LeaseLost goes up from here too
    }
  }
}

/**
 * Last resort: the same batch step, with the event made personless, so it is stored, counted and
 * dequeued like any other.
 * Identity events (`$identify`, `$create_alias`, …) have no personless form: the pipeline would
 * drop them, so the original error goes up instead and they are retried, then parked. Nor has a
 * deferred person update (a `person_only` row of the overflow lane): its event is stored already
 * and the update is all it carries, so made personless it would just be deleted.
 */
async function processPersonless(ctx: OneByOneContext, lane: Lane, row: QueueRecord, error: unknown): Promise<void> {
  const queued = JSON.parse(row.payload) as QueuedEvent;
  const properties = { ...queued.properties, $process_person_profile: false };
  if (queued.person_only || decidePersonProcessing({ event: queued.event, properties }).kind === 'drop') throw error;
  const personless = { ...row, payload: JSON.stringify({ ...queued, properties }) };
  await storeAlone(ctx, lane, personless, (trx) =>
    insertWarnings(trx, [
      {
        teamId: Number(row.team_id),
        type: 'event_processing_failed',
        source: 'worker',
        details: { eventUuid: queued.uuid, error: String(error) },
        timestamp: new Date().toISOString(),
      },
    ]),
  );
}

/**
 * An event that cannot be stored at all counts an attempt; at the last one it is parked (see
 * MAX_PROCESSING_ATTEMPTS) with a warning. If even this write fails, the database itself is
 * failing: the error goes up and the batch is retried later as it stands.
 */
async function recordFailedAttempt(ctx: OneByOneContext, lane: Lane, row: QueueRecord, error: unknown): Promise<void> {
  if (row.chunk) return recordFailedChunkAttempt(ctx, lane, row, error);
  const parked = await ctx.inFencedTransaction(async (trx) => {
    const updated = await trx
      .updateTable('ingestion_queue')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', row.id)
      .returning('attempts')
      .executeTakeFirst();
    if (Number(updated?.attempts ?? 0) < MAX_PROCESSING_ATTEMPTS) return false;
    await insertWarnings(trx, [parkedWarning(row, row.id, error)]);
    return true;
  });
  logFailure(ctx, row, row.id, parked, error);
}

/**
 * A chunk's event counts its failures in its own text (the chunk's row counts none: its other
 * events have theirs). At the last attempt, or at once when its text is no event, it is parked in
 * a row of its own, or, the chunk's last event, in the row itself.
 */
async function recordFailedChunkAttempt(ctx: OneByOneContext, lane: Lane, row: QueueRecord, error: unknown): Promise<void> {
  const { state, index } = row.chunk!;
  const queued = readQueued(row.payload);
  const attempts = (typeof queued?.attempts === 'number' ? queued.attempts : 0) + 1;
  if (queued && attempts < MAX_PROCESSING_ATTEMPTS) {
    const change: ChunkChange = { replace: index, text: JSON.stringify({ ...queued, attempts }) };
    const { changed } = await ctx.inFencedTransaction((trx) => rewriteChunk(trx, row, change));
    if (changed === 1) state.committed(change);
    logFailure(ctx, row, row.id, false, error);
    return;
  }
  let parkedId = row.id;
  const { changed } = await ctx.inFencedTransaction(async (trx) => {
    const alone = state.rewritten({ remove: index }) === undefined;
    // The chunk's last event: the row itself holds it, parked.
    const rewritten = await rewriteChunk(
      trx,
      row,
      alone ? { replace: index, text: row.payload } : { remove: index },
      alone ? { attempts: MAX_PROCESSING_ATTEMPTS } : {},
    );
    if (rewritten.changed !== 1) return rewritten;
    if (!alone) {
      const names = { distinct_id: '', received_at: new Date().toISOString(), ...rowNames(queued) };
      const parked = await trx
        .insertInto('ingestion_queue')
        .values({
          team_id: row.team_id,
          lane,
          ...names,
          payload: row.payload,
          attempts: MAX_PROCESSING_ATTEMPTS,
          event_count: 1,
          partition: row.partition, // parked in its partition: put back in line, it is read there
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      parkedId = Number(parked.id);
    }
    await insertWarnings(trx, [parkedWarning(row, parkedId, error)]);
    return rewritten;
  });
  if (changed === 1) state.committed({ remove: index });
  logFailure(ctx, row, parkedId, changed === 1, error);
}

function parkedWarning(row: QueueRecord, queueId: number, error: unknown) {
  return {
    teamId: Number(row.team_id),
    type: 'event_processing_failed',
    source: 'worker',
    details: { queueId: String(queueId), error: String(error), parked: true },
    timestamp: new Date().toISOString(),
  };
}

function logFailure(ctx: OneByOneContext, row: QueueRecord, queueId: number, parked: boolean, error: unknown): void {
  ctx.log.error(
    { err: error, queueId, team: row.team_id, parked },
    parked ? 'event parked in the queue after repeated failures' : 'event failed; it will be retried',
  );
}

/** The event a queue text holds, or undefined when it holds none (unreadable, or not an object). */
function readQueued(payload: string): Partial<QueuedEvent> | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Partial<QueuedEvent>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The columns by which a queue row names its (first) event, what an operator sees of it: the
 * event's distinct id and receipt time, those of them its text has.
 */
function rowNames(queued: Partial<QueuedEvent> | undefined): { distinct_id?: string; received_at?: string } {
  return {
    ...(typeof queued?.distinct_id === 'string' && { distinct_id: queued.distinct_id }),
    ...(typeof queued?.now === 'string' && { received_at: queued.now }),
  };
}
