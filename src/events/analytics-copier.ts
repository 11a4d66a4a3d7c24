import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Schema } from '../platform/db/schema.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { KeptOutboxRows, type OutboxRow } from './outbox-rows.js';
import { copyOutboxGroup, flushOutbox, outboxHoldsClaimable } from './outbox-copy.js';

export interface CopierOptions {
  /** Longest an event waits in the outbox once committed (a quiet stream's events are copied this late). */
  maxDelayMs?: number;
  /** Committed events that start a copy at once, without waiting for the delay. */
  copyAtEvents?: number;
  /** Longest a committed event waits under a backlog (5 s). */
  backlogDelayMs?: number;
}

/** Longest a committed event waits under a backlog. */
const BACKLOG_DELAY_MS = 5000;
/** After a failed copy, the next try waits this long (then twice as long, up to a minute). */
const RETRY_MS = 1000;

/**
 * Copies the worker's committed batches from the outbox to ClickHouse in the background, many
 * batches per insert: when `copyAtEvents` events wait, or `maxDelayMs` after the first of them
 * committed, whichever comes first. The worker goes on with its next batch meanwhile; one copy
 * runs at a time. Under a backlog a copy takes what committed while the one before ran, so the
 * inserts grow with the load.
 */
export class AnalyticsCopier {
  private readonly maxDelayMs: number;
  private readonly copyAtEvents: number;
  private readonly backlogDelayMs: number;
  /** Events committed since the last copy started. */
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = 0;
  private running: Promise<void> | undefined;
  /** Another copy was asked for while one ran. */
  private again = false;
  private failures = 0;
  /** The next copy goes on until the outbox is empty. */
  private drain = false;
  private stopped = false;
  /** The rows this worker committed, for their copy (not read back). */
  private readonly kept = new KeptOutboxRows();

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly engine: AnalyticsEngine,
    private readonly log: Logger,
    options: CopierOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 500;
    this.copyAtEvents = options.copyAtEvents ?? 10_000;
    this.backlogDelayMs = options.backlogDelayMs ?? BACKLOG_DELAY_MS;
  }

  /**
   * A batch of `events` events committed to the outbox, in `rows`. Under a backlog (more was queued behind
   * the batch) the copy waits for `copyAtEvents`: its events are late anyway, and larger inserts
   * leave more of the machine to the worker (BACKLOG_DELAY_MS at most).
   */
  committed(events: number, backlog = false, rows: readonly OutboxRow[] = []): void {
    if (this.stopped) return;
    for (const row of rows) this.kept.keep(row);
    this.waiting += events;
    if (this.waiting >= this.copyAtEvents) this.copySoon(0);
    else this.copySoon(backlog ? this.backlogDelayMs : this.maxDelayMs);
  }

  /** Rows may wait from before (a start after a crash, a worker taking over): copied at once. */
  copyWaiting(): void {
    if (this.stopped) return;
    this.drain = true;
    this.copySoon(0);
  }

  /**
   * The worker found nothing to do: rows others left (a person split's overrides, a crashed
   * worker's batches) are copied, unless a copy is planned already.
   */
  copyIfIdle(): void {
    if (this.stopped || this.timer || this.running) return;
    this.drain = true;
    this.start();
  }

  /** Copies everything waiting now, and waits for it (a failure is thrown). */
  async flush(): Promise<void> {
    this.clearTimer();
    await this.running;
    await flushOutbox(this.db, this.engine, this.kept);
    this.waiting = 0;
  }

  /** No more copies; the running one finishes. What waits stays in the outbox for the next worker or start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.running;
    this.kept.clear();
  }

  /** Copies again after stop(). */
  resume(): void {
    this.stopped = false;
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A copy within `delayMs` (sooner if one is planned sooner already). */
  private copySoon(delayMs: number): void {
    if (delayMs === 0 && this.running) {
      this.again = true;
      return;
    }
    const due = Date.now() + delayMs;
    if (this.timer && this.timerDue <= due) return;
    this.clearTimer();
    if (delayMs === 0) this.start();
    else {
      this.timerDue = due;
      this.timer = setTimeout(() => this.start(), delayMs);
    }
  }

  private start(): void {
    this.clearTimer();
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.copy().finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.start();
      }
    });
  }

  /**
   * One insert of what waits now (whatever commits meanwhile counts for the next), or, when rows
   * waited from before, inserts until none is left.
   */
  private async copy(): Promise<void> {
    const drain = this.drain;
    this.drain = false;
    this.waiting = 0;
    try {
      // A drain takes every row; otherwise, beside other workers, this worker's own (copyOutboxGroup).
      const options = { everyRow: drain };
      let rows = await copyOutboxGroup(this.db, this.engine, this.kept, options);
      while (drain && rows > 0 && !this.stopped) rows = await copyOutboxGroup(this.db, this.engine, this.kept, options);
      this.failures = 0;
      if (rows === 0) return;
      if (this.waiting >= this.copyAtEvents) this.again = true;
      // Rows left behind (more than one insert's worth waited) go with the next copy: planned by
      // committed() when batches committed meanwhile, with the delay of a backlog when they are one
      // (a copy after maxDelayMs would cut a backlog's inserts to what commits in a copy's time).
      // Only rows this copier could claim count: others' young rows are their workers' to copy.
      else if (this.waiting === 0 && (await outboxHoldsClaimable(this.db, this.kept, options))) this.copySoon(this.maxDelayMs);
    } catch (error) {
      this.failures++;
      this.drain ||= drain;
      this.again = false;
      const delay = Math.min(60_000, RETRY_MS * 2 ** (this.failures - 1));
      this.log.warn({ err: error, retryInMs: delay }, 'copying events to ClickHouse failed; retrying');
      if (!this.stopped) this.copySoon(delay);
    }
  }
}
