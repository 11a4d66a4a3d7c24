import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { nextTurn } from '../../platform/next-turn.js';
import { WakeableSleep } from '../../platform/wakeable-sleep.js';
import { isDatabaseUnavailable } from '../../platform/db/availability.js';
import type { Database } from '../../platform/db/database.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { Lane } from '../queue.js';
import { MAX_PROCESSING_ATTEMPTS } from './one-by-one.js';
import { partitionCount } from '../core/partition.js';
import { PartitionLeases } from './partition-leases.js';
import type { AnalyticsEngine } from '../../platform/analytics/engine.js';
import { AnalyticsCopier } from '../../events/analytics-copier.js';
import { BatchRunner } from './batch-runner.js';

export interface WorkerOptions {
  /**
   * Where stored events go (ClickHouse): committed batches' outbox rows are copied there in the
   * background, many batches per insert (AnalyticsCopier). Without it, outbox rows wait for a
   * worker that has one.
   */
  analytics?: AnalyticsEngine;
  /** Longest a committed event waits for its copy to ClickHouse (500 ms by default). */
  analyticsCopyDelayMs?: number;
  /**
   * Most events per batch (1000 by default; a batch holds whole queue rows, so one chunk larger
   * than this is a batch of its own). A quiet stream's batches are small whatever this
   * is: a batch takes what is queued. Under a backlog, 1000 gave more events per CPU second than
   * 500 on capture's queue, and larger sizes little more, for a write transaction about twice as
   * long that capture's commits may wait behind (docs/benchmarks.md).
   */
  batchSize?: number;
  /**
   * On SQLite, how long one batch's transaction may keep the process's thread (its requests wait
   * meanwhile): batches hold fewer events than `batchSize` when recent ones took longer per event
   * (BatchSizer). 25 ms by default; 0 turns it off (every batch takes up to `batchSize`). On
   * PostgreSQL a batch awaits the database between statements and holds the thread for short
   * stretches only: not used there.
   */
  batchBudgetMs?: number;
  /** How long to sleep when every lane is empty (a commit in this process wakes it sooner). */
  idleMs?: number;
  /**
   * How long the worker's partition leases last unrenewed (INGESTION_LEASE_MS, 15 s by default):
   * a worker that dies leaves its partitions to the others this long after its last renewal.
   * Renewed about three times per TTL.
   */
  leaseTtlMs?: number;
  /** Events per second one distinct id may send before its person processing is deferred; 0 = off. */
  spikeEventsPerSecond?: number;
  /**
   * GeoIP for the events' `$geoip_*` properties. A promise while it loads: no event is processed
   * before it settles (an event processed meanwhile would be stored without them for good). It
   * resolves with undefined when there is none to wait for (off, or the bundled file unreadable).
   */
  geoip?: GeoipService | Promise<GeoipService | undefined> | undefined;
  /** Emits `committed` when capture in this process commits to the queue. */
  wakeUp?: EventEmitter | undefined;
  /** Called after each team's first event is stored (to drop cached copies of the team). */
  onTeamChanged?: (teamId: number) => Promise<void>;
  /**
   * Under a backlog, prepare the next batch on a second thread while this one is written (on by
   * default; off, every batch is prepared in the worker's own thread, with the same results).
   */
  prepareAhead?: boolean;
}

/** The realtime lane first; history and deferred person updates when they are due. */
const LANES: Lane[] = ['realtime', 'historical', 'overflow'];

export { MAX_PROCESSING_ATTEMPTS };

/**
 * Turns queued events into stored events, persons and groups. The queue is split into partitions
 * by distinct id (core/partition.ts: 16 on PostgreSQL, 1 on SQLite); the workers share them
 * through leases (partition-leases.ts), and each processes the rows of the partitions it holds in
 * id order, so each distinct id's events are handled in the order they arrived. A worker that
 * dies leaves its partitions to the others when its leases lapse. Each batch is one transaction
 * that also deletes the queue rows it processed, so a crash loses nothing and a replay duplicates
 * nothing. This class runs the rounds (leases, GeoIP's load, start and stop, the copy to
 * ClickHouse); each lane's batch is read, prepared and written by the batch runner (batch-runner.ts).
 */
export class IngestionWorker {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly pause = new WakeableSleep();
  /** The queue partitions this worker holds. */
  private readonly leases: PartitionLeases;
  private readonly options: Required<Omit<WorkerOptions, 'geoip' | 'wakeUp' | 'onTeamChanged' | 'analytics' | 'analyticsCopyDelayMs'>> &
    WorkerOptions;
  /** Set while GeoIP loads (see WorkerOptions.geoip). */
  private geoipLoading: Promise<GeoipService | undefined> | undefined;
  /** Set by stop() (until start()): no new rounds, so the lease once given up stays given up. */
  private stopped = false;
  /** The last round of runOnce(), which stop() waits for. */
  private round: Promise<void> = Promise.resolve();
  private readonly copier: AnalyticsCopier | undefined;
  /** Rows an earlier holder of the lease left in the outbox were asked to be copied. */
  private outboxTakenOver = false;
  /** Reads, prepares and writes each lane's batches. */
  private readonly batches: BatchRunner;

  /** Batches written with rows the prepare thread prepared (for logs and tests). */
  get batchesPreparedAhead(): number {
    return this.batches.batchesPreparedAhead;
  }

  /** Batches run again after losing a race with a concurrent writer (conflict-retry.ts). */
  get batchesRetriedOnConflict(): number {
    return this.batches.batchesRetriedOnConflict;
  }

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    options: WorkerOptions = {},
  ) {
    this.options = {
      batchSize: 1000,
      batchBudgetMs: 25,
      idleMs: 200,
      leaseTtlMs: 15_000,
      spikeEventsPerSecond: 0,
      prepareAhead: true,
      ...options,
    };
    this.leases = new PartitionLeases(database.db, this.owner, partitionCount(database.dialect), this.options.leaseTtlMs, log);
    if (options.analytics)
      this.copier = new AnalyticsCopier(database.db, options.analytics, log, { maxDelayMs: options.analyticsCopyDelayMs });
    this.batches = new BatchRunner(database, log, this.leases, this.copier, this.options, () => this.forgetWhatOthersMayChange());
    if (options.geoip instanceof Promise) {
      const loading = options.geoip;
      this.geoipLoading = loading;
      loading.then(
        (geoip) => {
          if (this.geoipLoading === loading) this.useGeoip(geoip);
          this.wake();
        },
        () => undefined, // never used: the worker goes on waiting (its owner stops the process)
      );
    } else this.useGeoip(options.geoip);
    options.wakeUp?.on('committed', () => this.wake());
  }

  /** GeoIP is known (loaded, or none): events can be processed, and prepared on the prepare thread, which reads it too. */
  private useGeoip(geoip: GeoipService | undefined): void {
    this.geoipLoading = undefined;
    this.batches.useGeoip(geoip, this.options.prepareAhead);
  }

  /**
   * Waits until GeoIP is loaded; false when the worker was stopped first. Woken by the load and
   * by stop(); the periodic wake-up is a safety net only.
   */
  private async geoipReady(): Promise<boolean> {
    if (this.geoipLoading && !this.stopped) this.log.info('ingestion worker waiting for the GeoIP database to load');
    while (this.geoipLoading) {
      if (this.stopped) return false;
      await this.pause.sleep(1000);
    }
    return !this.stopped;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopped = false;
    this.copier?.resume();
    this.log.info({ owner: this.owner }, 'ingestion worker started');
    this.loop = this.run();
  }

  /** Stops the loop (if started), the prepare thread, and gives up the leases (also after `drain`). */
  async stop(): Promise<void> {
    const wasRunning = this.running;
    this.stopped = true;
    if (wasRunning) {
      this.running = false;
      this.wake();
      await this.loop;
    }
    // A round started by drain() or runOnce() finishes (its batch commits) before the leases go.
    await this.round;
    await this.batches.close();
    const held = this.holding;
    // What this worker committed is copied before it goes (what is left, the next start copies).
    if (held) await this.copier?.flush().catch((error: unknown) => this.log.warn({ err: error }, 'copying events to ClickHouse failed'));
    await this.copier?.stop();
    // Started again, it takes partitions afresh: others may have written persons in between.
    await this.leases.release().catch(() => undefined);
    this.forgetWhatOthersMayChange();
    if (wasRunning) this.log.info({ owner: this.owner }, 'ingestion worker stopped');
  }

  /** New work may be queued (another process committed to the queue): stop waiting for the next poll. */
  wake(): void {
    this.pause.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      let processed = 0;
      try {
        processed = await this.runOnce();
      } catch (error) {
        // An unreachable database is logged once for the whole outage (platform/db/availability.ts).
        if (!isDatabaseUnavailable(error)) this.log.error({ err: error }, 'ingestion worker batch failed; retrying');
        await this.pause.sleep(1000);
      }
      if (processed === 0 && this.running) await this.pause.sleep(this.options.idleMs);
      else await nextTurn();
    }
  }

  /** Whether this worker holds any partition of the queue now. */
  private get holding(): boolean {
    return this.leases.held.length > 0;
  }

  /**
   * Whether this process may work now; renews its leases a few times per TTL (and at every round
   * while it holds none, to get its share as soon as there is one).
   */
  private async holdPartitions(): Promise<boolean> {
    const now = Date.now();
    const renewedAt = this.leases.renewedAt;
    if (this.holding && !this.leases.renewDue && now - renewedAt < this.options.leaseTtlMs / 3) return true;
    // The leases may have lapsed meanwhile, and another worker taken the rows read ahead (and
    // written persons this one keeps).
    if (now - renewedAt >= this.options.leaseTtlMs) this.forgetWhatOthersMayChange();
    // Rows read ahead were read for the partitions held then.
    if (await this.leases.renew()) this.forgetWhatOthersMayChange();
    return this.holding;
  }

  /** One batch from each lane that has work; returns how many queued events were processed. */
  async runOnce(): Promise<number> {
    if (this.stopped) return 0;
    if (this.geoipLoading && !(await this.geoipReady())) return 0;
    const round = this.runRound();
    this.round = round.then(
      () => undefined,
      () => undefined,
    );
    return round;
  }

  private async runRound(): Promise<number> {
    if (!(await this.holdPartitions())) {
      this.forgetWhatOthersMayChange();
      return 0;
    }
    // Rows a crashed or stopped worker left for ClickHouse.
    if (!this.outboxTakenOver) {
      this.outboxTakenOver = true;
      this.copier?.copyWaiting();
    }
    let total = 0;
    for (const lane of LANES) {
      // A batch holds the process's thread for its whole transaction (tens of ms on SQLite): the
      // requests waiting meanwhile are answered before the next one starts.
      if (total > 0) await nextTurn();
      total += await this.batches.processLane(lane);
      if (!this.holding) break; // lost during the lane: other workers go on
    }
    if (total === 0 && this.holding) this.copier?.copyIfIdle();
    return total;
  }

  /**
   * Starts the prepare thread now instead of with the first backlog (benchmarks: throughput, not
   * the thread's start-up, which is paid once). True when the thread is ready.
   */
  async warmUp(): Promise<boolean> {
    if (this.stopped) return false; // stop() closed the thread; none is started after it
    if (this.geoipLoading && !(await this.geoipReady())) return false;
    return this.batches.warmUp();
  }

  /** Processes until the queue is empty (for tests). */
  async drain(): Promise<void> {
    while ((await this.runOnce()) > 0) {
      // keep going
    }
    if (this.holding) await this.copier?.flush();
  }

  /**
   * When the partitions held change (or may have), another worker may take the rows read ahead
   * and write the persons kept: neither is trusted.
   */
  private forgetWhatOthersMayChange(): void {
    this.batches.forget();
    this.outboxTakenOver = false;
  }
}
