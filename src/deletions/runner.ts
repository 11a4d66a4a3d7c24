import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { PeriodicTask } from '../platform/periodic-task.js';
import { isDatabaseUnavailable } from '../platform/db/availability.js';
import type { Database } from '../platform/db/database.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { acquireLease, releaseLease } from '../platform/lease.js';
import { deleteRecordings } from '../recordings/store.js';
import { outboxHoldsRowsUpTo } from '../events/outbox-copy.js';
import {
  BULK_TEAM_TABLES,
  countFailedAttempt,
  deleteTeamRowsBatch,
  finishDeletions,
  MAX_DELETION_ATTEMPTS,
  nextPendingDeletion,
  deletedDistinctIds,
  deletionOutboxMark,
  personEventsGroup,
  personRecordingsBatch,
  resetParkedDeletions,
  teamOwnedTables,
  saveDeletionCursor,
  teamHasRows,
  type DeletionKind,
  type PendingDeletion,
} from './store.js';
import {
  deleteEventsBatch,
  deletePersonOverrides,
  deleteTeamAnalytics,
  personEventsCondition,
  teamHasAnalyticsRows,
} from './analytics-deletion-store.js';

const LEASE = 'background-deletions';

/** What a step did: a batch (go on at once), nothing to do (poll later), or a batch to retry later. */
type StepOutcome = 'progress' | 'none' | 'retry';
/** A step that completed these deletions. */
type Done = { done: number[] };
const LEASE_TTL_MS = 60_000;

export interface DeletionRunnerOptions {
  /** Rows per statement (and a person's events per batch). */
  batchSize?: number;
  /** How often to look for work when there is none. */
  idleMs?: number;
}

/**
 * Carries out the pending deletions (store.ts) in the background, oldest first, a batch per short
 * transaction, yielding to the event loop between batches: an environment's data and a person's
 * events may be millions of rows, which in one transaction would hold SQLite's write lock (and
 * the process) until done, and make one huge transaction on PostgreSQL. A deletion's row stays
 * until it is complete, with its progress, so a restart resumes it. One process at a time works
 * (a lease, as the ingestion worker's); a deletion is complete only once no row of it is left.
 * A failing batch is retried with a growing pause; a deletion whose batches keep failing is parked
 * after MAX_DELETION_ATTEMPTS, the others go on, and a restart gives it another round.
 */
export class DeletionRunner {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private leaseRenewedAt = 0;
  private readonly task: PeriodicTask;
  /** Set by start: the first round resets the parked deletions. */
  private resetParked = false;
  /** Failed rounds in a row (they wait longer and longer). */
  private retries = 0;
  private readonly batchSize: number;
  private readonly idleMs: number;
  /** The last step asked for; the next one starts after it (see nextStep). */
  private stepping: Promise<unknown> = Promise.resolve();
  /** The bulk tables that exist (the schema does not change while the process runs). */
  private bulkTables: Promise<string[]> | undefined;

  constructor(
    private readonly database: Database,
    private readonly analytics: AnalyticsEngine,
    private readonly log: Logger,
    options: DeletionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 5000;
    this.idleMs = options.idleMs ?? 1000;
    // Its rounds throw nothing: a failure is an outcome with its own pauses (round()).
    this.task = new PeriodicTask(log, () => this.round(), { name: 'background deletions', intervalMs: this.idleMs });
  }

  start(): void {
    if (this.task.running) return;
    this.resetParked = true;
    this.retries = 0;
    this.task.start();
  }

  /** Stops after the batch in progress, and hands the lease on. */
  async stop(): Promise<void> {
    await this.task.stop();
    if (this.leaseRenewedAt > 0) await releaseLease(this.database.db, LEASE, this.owner).catch(() => undefined);
    this.leaseRenewedAt = 0;
  }

  /** A step of the loop; returns the wait before the next one (0: none, more work is waiting). */
  private async round(): Promise<number> {
    if (this.resetParked) {
      this.resetParked = false;
      // Deletions parked before (after repeated failures) get another round after a restart: the
      // cause may be mended by then.
      await resetParkedDeletions(this.database.db).catch((error: unknown) =>
        this.log.error({ err: error }, 'could not reset parked deletions'),
      );
      if (!this.task.running) return 0;
    }
    let outcome: StepOutcome;
    try {
      outcome = await this.nextStep();
    } catch (error) {
      // Reading the next deletion or the lease failed: the database itself is in trouble. An
      // unreachable one (its outage is logged once) is looked at again at the usual pace.
      if (isDatabaseUnavailable(error)) outcome = 'none';
      else {
        this.log.error({ err: error }, 'background deletions could not run; retrying');
        outcome = 'retry';
      }
    }
    this.retries = outcome === 'retry' ? this.retries + 1 : 0;
    if (outcome === 'progress') return 0;
    // A failing batch is retried after 1, 2, 4 … up to 60 s, so a passing fault does not use up its attempts at once.
    return outcome === 'retry' ? Math.min(60_000, this.idleMs * 2 ** (this.retries - 1)) : this.idleMs;
  }

  /** Whether this process may work now; renews the lease a few times per TTL. */
  private async holdLease(): Promise<boolean> {
    const now = Date.now();
    if (now - this.leaseRenewedAt < LEASE_TTL_MS / 3) return true;
    const held = await acquireLease(this.database.db, LEASE, this.owner, LEASE_TTL_MS);
    this.leaseRenewedAt = held ? now : 0;
    return held;
  }

  /** One batch of the oldest pending deletion; false when there is none (or another process works). */
  async step(): Promise<boolean> {
    return (await this.nextStep()) !== 'none';
  }

  /** Steps one at a time, whoever asks (the loop, or `drain`). */
  private nextStep(): Promise<StepOutcome> {
    const next = this.stepping.then(() => this.stepOnce());
    this.stepping = next.catch(() => undefined);
    return next;
  }

  private async stepOnce(): Promise<StepOutcome> {
    const deletion = await nextPendingDeletion(this.database.db);
    if (!deletion || !(await this.holdLease())) return 'none';
    const id = Number(deletion.id);
    let outcome: StepOutcome | Done;
    try {
      outcome = await this.stepOf(deletion);
    } catch (error) {
      // No fault of the deletion's: it uses none of its attempts (run() waits for the database).
      if (isDatabaseUnavailable(error)) throw error;
      const attempts = await countFailedAttempt(this.database.db, id);
      const parked = attempts >= MAX_DELETION_ATTEMPTS;
      this.log.error(
        { err: error, team: Number(deletion.owner_team_id), kind: deletion.kind, attempts, parked },
        parked ? 'background deletion parked after repeated failures' : 'background deletion batch failed; it will be retried',
      );
      return 'retry';
    }
    if (typeof outcome === 'object') {
      await finishDeletions(this.database.db, outcome.done);
      this.log.info(
        { team: Number(deletion.owner_team_id), kind: deletion.kind, deletions: outcome.done.length },
        'background deletion complete',
      );
      return 'progress';
    }
    return outcome;
  }

  /**
   * The step of the deletion's kind. A kind this version does not know (a newer one queued it) is
   * a failure, never taken for an environment: that would delete the environment's data.
   */
  private stepOf(deletion: PendingDeletion): Promise<StepOutcome | Done> {
    switch (deletion.kind as DeletionKind) {
      case 'environment':
        return this.environmentStep(deletion);
      case 'person_events':
        return this.personEventsStep(deletion);
      case 'person_recordings':
        return this.personRecordingsStep(deletion);
      default:
        return Promise.reject(new Error(`unknown background deletion kind "${deletion.kind}"`));
    }
  }

  /**
   * One batch of the first bulk table (BULK_TEAM_TABLES) that still has rows of the team; once
   * they have none, the environment's ClickHouse rows (events, sessions, person overrides) in
   * one step. Done only when a read finds none left anywhere (on PostgreSQL a batch can delete
   * nothing while rows remain: rows another transaction changed meanwhile are skipped; an event
   * may reach ClickHouse from the outbox after the delete).
   */
  private async environmentStep(deletion: PendingDeletion): Promise<StepOutcome | Done> {
    const teamId = Number(deletion.owner_team_id);
    if (await this.eventsOnTheirWay([deletion])) return 'none';
    this.bulkTables ??= teamOwnedTables(this.database).then((tables) => tables.filter((t) => BULK_TEAM_TABLES.has(t)));
    const tables = await this.bulkTables;
    for (const table of tables) {
      if ((await deleteTeamRowsBatch(this.database, table, teamId, this.batchSize)) > 0) return 'progress';
    }
    await deleteTeamAnalytics(this.analytics, teamId);
    // Nothing deleted but rows left: rows another transaction holds; try again a little later.
    for (const table of tables) if (await teamHasRows(this.database, table, teamId)) return 'retry';
    if (await teamHasAnalyticsRows(this.analytics, teamId)) return 'retry';
    return { done: [Number(deletion.id)] };
  }

  /**
   * One batch of the events of the team's pending person-events deletions (personEventsGroup),
   * oldest first; when none is left, the persons' overrides go and the deletions are done. The
   * events are picked afresh each batch, so a deletion queued meanwhile joins the next one.
   */
  private async personEventsStep(deletion: PendingDeletion): Promise<StepOutcome | Done> {
    const teamId = Number(deletion.owner_team_id);
    const group = await personEventsGroup(this.database.db, deletion);
    if (await this.eventsOnTheirWay(group)) return 'none';
    const ids = group.map((d) => Number(d.id));
    const uuids = group.map((d) => d.target ?? '');
    const persons = { uuids: new Set(uuids), distinctIds: await deletedDistinctIds(this.database.db, group) };
    const condition = await personEventsCondition(this.database, this.analytics, teamId, persons);
    const { deleted, last } = await deleteEventsBatch(this.database, this.analytics, teamId, condition, this.batchSize);
    if (last) await saveDeletionCursor(this.database.db, ids, last);
    if (deleted === this.batchSize) return 'progress';
    // Overrides last: until the events are gone they find those of the persons merged into these.
    await deletePersonOverrides(this.database, this.analytics, teamId, uuids);
    return { done: ids };
  }

  /**
   * Events committed before any of the deletions still wait in the outbox for their copy to
   * ClickHouse (the ingestion worker makes it within a second): deleted before they arrive, they
   * would stay. Those are the rows at or below the highest outbox mark the deletions recorded
   * (deletionOutboxMark): the group's latest deletion deletes events up to its own queuing.
   */
  private async eventsOnTheirWay(deletions: PendingDeletion[]): Promise<boolean> {
    let mark = 0;
    for (const deletion of deletions) mark = Math.max(mark, await deletionOutboxMark(this.database.db, deletion));
    return outboxHoldsRowsUpTo(this.database.db, mark);
  }

  /** One batch of a person's recordings, each deleted whole with its chunks (personRecordingsBatch). */
  private async personRecordingsStep(deletion: PendingDeletion): Promise<StepOutcome | Done> {
    const sessionIds = await personRecordingsBatch(this.database.db, deletion, this.batchSize);
    if (sessionIds.length === 0) return { done: [Number(deletion.id)] };
    await deleteRecordings(this.database, Number(deletion.owner_team_id), sessionIds);
    return 'progress';
  }

  /** Runs every pending deletion to the end, or until all that are left are parked (for tests and one-shot use). */
  async drain(): Promise<void> {
    while (await this.step()) {
      // keep going
    }
  }
}
