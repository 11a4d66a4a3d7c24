import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import { nextTurn } from '../../platform/next-turn.js';
import { WakeableSleep } from '../../platform/wakeable-sleep.js';
import { isDatabaseUnavailable } from '../../platform/db/availability.js';
import type { Database } from '../../platform/db/database.js';
import type { Schema } from '../../platform/db/schema.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { IngestionWarning } from '../core/index.js';
import type { Lane } from '../queue.js';
import { queueHeadId, readQueueBatch } from '../queue-records.js';
import { processBatch, QueueRowsGone, type BatchDeps, type BatchOutcome, type QueueRecord } from './batch.js';
import { LeaseLost, MAX_PROCESSING_ATTEMPTS, processOneByOne, type OneByOneContext } from './one-by-one.js';
import { partitionCount } from '../core/partition.js';
import { PartitionLeases } from './partition-leases.js';
import { BatchSizer } from './batch-sizer.js';
import { PersonCache } from './person-cache.js';
import type { PreparedRow } from './prepare.js';
import { PrepareThread } from './prepare-thread-client.js';
import { countPersonDeletions, PERSON_DELETIONS } from '../../persons/store.js';
import { getTeam } from '../../environments/tenancy-store.js';
import { SpikeDetector } from './spike-detector.js';
import type { AnalyticsEngine } from '../../platform/analytics/engine.js';
import { AnalyticsCopier } from '../../events/analytics-copier.js';
import { DefinitionsCache } from './definitions-step.js';
import { ConflictRetry } from './conflict-retry.js';

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

/** A batch read, and being prepared on the prepare thread, while the batch before it is written. */
interface Lookahead {
  rows: QueueRecord[];
  /** The lane held more after these rows when they were read. */
  more: boolean;
  prepared: Promise<PreparedRow[] | undefined>;
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
 * nothing.
 */
export class IngestionWorker {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly spikes: SpikeDetector;
  private readonly hotWarned = new Map<string, number>();
  /** Group type indexes of committed batches (see GroupTypeCache). */
  private readonly groupTypes = new Map<string, number>();
  /** The persons recent batches read or wrote (see PersonCache). */
  private readonly personCache = new PersonCache();
  private readonly definitions = new DefinitionsCache();
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly pause = new WakeableSleep();
  /** The queue partitions this worker holds. */
  private readonly leases: PartitionLeases;
  private readonly options: Required<Omit<WorkerOptions, 'geoip' | 'wakeUp' | 'onTeamChanged' | 'analytics' | 'analyticsCopyDelayMs'>> &
    WorkerOptions;
  /** The events the next batch may hold (the SQLite time budget, or always batchSize). */
  private readonly sizer: BatchSizer | undefined;
  private prepareThread: PrepareThread | undefined;
  private geoip: GeoipService | undefined;
  /** Set while GeoIP loads (see WorkerOptions.geoip). */
  private geoipLoading: Promise<GeoipService | undefined> | undefined;
  /** Per lane: the next batch, read and being prepared while the current one is written. */
  private readonly ahead = new Map<Lane, Lookahead>();
  /** Set by stop() (until start()): no new rounds, so the lease once given up stays given up. */
  private stopped = false;
  /** The last round of runOnce(), which stop() waits for. */
  private round: Promise<void> = Promise.resolve();
  /** Batches written with rows the prepare thread prepared (for logs and tests). */
  batchesPreparedAhead = 0;

  /** Batches run again after losing a race with a concurrent writer (conflict-retry.ts). */
  get batchesRetriedOnConflict(): number {
    return this.conflicts.retried;
  }
  private readonly copier: AnalyticsCopier | undefined;
  /** Rows an earlier holder of the lease left in the outbox were asked to be copied. */
  private outboxTakenOver = false;
  /** Runs a batch again when it loses a race with another worker's batch (PostgreSQL). */
  private readonly conflicts: ConflictRetry;

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
    if (database.dialect === 'sqlite' && this.options.batchBudgetMs > 0)
      this.sizer = new BatchSizer(this.options.batchSize, this.options.batchBudgetMs);
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
    this.spikes = new SpikeDetector(this.options.spikeEventsPerSecond);
    this.conflicts = new ConflictRetry(log, {
      forgetStale: () => {
        this.personCache.clear();
        this.groupTypes.clear();
        this.definitions.clear();
      },
    });
    if (options.analytics)
      this.copier = new AnalyticsCopier(database.db, options.analytics, log, { maxDelayMs: options.analyticsCopyDelayMs });
    options.wakeUp?.on('committed', () => this.wake());
  }

  /** GeoIP is known (loaded, or none): events can be processed, and prepared on the prepare thread, which reads it too. */
  private useGeoip(geoip: GeoipService | undefined): void {
    this.geoipLoading = undefined;
    this.geoip = geoip;
    if (this.options.prepareAhead) this.prepareThread = new PrepareThread(geoip, this.log);
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
    await this.prepareThread?.close();
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
    if (this.holding && now - renewedAt < this.options.leaseTtlMs / 3) return true;
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
      total += await this.processLane(lane);
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
    return (await this.prepareThread?.warmUp()) ?? false;
  }

  /** Processes until the queue is empty (for tests). */
  async drain(): Promise<void> {
    while ((await this.runOnce()) > 0) {
      // keep going
    }
    if (this.holding) await this.copier?.flush();
  }

  /** The partitions a read takes: those held, or all (no condition) when this worker holds every one. */
  private get readPartitions(): readonly number[] | undefined {
    return this.leases.holdsAll ? undefined : this.leases.held;
  }

  private async processLane(lane: Lane): Promise<number> {
    // The stretch this batch holds the thread for: all of it but the wait for the prepare thread.
    const stretchStarted = performance.now();
    const ahead = await this.takeLookahead(lane);
    const read = ahead
      ? { records: ahead.rows, more: ahead.more }
      : await readQueueBatch(this.database.db, lane, this.nextBatchSize, MAX_PROCESSING_ATTEMPTS, undefined, this.readPartitions);
    const rows = read.records;
    if (rows.length === 0) return 0;
    // More behind a batch means a backlog: read the next one and have it prepared while this one is written.
    if (this.prepareThread && read.more) await this.lookAhead(lane, rows);
    const started = Date.now();
    let prepared: PreparedRow[] | undefined;
    try {
      const waitStarted = performance.now();
      prepared = ahead && (await ahead.prepared);
      const waited = performance.now() - waitStarted;
      if (prepared) this.batchesPreparedAhead++;
      const partitions = partitionsOf(rows);
      const outcome = await this.conflicts.run(
        (retry) =>
          this.inFencedTransaction(partitions, (trx) =>
            processBatch(trx, lane, rows, { ...this.batchDeps(), lockPersons: retry > 0 || !this.leases.holdsAll }, prepared),
          ),
        { lane, rows: rows.length },
      );
      this.sizer?.record(rows.length, performance.now() - stretchStarted - waited);
      await this.afterCommit(outcome, read.more);
    } catch (error) {
      // The batch read ahead goes: events this one leaves in the queue must come before it.
      this.ahead.delete(lane);
      if (error instanceof LeaseLost) {
        this.lostLease(lane, rows.length);
        return 0;
      }
      if (error instanceof QueueRowsGone) {
        // Deleted meanwhile: by an environment's deletion (its queue rows go with it), or by another
        // worker that held a partition. The rest of the batch is read again; the leases are checked now.
        this.log.warn(
          { lane, rows: rows.length, missing: error.missing },
          'batch rolled back: some of its queue rows were deleted meanwhile',
        );
        this.leases.renewedAt = 0;
        return rows.length;
      }
      // One bad event must not stall the queue: retry the batch one event per transaction.
      this.log.warn({ err: error, lane, rows: rows.length }, 'batch failed; processing its events one by one');
      try {
        await processOneByOne(this.oneByOne(partitionsOf(rows)), lane, rows);
      } catch (aloneError) {
        if (!(aloneError instanceof LeaseLost)) throw aloneError;
        this.lostLease(lane, rows.length);
        return 0;
      }
    }
    this.log.debug(
      { lane, events: rows.length, preparedAhead: prepared !== undefined, ms: Date.now() - started },
      'ingestion batch processed',
    );
    return rows.length;
  }

  /**
   * A transaction that first checks that this worker still holds the leases of `partitions` (the
   * batch's). Leases are renewed a few times per TTL, and a round can outlast one (a slow batch,
   * a failed one retried event by event): another worker may have taken a partition over and
   * processed its rows. It is a fence: on SQLite the write lock is held from `begin`; on
   * PostgreSQL the lease rows are read FOR SHARE, so a takeover (which updates them) waits for this
   * transaction to end.
   * Which person owns a distinct id (PersonCache) is trusted only while this worker holds every
   * partition: a merge in another worker's partition can change it; persons by version stay
   * trusted (PersonCache.forgetOwners). Persons deleted by others since the last
   * batch empty the cache too. A transaction that fails empties it: a failed commit may have
   * committed all the same (a connection lost during COMMIT), so what was kept may be stale.
   */
  private async inFencedTransaction<T>(partitions: readonly number[], work: (trx: Transaction<Schema>) => Promise<T>): Promise<T> {
    // A renewal older than the lease time may have lost a partition this batch does not fence on.
    if (!this.leases.holdsAll || Date.now() - this.leases.renewedAt >= this.options.leaseTtlMs) this.personCache.forgetOwners();
    try {
      return await this.database.db.transaction().execute(async (trx) => {
        const fence = await this.leases.fence(trx, partitions, PERSON_DELETIONS);
        if (!fence.held) throw new LeaseLost();
        this.personCache.checkDeletions(fence.counter ?? (await countPersonDeletions(trx)));
        return work(trx);
      });
    } catch (error) {
      this.personCache.clear();
      throw error;
    }
  }

  /** Found in a batch's transaction: another worker holds one of its partitions. Nothing kept is trusted. */
  private lostLease(lane: Lane, rows: number): void {
    this.leases.lost();
    this.forgetWhatOthersMayChange();
    this.log.warn({ lane, rows }, 'ingestion partition taken by another worker; batch rolled back');
  }

  /**
   * When the partitions held change (or may have), another worker may take the rows read ahead
   * and write the persons kept: neither is trusted.
   */
  private forgetWhatOthersMayChange(): void {
    this.ahead.clear();
    this.personCache.clear();
    this.outboxTakenOver = false;
  }

  /**
   * The lane's batch read ahead, unless a row before it is waiting (one that became visible late
   * on PostgreSQL, or a parked row put back in line): then the lane is read from its head again,
   * so each distinct id's events are still processed in queue order.
   */
  private async takeLookahead(lane: Lane): Promise<Lookahead | undefined> {
    const ahead = this.ahead.get(lane);
    this.ahead.delete(lane);
    if (!ahead) return undefined;
    // The head of the lane, read as every batch's size is (the query shape tuned for the queue).
    const head = await queueHeadId(this.database.db, lane, MAX_PROCESSING_ATTEMPTS, this.readPartitions);
    if (head !== undefined && head < ahead.rows[0]!.id) return undefined;
    return ahead;
  }

  /** Reads the batch after `rows` and sends it to the prepare thread. */
  private async lookAhead(lane: Lane, rows: QueueRecord[]): Promise<void> {
    const { records: next, more } = await readQueueBatch(
      this.database.db,
      lane,
      this.nextBatchSize,
      MAX_PROCESSING_ATTEMPTS,
      rows[rows.length - 1]!.id,
      this.readPartitions,
    );
    if (next.length === 0) return;
    const anonymized: number[] = [];
    for (const teamId of new Set(next.map((row) => Number(row.team_id)))) {
      if ((await getTeam(this.database.db, teamId))?.settings.anonymize_ips === true) anonymized.push(teamId);
    }
    this.ahead.set(lane, { rows: next, more, prepared: this.prepareThread!.prepare(next, anonymized) });
  }

  private get nextBatchSize(): number {
    return this.sizer?.nextSize ?? this.options.batchSize;
  }

  private batchDeps(): BatchDeps {
    return {
      spikes: this.spikes,
      geoip: this.geoip,
      groupTypes: this.groupTypes,
      personCache: this.personCache,
      definitions: this.definitions,
      warnHot: (...args) => this.warnHot(...args),
    };
  }

  /**
   * After a batch's transaction committed: the batch's own bookkeeping, its events to be copied
   * to ClickHouse, then teams that got their first event.
   */
  private async afterCommit(outcome: BatchOutcome, backlog = false): Promise<void> {
    outcome.committed();
    this.copier?.committed(outcome.outboxEvents, backlog);
    for (const teamId of outcome.firstEventTeams) await this.options.onTeamChanged?.(teamId);
  }

  /** What the one-by-one retry of a failed batch (of rows of `partitions`) uses (one-by-one.ts). */
  private oneByOne(partitions: readonly number[]): OneByOneContext {
    return {
      // Each event's transaction loses races as a batch's does: retried alike, not counted as a failure.
      inFencedTransaction: (work) => this.conflicts.run(() => this.inFencedTransaction(partitions, work), { oneByOne: true }),
      // Beside other workers, persons are read locked here too (a batch that kept losing races ends here).
      batchDeps: () => ({ ...this.batchDeps(), lockPersons: !this.leases.holdsAll }),
      afterCommit: (outcome) => this.afterCommit(outcome),
      log: this.log,
    };
  }

  /** One warning per hot distinct id per minute, not one per event. */
  private warnHot(teamId: number, distinctId: string, now: number, record: (w: IngestionWarning[]) => void): void {
    const key = `${teamId}:${distinctId}`;
    if ((this.hotWarned.get(key) ?? 0) > now - 60_000) return;
    this.hotWarned.set(key, now);
    if (this.hotWarned.size > 10_000) this.hotWarned.clear();
    record([{ type: 'person_processing_deferred', details: { distinctId, reason: 'event rate above the spike limit' } }]);
  }
}

/** The partitions of a batch's rows, ascending. */
function partitionsOf(rows: readonly QueueRecord[]): number[] {
  const partitions = new Set<number>();
  for (const row of rows) partitions.add(row.partition);
  return [...partitions].sort((a, b) => a - b);
}
