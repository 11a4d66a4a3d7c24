import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import { toJson } from '../db/values.js';
import type { Properties } from './core/types.js';

/** What capture commits for one accepted event: the event as sent plus its request context. */
export interface QueuedEvent {
  /** Sent by the client, or generated at capture so a replay after a crash dedupes. */
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Properties;
  timestamp?: unknown;
  offset?: unknown;
  set?: Properties | undefined;
  set_once?: Properties | undefined;
  unset?: unknown;
  /** The request's sent_at, ISO, when known. */
  sent_at?: string | null;
  /** When capture received it, ISO. */
  now: string;
  /** The client address, for `$ip` and GeoIP. */
  ip: string | null;
  /** Person-only replay of an event whose person processing was deferred by spike detection. */
  person_only?: boolean;
}

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
  rows: QueueRow[];
  warnings: WarningRow[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 500;

export async function insertWarnings(db: Database['db'], warnings: WarningRow[]): Promise<void> {
  for (let i = 0; i < warnings.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('ingestion_warnings')
      .values(
        warnings.slice(i, i + ROWS_PER_STATEMENT).map((w) => ({
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
 * The durable ingestion queue's writer. Requests hand over their events and wait; every few
 * milliseconds everything handed over is committed in one transaction (group commit), and then
 * all those requests are answered. A 200 therefore always means "on disk", at a fraction of the
 * cost of a transaction per request.
 */
export class IngestionQueueWriter {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Emits `committed` after each commit, so an in-process worker wakes up at once. */
  readonly events = new EventEmitter();

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    private readonly delayMs = 2,
  ) {}

  enqueue(rows: QueueRow[], warnings: WarningRow[] = []): Promise<void> {
    if (rows.length === 0 && warnings.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ rows, warnings, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.flushing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.pending.length > 0) this.schedule();
      });
    }, this.delayMs);
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const rows = batch.flatMap((p) => p.rows);
    const warnings = batch.flatMap((p) => p.warnings);
    try {
      await this.database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
          await trx
            .insertInto('ingestion_queue')
            .values(
              rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({
                team_id: r.teamId,
                lane: r.lane,
                distinct_id: r.distinctId,
                payload: JSON.stringify(r.payload),
                received_at: r.payload.now,
              })),
            )
            .execute();
        }
        await insertWarnings(trx, warnings);
      });
    } catch (error) {
      this.log.error({ err: error, events: rows.length, requests: batch.length }, 'ingestion queue commit failed');
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) p.resolve();
    this.events.emit('committed', rows.length);
  }

  /** Waits until everything handed over so far is committed (for shutdown). */
  async drain(): Promise<void> {
    for (;;) {
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      if (this.pending.length === 0) return;
      this.flushing = this.flush().finally(() => (this.flushing = undefined));
    }
  }
}
