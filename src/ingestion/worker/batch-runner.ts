import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../platform/db/database.js';
import type { Schema } from '../../platform/db/schema.js';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { IngestionWarning } from '../core/index.js';
import type { Lane } from '../queue.js';
import { queueHeadId, readQueueBatch } from '../queue-records.js';
import { processBatch, QueueRowsGone, type BatchDeps, type BatchOutcome, type QueueRecord } from './batch.js';
import { LeaseLost, MAX_PROCESSING_ATTEMPTS, processOneByOne, type OneByOneContext } from './one-by-one.js';
import type { PartitionLeases } from './partition-leases.js';
import { BatchSizer } from './batch-sizer.js';
import { PersonCache } from './person-cache.js';
import type { PreparedRow } from './prepare.js';
import { PrepareThread } from './prepare-thread-client.js';
import { countPersonDeletions, PERSON_DELETIONS } from '../../persons/store.js';
import { getTeam } from '../../environments/tenancy-store.js';
import { SpikeDetector } from './spike-detector.js';
import type { AnalyticsCopier } from '../../events/analytics-copier.js';
import { DefinitionsCache } from './definitions-step.js';
import { ConflictRetry } from './conflict-retry.js';

/** What the batch runner takes of the worker's options (worker.ts WorkerOptions). */
export interface BatchRunnerOptions {
  batchSize: number;
  batchBudgetMs: number;
  leaseTtlMs: number;
  spikeEventsPerSecond: number;
  onTeamChanged?: ((teamId: number) => Promise<void>) | undefined;
}

/** A batch read, and being prepared on the prepare thread, while the batch before it is written. */
interface Lookahead {
  rows: QueueRecord[];
  /** The lane held more after these rows when they were read. */
  more: boolean;
  prepared: Promise<PreparedRow[] | undefined>;
}

/**
 * One lane's batch at a time, for the worker (worker.ts), which decides when and whether it may
 * run one: reads the batch (or takes the one read ahead), has the next one prepared on the
 * prepare thread under a backlog, writes the batch in one transaction fenced by the partitions'
 * leases, runs it again when it loses a race with another worker, and falls back to one event per
 * transaction when it fails. Keeps what batches share between them (persons, group types,
 * definitions, spike counts) and forgets it when another worker may have changed it.
 */
export class BatchRunner {
  private readonly spikes: SpikeDetector;
  private readonly hotWarned = new Map<string, number>();
  /** Group type indexes of committed batches (see GroupTypeCache). */
  private readonly groupTypes = new Map<string, number>();
  /** The persons recent batches read or wrote (see PersonCache). */
  private readonly personCache = new PersonCache();
  private readonly definitions = new DefinitionsCache();
  /** The events the next batch may hold (the SQLite time budget, or always batchSize). */
  private readonly sizer: BatchSizer | undefined;
  private prepareThread: PrepareThread | undefined;
  private geoip: GeoipService | undefined;
  /** Per lane: the next batch, read and being prepared while the current one is written. */
  private readonly ahead = new Map<Lane, Lookahead>();
  /** Batches written with rows the prepare thread prepared (for logs and tests). */
  batchesPreparedAhead = 0;
  /** Runs a batch again when it loses a race with another worker's batch (PostgreSQL). */
  private readonly conflicts: ConflictRetry;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    /** The queue partitions the worker holds. */
    private readonly leases: PartitionLeases,
    private readonly copier: AnalyticsCopier | undefined,
    private readonly options: BatchRunnerOptions,
    /** Found in a batch's transaction that a partition was taken: the worker forgets what others may change. */
    private readonly onLeaseLost: () => void,
  ) {
    if (database.dialect === 'sqlite' && options.batchBudgetMs > 0) this.sizer = new BatchSizer(options.batchSize, options.batchBudgetMs);
    this.spikes = new SpikeDetector(options.spikeEventsPerSecond);
    this.conflicts = new ConflictRetry(log, {
      forgetStale: () => {
        this.personCache.clear();
        this.groupTypes.clear();
        this.definitions.clear();
      },
    });
  }

  /** Batches run again after losing a race with a concurrent writer (conflict-retry.ts). */
  get batchesRetriedOnConflict(): number {
    return this.conflicts.retried;
  }

  /** GeoIP is known (loaded, or none): events can be processed, and prepared on the prepare thread (`prepareAhead`), which reads it too. */
  useGeoip(geoip: GeoipService | undefined, prepareAhead: boolean): void {
    this.geoip = geoip;
    if (prepareAhead) this.prepareThread = new PrepareThread(geoip, this.log);
  }

  /** Starts the prepare thread now; true when it is ready. */
  async warmUp(): Promise<boolean> {
    return (await this.prepareThread?.warmUp()) ?? false;
  }

  /** Stops the prepare thread. */
  async close(): Promise<void> {
    await this.prepareThread?.close();
  }

  /**
   * When the partitions held change (or may have), another worker may take the rows read ahead
   * and write the persons kept: neither is trusted.
   */
  forget(): void {
    this.ahead.clear();
    this.personCache.clear();
  }

  /** The partitions a read takes: those held, or all (no condition) when this worker holds every one. */
  private get readPartitions(): readonly number[] | undefined {
    return this.leases.holdsAll ? undefined : this.leases.held;
  }

  /** One batch of the lane, if it has work; returns how many queued events were processed. */
  async processLane(lane: Lane): Promise<number> {
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
        this.leases.renewDue = true;
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
    // A long round (retries, one event at a time) keeps its leases: the work is not handed over midway.
    if (this.leases.held.length > 0 && !this.leases.renewDue && Date.now() - this.leases.renewedAt >= this.options.leaseTtlMs / 3)
      await this.leases.extend();
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
    this.onLeaseLost();
    this.log.warn({ lane, rows }, 'ingestion partition taken by another worker; batch rolled back');
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
    this.copier?.committed(outcome.outboxEvents, backlog, outcome.outboxRows);
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
