import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import type { ScheduleFields } from './core/index.js';
import type { SubscriptionsTable } from './tables.js';

type Db = Kysely<Schema>;

/** An invite still to send: to these recipients (email) or to the channel (slack). */
export interface PendingInvite {
  recipients: string[];
  message: string;
  attempts: number;
  retryAt: string | null;
}

export interface Subscription {
  id: number;
  teamId: number;
  dashboardId: number | null;
  insightId: number | null;
  title: string | null;
  targetType: string;
  targetValue: string;
  frequency: string;
  interval: number;
  byweekday: string[] | null;
  bysetpos: number | null;
  count: number | null;
  startDate: string;
  untilDate: string | null;
  nextDeliveryDate: string | null;
  deleted: boolean;
  createdById: number | null;
  createdAt: string;
  pendingInvite: PendingInvite | null;
  attempts: number;
  retryAt: string | null;
  lastError: string | null;
  /** Recipients already served for the due occurrence (a retry skips them). */
  sentTo: string[];
}

function toSubscription(row: Selectable<SubscriptionsTable>): Subscription {
  return {
    id: Number(row.id),
    teamId: Number(row.team_id),
    dashboardId: row.dashboard_id === null ? null : Number(row.dashboard_id),
    insightId: row.insight_id === null ? null : Number(row.insight_id),
    title: row.title,
    targetType: row.target_type,
    targetValue: row.target_value,
    frequency: row.frequency,
    interval: Number(row.interval),
    byweekday: fromJson<string[] | null>(row.byweekday) ?? null,
    bysetpos: row.bysetpos === null ? null : Number(row.bysetpos),
    count: row.count === null ? null : Number(row.count),
    startDate: row.start_date,
    untilDate: row.until_date,
    nextDeliveryDate: row.next_delivery_date,
    deleted: fromBool(row.deleted),
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    createdAt: row.created_at,
    pendingInvite: fromJson<PendingInvite | null>(row.pending_invite) ?? null,
    attempts: Number(row.attempts),
    retryAt: row.retry_at,
    lastError: row.last_error,
    sentTo: fromJson<string[] | null>(row.sent_to) ?? [],
  };
}

export function scheduleOf(
  s: Pick<Subscription, 'frequency' | 'interval' | 'byweekday' | 'bysetpos' | 'count' | 'startDate' | 'untilDate'>,
): ScheduleFields {
  return {
    frequency: s.frequency,
    interval: s.interval,
    byweekday: s.byweekday,
    bysetpos: s.bysetpos,
    count: s.count,
    start_date: s.startDate,
    until_date: s.untilDate,
  };
}

/** The columns a create or update writes (everything a client can set, plus derived values). */
export type SubscriptionValues = Omit<Subscription, 'id' | 'teamId' | 'createdById' | 'createdAt' | 'lastError'>;

function toRow(v: Partial<SubscriptionValues>): Updateable<SubscriptionsTable> {
  const row: Updateable<SubscriptionsTable> = {};
  if (v.dashboardId !== undefined) row.dashboard_id = v.dashboardId;
  if (v.insightId !== undefined) row.insight_id = v.insightId;
  if (v.title !== undefined) row.title = v.title;
  if (v.targetType !== undefined) row.target_type = v.targetType;
  if (v.targetValue !== undefined) row.target_value = v.targetValue;
  if (v.frequency !== undefined) row.frequency = v.frequency;
  if (v.interval !== undefined) row.interval = v.interval;
  if (v.byweekday !== undefined) row.byweekday = v.byweekday === null ? null : toJson(v.byweekday);
  if (v.bysetpos !== undefined) row.bysetpos = v.bysetpos;
  if (v.count !== undefined) row.count = v.count;
  if (v.startDate !== undefined) row.start_date = v.startDate;
  if (v.untilDate !== undefined) row.until_date = v.untilDate;
  if (v.nextDeliveryDate !== undefined) row.next_delivery_date = v.nextDeliveryDate;
  if (v.deleted !== undefined) row.deleted = v.deleted;
  if (v.pendingInvite !== undefined) row.pending_invite = v.pendingInvite === null ? null : toJson(v.pendingInvite);
  if (v.attempts !== undefined) row.attempts = v.attempts;
  if (v.retryAt !== undefined) row.retry_at = v.retryAt;
  if (v.sentTo !== undefined) row.sent_to = v.sentTo.length ? toJson(v.sentTo) : null;
  return row;
}

export async function insertSubscription(db: Db, teamId: number, userId: number, values: SubscriptionValues): Promise<Subscription> {
  const row = await db
    .insertInto('subscriptions')
    .values({
      ...(toRow(values) as Required<Updateable<SubscriptionsTable>>),
      team_id: teamId,
      created_by_id: userId,
      created_at: nowIso(),
      last_error: null,
      claim_token: null,
      claim_expires_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSubscription(row);
}

export async function updateSubscription(db: Db, id: number, values: Partial<SubscriptionValues>): Promise<Subscription> {
  const row = await db.updateTable('subscriptions').set(toRow(values)).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  return toSubscription(row);
}

export async function getSubscription(db: Db, teamId: number, id: number): Promise<Subscription | undefined> {
  const row = await db.selectFrom('subscriptions').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return row && toSubscription(row);
}

export interface SubscriptionListFilter {
  /** undefined: hide deleted ones (PostHog's default); a boolean filters explicitly. */
  deleted?: boolean | undefined;
  insightId?: number | undefined;
  dashboardId?: number | undefined;
}

export async function listSubscriptions(
  db: Db,
  teamId: number,
  filter: SubscriptionListFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; subscriptions: Subscription[] }> {
  let query = db
    .selectFrom('subscriptions')
    .where('team_id', '=', teamId)
    .where('deleted', '=', filter.deleted ?? false);
  if (filter.insightId !== undefined) query = query.where('insight_id', '=', filter.insightId);
  if (filter.dashboardId !== undefined) query = query.where('dashboard_id', '=', filter.dashboardId);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('id', 'asc').limit(page.limit).offset(page.offset).execute();
  return { count: Number(total?.n ?? 0), subscriptions: rows.map(toSubscription) };
}

// --- the scheduler's side -----------------------------------------------------------------

const claimFree = (now: string) => (eb: any) => eb.or([eb('claim_token', 'is', null), eb('claim_expires_at', '<', now)]);

/** Ids of live subscriptions with work to do (a due delivery or an invite), not claimed by anyone. */
export async function findWork(db: Db, now: Date, horizon: Date, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('subscriptions')
    .select('id')
    .where('deleted', '=', false)
    .where(claimFree(now.toISOString()))
    .where((eb) => eb.or([eb('next_delivery_date', '<=', horizon.toISOString()), eb('pending_invite', 'is not', null)]))
    .orderBy('next_delivery_date', 'asc')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/**
 * Takes a subscription for delivery: one conditional UPDATE that succeeds for exactly one process
 * (the row is unclaimed or its lease has lapsed, and it is not deleted). Returns the row as
 * claimed, or undefined when another process holds it.
 */
export async function claimSubscription(db: Db, id: number, token: string, now: Date, leaseMs: number): Promise<Subscription | undefined> {
  const result = await db
    .updateTable('subscriptions')
    .set({ claim_token: token, claim_expires_at: new Date(now.getTime() + leaseMs).toISOString() })
    .where('id', '=', id)
    .where('deleted', '=', false)
    .where(claimFree(now.toISOString()))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  const row = await db.selectFrom('subscriptions').selectAll().where('id', '=', id).where('claim_token', '=', token).executeTakeFirst();
  return row && toSubscription(row);
}

export interface DeliveryOutcome {
  nextDeliveryDate?: string | null;
  attempts?: number;
  retryAt?: string | null;
  lastError?: string | null;
  pendingInvite?: PendingInvite | null;
  sentTo?: string[] | null;
}

/** Writes what the delivery changed and gives the claim back, only if this process still holds it. */
export async function releaseSubscription(db: Db, id: number, token: string, outcome: DeliveryOutcome): Promise<void> {
  const set: Updateable<SubscriptionsTable> = { claim_token: null, claim_expires_at: null };
  if (outcome.nextDeliveryDate !== undefined) set.next_delivery_date = outcome.nextDeliveryDate;
  if (outcome.attempts !== undefined) set.attempts = outcome.attempts;
  if (outcome.retryAt !== undefined) set.retry_at = outcome.retryAt;
  if (outcome.lastError !== undefined) set.last_error = outcome.lastError;
  if (outcome.pendingInvite !== undefined) set.pending_invite = outcome.pendingInvite === null ? null : toJson(outcome.pendingInvite);
  if (outcome.sentTo !== undefined) set.sent_to = outcome.sentTo === null || outcome.sentTo.length === 0 ? null : toJson(outcome.sentTo);
  await db.updateTable('subscriptions').set(set).where('id', '=', id).where('claim_token', '=', token).execute();
}
