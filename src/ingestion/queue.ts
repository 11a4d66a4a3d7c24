import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../platform/db/availability.js';
import type { Database } from '../platform/db/database.js';
import { toJson } from '../platform/db/values.js';
import type { QueuedEvent } from './core/types.js';
import { MultiRowInsert } from '../platform/db/multi-row-insert.js';
import { chunkPayloads, joinQueueRows, partitionChunks, type QueueChunk, type QueueRowText } from './core/queue-rows.js';
import { partitionCount, queuePartition } from './core/partition.js';
import { chunks } from '../lib/chunks.js';

export type { QueuedEvent } from './core/types.js';

export type Lane = 'realtime' | 'historical' | 'overflow';

export interface QueueRow {
  teamId: number;
  lane: Lane;
  distinctId: string;
  payload: QueuedEvent;
}

export interface WarningRow {
  teamId: number;
  type: string;
  source: string;
  details: unknown;
  timestamp: string;
}

interface Pending {
  /** Queue rows, serialised when handed over. */
  rows: QueueRowText[];
  events: number;
  warnings: WarningRow[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 500;

const QUEUE_INSERT = new MultiRowInsert('ingestion_queue', [
  'team_id',
  'lane',
  'distinct_id',
  'payload',
  'received_at',
  'event_count',
  'partition',
]);

/**
 * A capture request's chunks of one environment and lane (received when `now` says) as rows of
 * one partition each (partitionChunks), joinable.
 */
function joinableRows(
  rows: QueueRowText[],
  teamId: number,
  lane: Lane,
  now: string,
  chunks: readonly QueueChunk[],
  partitions: number,
): QueueRowText[] {
  for (const chunk of partitionChunks(teamId, chunks, partitions)) {
    const { distinctId, payload, count, partition } = chunk;
    rows.push({ teamId, lane, distinctId, payload, receivedAt: now, count, partition, joinable: true });
  }
  return rows;
}

/** A request's rows: runs of the same environment and lane become chunks (chunkPayloads). */
function requestRowTexts(rows: QueueRow[], partitions: number): QueueRowText[] {
  const texts: QueueRowText[] = [];
  let start = 0;
  while (start < rows.length) {
    const first = rows[start]!;
    let end = start + 1;
    while (end < rows.length && rows[end]!.teamId === first.teamId && rows[end]!.lane === first.lane) end++;
    const chunks = chunkPayloads(rows.slice(start, end).map((row) => row.payload));
    joinableRows(texts, first.teamId, first.lane, first.payload.now, chunks, partitions);
    start = end;
  }
  return texts;
}

export async function insertWarnings(db: Database['db'], warnings: WarningRow[]): Promise<void> {
  for (const chunk of chunks(warnings, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('ingestion_warnings')
      .values(
        chunk.map((w) => ({
          team_id: w.teamId,
          type: w.type,
          source: w.source,
          details: toJson(w.details),
          timestamp: w.timestamp,
        })),
      )
      .execute();
  }
}

/**
 * The durable ingestion queue's writer. Requests hand over their events and wait; everything
 * handed over is committed in one transaction (group commit), and then all those requests are
 * answered. A 200 therefore always means "on disk", at a fraction of the cost of a transaction per
 * request. The capture requests of one commit share rows too (joinQueueRows): a commit of fifty
 * single events writes one row per partition they fall into, not fifty.
 *
 * When a commit starts is what decides throughput. A fixed timer (the old policy: always wait
 * `delayMs`) holds every waiting client for the whole window even when nothing more is coming;
 * with 50 busy connections it capped capture at about 50 requests per window and left the
 * process idle a quarter of the time (CPU profile). So the window now adapts:
 * - a commit starts at the end of the event-loop turn in which requests arrived: all requests
 *   that came in together (a burst) are gathered, and nobody waits for a timer;
 * - while a commit is in flight (PostgreSQL commits are asynchronous), new requests gather and
 *   go in the next commit, which starts as soon as that one ends: the busier, the larger;
 * - only when the previous commit carried a single request, recently, does the next one wait up
 *   to `delayMs` after it: at a steady trickle of lone requests this still gathers a few per
 *   commit instead of paying a (SQLite: event-loop blocking) commit for each.
 */
export class IngestionQueueWriter {
  private pending: Pending[] = [];
  private scheduled: { cancel: () => void } | undefined;
  private flushing: Promise<void> | undefined;
  private lastCommitAt = -Infinity;
  private lastCommitRequests = 0;
  /** The queue's partitions (core/partition.ts): every row holds events of one. */
  private readonly partitions: number;
  /** Emits `committed` after each commit, so an in-process worker wakes up at once. */
  readonly events = new EventEmitter();

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    /** The longest a request is held back to gather others (see the class comment). */
    private readonly delayMs = 2,
  ) {
    this.partitions = partitionCount(database.dialect);
  }

  /** Events as rows of their own (a deferred update, a replay, a test that works on rows). */
  enqueue(rows: QueueRow[], warnings: WarningRow[] = []): Promise<void> {
    const serialise = () =>
      rows.map((r): QueueRowText => ({
        teamId: r.teamId,
        lane: r.lane,
        distinctId: r.distinctId,
        payload: JSON.stringify(r.payload),
        receivedAt: r.payload.now,
        count: 1,
        // The event's own distinct id: the one the worker's person processing goes by.
        partition: queuePartition(r.teamId, r.payload.distinct_id, this.partitions),
        joinable: false,
      }));
    return this.hand(serialise, rows.length, warnings);
  }

  /**
   * The events of one capture request: one queue row for all of them (a chunk, see
   * MAX_CHUNK_EVENTS), which costs a fraction of a row per event to write, read and delete.
   */
  enqueueRequest(rows: QueueRow[], warnings: WarningRow[] = []): Promise<void> {
    return this.hand(() => requestRowTexts(rows, this.partitions), rows.length, warnings);
  }

  /** A capture request's rows as captureRequestRows wrote them, for the environment `teamId`. */
  enqueueChunks(teamId: number, lane: Lane, now: string, chunks: readonly QueueChunk[], warnings: WarningRow[] = []): Promise<void> {
    let events = 0;
    for (const chunk of chunks) events += chunk.count;
    return this.hand(() => joinableRows([], teamId, lane, now, chunks, this.partitions), events, warnings);
  }

  /**
   * Hands rows over to the next commit. They are serialised here, outside the commit's
   * transaction (on SQLite it holds the write lock while it runs); a request whose events cannot
   * be serialised fails alone.
   */
  private hand(serialise: () => QueueRowText[], events: number, warnings: WarningRow[]): Promise<void> {
    if (events === 0 && warnings.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ rows: serialise(), events, warnings, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    const run = () => {
      this.scheduled = undefined;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.pending.length > 0) this.schedule();
      });
    };
    const wait = this.lastCommitRequests <= 1 ? this.lastCommitAt + this.delayMs - performance.now() : 0;
    if (wait > 0) {
      const timer = setTimeout(run, wait);
      this.scheduled = { cancel: () => clearTimeout(timer) };
    } else {
      const immediate = setImmediate(run);
      this.scheduled = { cancel: () => clearImmediate(immediate) };
    }
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.lastCommitAt = performance.now();
    this.lastCommitRequests = batch.length;
    // Plain loops: this runs once per commit over every request of it.
    const rows: QueueRowText[] = [];
    const warnings: WarningRow[] = [];
    let events = 0;
    for (const request of batch) {
      for (const row of request.rows) rows.push(row);
      events += request.events;
      for (const w of request.warnings) warnings.push(w);
    }
    try {
      // Inside the try: whatever fails here fails this commit's requests, never leaves them waiting.
      const values = joinQueueRows(rows).map((r) => [r.teamId, r.lane, r.distinctId, r.payload, r.receivedAt, r.count, r.partition]);
      await this.database.db.transaction().execute(async (trx) => {
        await QUEUE_INSERT.execute(trx, values);
        if (warnings.length > 0) await insertWarnings(trx, warnings);
      });
    } catch (error) {
      // An outage is logged once (DatabaseAvailability); its requests get 503 and are sent again.
      if (!isDatabaseUnavailable(error)) this.log.error({ err: error, events, requests: batch.length }, 'ingestion queue commit failed');
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) p.resolve();
    this.events.emit('committed', events);
  }

  /** Waits until everything handed over so far is committed (for shutdown). */
  async drain(): Promise<void> {
    for (;;) {
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      if (this.scheduled) {
        this.scheduled.cancel();
        this.scheduled = undefined;
      }
      if (this.pending.length === 0) return;
      this.flushing = this.flush().finally(() => (this.flushing = undefined));
    }
  }
}
