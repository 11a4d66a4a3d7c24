import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Database } from '../platform/db/database.js';
import { acquireLease, releaseLease } from '../platform/lease.js';
import { nextTurn } from '../platform/next-turn.js';
import { PeriodicTask } from '../platform/periodic-task.js';
import { firstKeptDay, pruneEventUuidsBatch } from './event-uuids-store.js';

const LEASE = 'event-uuids-prune';
const LEASE_TTL_MS = 60_000;

export interface EventUuidsPrunerOptions {
  /** Days a stored event's uuid is remembered (INGESTION_DEDUPE_DAYS); 0: forever, nothing is pruned. */
  days: number;
  /** Rows per delete statement. */
  batchSize?: number;
  /** How often to prune. */
  intervalMs?: number;
  /** The clock, in milliseconds since 1970 (tests set it). */
  now?: () => number;
}

/**
 * Deletes the `event_uuids` rows older than the dedupe window (event-uuids-store.ts), a short
 * statement at a time with a turn of the event loop between, so SQLite's writer is never held long
 * and a first prune of millions of rows after an upgrade does not stall the process. Runs wherever
 * the ingestion worker runs, hourly; one process at a time (a lease, renewed while it works).
 */
export class EventUuidsPruner {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly days: number;
  private readonly batchSize: number;
  private readonly now: () => number;
  private readonly task: PeriodicTask;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    options: EventUuidsPrunerOptions,
  ) {
    this.days = options.days;
    this.batchSize = options.batchSize ?? 2000;
    this.now = options.now ?? Date.now;
    const round = async (): Promise<void> => {
      await this.prune();
    };
    this.task = new PeriodicTask(log, round, {
      name: 'event uuids prune',
      intervalMs: options.intervalMs ?? 60 * 60_000,
      failureMessage: 'pruning event uuids failed; retrying later',
    });
  }

  /** Prunes now and then every interval; nothing when the window is 0 (kept forever). */
  start(): void {
    if (this.days !== 0) this.task.start();
  }

  /** Stops after the statement in progress. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /**
   * Deletes every row older than the window, a batch at a time; returns how many. 0 when the
   * window is 0, or another process holds the lease (it is pruning).
   */
  async prune(): Promise<number> {
    if (this.days === 0) return 0;
    if (!(await acquireLease(this.database.db, LEASE, this.owner, LEASE_TTL_MS))) return 0;
    const before = firstKeptDay(this.now(), this.days);
    let pruned = 0;
    let renewedAt = Date.now();
    try {
      for (;;) {
        const deleted = await pruneEventUuidsBatch(this.database, before, this.batchSize);
        pruned += deleted;
        if (deleted < this.batchSize) break;
        await nextTurn();
        if (Date.now() - renewedAt > LEASE_TTL_MS / 3) {
          // Taken over (this process stalled past the TTL): the other process finishes the work.
          if (!(await acquireLease(this.database.db, LEASE, this.owner, LEASE_TTL_MS))) break;
          renewedAt = Date.now();
        }
        // Stopping: the rest is for the next start.
        if (this.task.stopping) break;
      }
    } finally {
      await releaseLease(this.database.db, LEASE, this.owner).catch(() => undefined);
    }
    if (pruned > 0)
      this.log.info(
        { rows: pruned, storedBefore: new Date(before * 86_400_000).toISOString().slice(0, 10), days: this.days },
        'event uuids older than the dedupe window pruned',
      );
    return pruned;
  }
}
