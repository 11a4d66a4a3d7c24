/**
 * Delivers due subscriptions, once per occurrence, however many processes run it. Each run finds
 * live subscriptions with work (a `next_delivery_date` within PostHog's 15-minute lead, or an
 * invite owed), claims each with a conditional UPDATE (claim token + lease expiry: one process
 * wins), re-reads it, delivers, and in the same release advances `next_delivery_date` past now.
 * Occurrences missed while no process ran collapse into one delivery (core `planDelivery`).
 * Every attempt is recorded in the delivery log (deliveries-store.ts). Failures are retried with
 * exponential backoff; after `maxAttempts` the occurrence is given up and the schedule moves on.
 * A configuration error (e-mail without SMTP) is given up at once: no retry would mend it.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import type { Database } from '../platform/db/database.js';
import type { ChangeBus } from '../platform/change-bus.js';
import { attemptDelivery } from './attempt.js';
import { DELIVERY_BUFFER_MS, isDue, nextDeliveryDate, planDelivery } from './core/index.js';
import { createDeliverer, Deliverer } from './delivery/index.js';
import { SUBSCRIPTION_CHANGE_TOPIC } from './service.js';
import { claimSubscription, findWork, releaseSubscription, scheduleOf, type DeliveryOutcome, type Subscription } from './store.js';

export interface SchedulerOptions {
  /** Time between runs; a change announced on `changes` starts one sooner. */
  pollMs?: number;
  /** How long a claim holds before another process may take the row over (a crashed holder). */
  leaseMs?: number;
  maxAttempts?: number;
  /** First retry delay; doubled per failed attempt, capped at an hour. */
  backoffMs?: number;
  batchSize?: number;
  changes?: ChangeBus | undefined;
}

export interface RunSummary {
  sent: number;
  failed: number;
  skipped: number;
  invites: number;
}

export class SubscriptionScheduler {
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly options: Required<Omit<SchedulerOptions, 'changes'>>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  private unsubscribe: (() => void) | undefined;
  private again = false;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    private readonly deliverer: Deliverer,
    private readonly settings: SchedulerOptions = {},
  ) {
    this.options = {
      pollMs: settings.pollMs ?? 60_000,
      leaseMs: settings.leaseMs ?? 5 * 60_000,
      maxAttempts: settings.maxAttempts ?? 5,
      backoffMs: settings.backoffMs ?? 60_000,
      batchSize: settings.batchSize ?? 50,
    };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.settings.changes?.on(SUBSCRIPTION_CHANGE_TOPIC, () => this.wake());
    this.log.info({ pollMs: this.options.pollMs }, 'subscription scheduler started');
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    this.deliverer.close();
  }

  /** Runs now (or right after the run in progress), then keeps the polling rhythm. */
  private wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.running = this.runOnce()
      .catch((error: unknown) => this.log.error({ err: error }, 'subscription scheduler run failed'))
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else this.timer = setTimeout(() => this.wake(), this.options.pollMs);
      });
  }

  /** One pass over the work due at `now`. */
  async runOnce(now = new Date()): Promise<RunSummary> {
    const summary: RunSummary = { sent: 0, failed: 0, skipped: 0, invites: 0 };
    const horizon = new Date(now.getTime() + DELIVERY_BUFFER_MS);
    const ids = await findWork(this.database.db, now, horizon, this.options.batchSize);
    for (const id of ids) {
      const token = `${this.owner}-${randomBytes(6).toString('hex')}`;
      const claimed = await claimSubscription(this.database.db, id, token, now, this.options.leaseMs);
      if (!claimed) continue;
      const outcome: DeliveryOutcome = {};
      try {
        await this.invite(claimed, now, outcome, summary);
        await this.scheduled(claimed, now, outcome, summary);
      } catch (error) {
        // Something outside delivery itself (storage, an unreadable stored schedule): log it and
        // go on with the other subscriptions; the lease lets this one be tried again later.
        this.log.error({ err: error, subscription: id }, 'subscription scheduling failed');
      } finally {
        await releaseSubscription(this.database.db, id, token, outcome);
      }
    }
    return summary;
  }

  private backoff(attempts: number, now: Date): string {
    const delay = Math.min(this.options.backoffMs * 2 ** (attempts - 1), 3_600_000);
    return new Date(now.getTime() + delay).toISOString();
  }

  private async invite(s: Subscription, now: Date, outcome: DeliveryOutcome, summary: RunSummary): Promise<void> {
    const invite = s.pendingInvite;
    if (!invite || (invite.retryAt && invite.retryAt > now.toISOString())) return;
    const attempts = invite.attempts + 1;
    const giveUp = attempts >= this.options.maxAttempts;
    const retryAt = giveUp ? null : this.backoff(attempts, now);
    const sent: string[] = [];
    const attempt = await attemptDelivery(
      this.database,
      this.log,
      { subscription: s, kind: 'invite', occurrence: null, target: await this.deliverer.target(s, invite), retryAt },
      () => this.deliverer.deliverInvite(s, invite, now, sent),
    );
    if (attempt.ok) {
      outcome.pendingInvite = null;
      summary.invites += 1;
    } else {
      // Recipients served before the failure are not invited twice.
      const recipients = invite.recipients.filter((r) => !sent.includes(r));
      outcome.pendingInvite = giveUp || attempt.final ? null : { ...invite, recipients, attempts, retryAt };
      summary.failed += 1;
    }
  }

  private async scheduled(s: Subscription, now: Date, outcome: DeliveryOutcome, summary: RunSummary): Promise<void> {
    if (!isDue(s.nextDeliveryDate, now) || (s.retryAt && s.retryAt > now.toISOString())) return;
    const schedule = scheduleOf(s);
    const plan = planDelivery(schedule, s.nextDeliveryDate, now);
    if (!plan.due) return;
    const occurrence = plan.scheduled_for.toISOString();
    const next = plan.next_delivery_date?.toISOString() ?? null;
    const attempts = s.attempts + 1;
    const giveUp = attempts >= this.options.maxAttempts;
    const retryAt = giveUp ? null : this.backoff(attempts, now);
    const sent: string[] = [];
    const attempt = await attemptDelivery(
      this.database,
      this.log,
      { subscription: s, kind: 'scheduled', occurrence, skippedOccurrences: plan.skipped, target: await this.deliverer.target(s), retryAt },
      () => this.deliverer.deliverScheduled(s, occurrence, now, next, sent),
    );
    if (attempt.ok) {
      // As PostHog after sending: the first occurrence after the one served and after now + 15 min.
      const after = nextDeliveryDate(schedule, new Date(Math.max(now.getTime(), Date.now())), plan.scheduled_for);
      Object.assign(outcome, { nextDeliveryDate: after?.toISOString() ?? null, attempts: 0, retryAt: null, lastError: null, sentTo: null });
      summary[attempt.result === 'sent' ? 'sent' : 'skipped'] += 1;
    } else {
      summary.failed += 1;
      Object.assign(
        outcome,
        giveUp || attempt.final
          ? { nextDeliveryDate: next, attempts: 0, retryAt: null, lastError: attempt.text, sentTo: null }
          : { attempts, retryAt, lastError: attempt.text, sentTo: [...s.sentTo, ...sent] },
      );
    }
  }
}

/** The scheduler a server or worker process runs, configured from the app's settings. */
export function createSubscriptionScheduler(ctx: AppContext): SubscriptionScheduler {
  return new SubscriptionScheduler(ctx.database, ctx.log, createDeliverer(ctx), {
    pollMs: ctx.config.subscriptionPollMs,
    changes: ctx.changes,
  });
}
