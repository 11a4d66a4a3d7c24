import type { Logger } from 'pino';
import { databaseErrorCode, isConcurrentWriteConflict } from '../../platform/db/write-conflicts.js';

/** Retries of one batch after a conflict before it goes to the one-by-one fallback. */
export const CONFLICT_RETRIES = 4;

/** The longest pause before a retry is this times the retry's number (randomized below it). */
const PAUSE_STEP_MS = 25;

export interface ConflictRetryOptions {
  /** Drops what the worker keeps between batches that a concurrent writer may have made stale. */
  forgetStale(): void;
  retries?: number;
  /** Waits `ms` (tests pass a wait they can observe; the worker's default is a timer). */
  pause?: (ms: number) => Promise<void>;
}

/**
 * A batch's transaction on PostgreSQL, where several workers' batches run at once, can lose a race
 * with another batch writing the same rows: a deadlock, a distinct id or group the other created
 * first, a person it merged away (write-conflicts.ts). Nothing is wrong with the batch's events:
 * the transaction rolled back, and the batch is run again whole, from fresh reads, with the
 * worker's caches dropped, after a short randomized pause that lets the other commit and keeps
 * two batches from colliding again in step. The worker runs a batch again with its persons read
 * locked (BatchDeps.lockPersons; beside other workers, the first run too): a batch whose persons
 * another worker keeps updating would otherwise lose race after race for them. After CONFLICT_RETRIES the error goes up to the
 * caller (the one-by-one fallback). SQLite's errors are never conflicts: nothing changes there.
 */
export class ConflictRetry {
  /** Batches run again after a conflict, since the worker started (for logs and tests). */
  retried = 0;
  private readonly retries: number;
  private readonly pause: (ms: number) => Promise<void>;

  constructor(
    private readonly log: Logger,
    private readonly options: ConflictRetryOptions,
  ) {
    this.retries = options.retries ?? CONFLICT_RETRIES;
    this.pause = options.pause ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /**
   * Runs `attempt` (a whole batch's transaction), again after each conflict, up to the limit;
   * `attempt` is told which retry it is (0: the first run).
   */
  async run<T>(attempt: (retry: number) => Promise<T>, context: Record<string, unknown> = {}): Promise<T> {
    for (let retry = 1; ; retry++) {
      try {
        return await attempt(retry - 1);
      } catch (error) {
        if (retry > this.retries || !isConcurrentWriteConflict(error)) throw error;
        this.retried++;
        const pauseMs = Math.round(Math.random() * PAUSE_STEP_MS * retry);
        this.log.warn(
          { ...context, code: databaseErrorCode(error), retry, pauseMs, reason: error instanceof Error ? error.message : String(error) },
          'batch lost a race with a concurrent writer; retrying it',
        );
        this.options.forgetStale();
        await this.pause(pauseMs);
      }
    }
  }
}
