/**
 * Calculates dynamic cohorts' `count` in the background, as PostHog's cohort calculation does
 * (posthog/tasks/calculate_cohort.py, Cohort.calculate_people_ch):
 *
 * - after a change: creating a dynamic cohort, or updating one (other than deleting it), sets
 *   `is_calculating` and announces CALCULATION_TOPIC; the calculators hear it and one of them
 *   calculates it at once, while the request has long been answered;
 * - when stale: every POLL_MS each calculator looks for live dynamic cohorts calculated more than
 *   STALE_MS ago (PostHog's MAX_AGE_MINUTES, 15) or never, so persons whose properties changed are
 *   counted again within about 16 minutes;
 * - a success sets `count`, `last_calculation` (now) and `errors_calculating` 0; a failure (an
 *   environment past MAX_JUDGED persons, members.ts) adds one to `errors_calculating`, sets
 *   `last_error_at` and keeps the last count. A failed cohort's stale recalculation waits
 *   30 min × 2^errors, and after MAX_ERRORS failures in a row only a change calculates it again
 *   (PostHog's MAX_ERRORS_CALCULATING and backoff).
 *
 * Every process that runs the worker (inline in the server, or `hoglet worker`) runs one. A cohort
 * is calculated by one process at a time: the claim is a conditional UPDATE of its row (owner token
 * + lease, store.ts), renewed between batches of persons; a process that dies leaves a lease that
 * lapses after LEASE_MS, and its cohort (still `is_calculating`) is taken by the next process that
 * looks. A change during a calculation bumps `calculation_requests`: the running calculation then
 * stores nothing and the cohort is calculated again. Cohorts are calculated one after another, each
 * a batch of persons at a time between which the process serves its requests.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { getTeam } from '../environments/tenancy-store.js';
import { isDatabaseUnavailable } from '../platform/db/availability.js';
import { PeriodicTask, type RoundWait } from '../platform/periodic-task.js';
import { countDynamicCohort, MAX_JUDGED } from './members.js';
import { claimCalculation, dueCalculations, failCalculation, finishCalculation, releaseCalculation, renewCalculation } from './store.js';

/** The change announced when a cohort asks for a calculation (its id). */
export const CALCULATION_TOPIC = 'cohort_calculation';

const POLL_MS = 60_000;
export const STALE_MS = 15 * 60_000;
export const MAX_ERRORS = 20;
const BACKOFF_MS = 30 * 60_000;
const LEASE_MS = 60_000;
const PER_ROUND = 10;

export interface CalculatorOptions {
  pollMs?: number;
  staleMs?: number;
  leaseMs?: number;
  /** The most persons an environment may have for its cohorts to be calculated (MAX_JUDGED). */
  maxJudged?: number;
}

/** A calculation given up without an outcome: the process is stopping, or its claim was taken. */
class GivenUp extends Error {}

export class CohortCalculator {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly task: PeriodicTask;
  private readonly options: Required<CalculatorOptions>;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly ctx: AppContext,
    options: CalculatorOptions = {},
  ) {
    this.options = {
      pollMs: options.pollMs ?? POLL_MS,
      staleMs: options.staleMs ?? STALE_MS,
      leaseMs: options.leaseMs ?? LEASE_MS,
      maxJudged: options.maxJudged ?? MAX_JUDGED,
    };
    this.task = new PeriodicTask(ctx.log, () => this.round(), {
      name: 'cohort calculation',
      intervalMs: this.options.pollMs,
      failureLevel: 'warn',
    });
  }

  start(): void {
    if (this.task.running) return;
    this.unsubscribe = this.ctx.changes.on(CALCULATION_TOPIC, () => this.task.wake());
    this.task.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.task.stop();
  }

  /** Calculates the cohorts due now, one after another; comes back at once while more are due. */
  private async round(): Promise<RoundWait> {
    const now = new Date();
    const due = await dueCalculations(this.ctx.database.db, {
      now,
      staleBefore: new Date(now.getTime() - this.options.staleMs),
      maxErrors: MAX_ERRORS,
      limit: PER_ROUND,
    });
    let again = due.length === PER_ROUND;
    for (const id of due) {
      if (!this.task.running) return;
      // A calculation overtaken by a change: the cohort is due again at once.
      if (await this.calculate(id)) again = true;
    }
    return again ? 0 : undefined;
  }

  /** Calculates a cohort unless another process has it; true when a change overtook the calculation. */
  private async calculate(id: number): Promise<boolean> {
    const { db } = this.ctx.database;
    const { leaseMs, maxJudged } = this.options;
    const claimed = await claimCalculation(db, id, this.owner, new Date(), leaseMs);
    if (!claimed) return false; // another process has it
    let renewedAt = Date.now();
    const afterBatch = async () => {
      if (!this.task.running) throw new GivenUp();
      if (Date.now() - renewedAt < leaseMs / 3) return;
      if (!(await renewCalculation(db, id, this.owner, leaseMs))) throw new GivenUp();
      renewedAt = Date.now();
    };
    let count: number;
    try {
      const team = await getTeam(db, claimed.teamId);
      if (!team) throw new Error(`environment ${claimed.teamId} of cohort ${id} not found`);
      count = await countDynamicCohort(this.ctx, team, claimed, { maxJudged, afterBatch });
    } catch (error) {
      if (error instanceof GivenUp || isDatabaseUnavailable(error)) {
        await releaseCalculation(db, id, this.owner).catch(() => undefined);
        return false;
      }
      this.ctx.log.warn({ err: error, cohort: id }, 'cohort calculation failed');
      const now = new Date();
      const errors = Math.min(claimed.errorsCalculating + 1, MAX_ERRORS + 1);
      await failCalculation(db, claimed, this.owner, now, new Date(now.getTime() + BACKOFF_MS * 2 ** errors));
      return false;
    }
    return !(await finishCalculation(db, claimed, this.owner, count, new Date()));
  }
}
