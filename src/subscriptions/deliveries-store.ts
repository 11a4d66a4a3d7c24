/**
 * The delivery log: one `subscription_deliveries` row per delivery (an occurrence of the schedule,
 * an invite, a test) with its target and status, and one `subscription_delivery_attempts` row per
 * attempt. An attempt is written before it starts (`pending`) and finished after, so a delivery
 * under way, or one cut short by a crash, shows as such. The writes are single statements, as the
 * scheduler's claims are: a transaction held across awaits keeps SQLite's write lock from other
 * connections, and one waiting for it in the same process blocks the thread that would release it.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { nowIso } from '../platform/db/values.js';
import type { SubscriptionDeliveriesTable, SubscriptionDeliveryAttemptsTable } from './tables.js';

type Db = Kysely<Schema>;

export type DeliveryKind = 'scheduled' | 'invite' | 'test';
export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed' | 'skipped' | 'cancelled';

/** Where a delivery goes, as it may be shown: URLs masked. */
export interface DeliveryTarget {
  type: string;
  value: string;
  webhookUrl: string | null;
}

export interface DeliveryAttempt {
  attempt: number;
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface Delivery {
  id: number;
  subscriptionId: number;
  teamId: number;
  kind: DeliveryKind;
  occurrence: string | null;
  skippedOccurrences: number;
  target: { type: string | null; value: string | null; webhookUrl: string | null };
  status: DeliveryStatus;
  attempt: number;
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attempts: DeliveryAttempt[];
}

/** The attempt under way: what `finishAttempt` closes. */
export interface AttemptHandle {
  deliveryId: number;
  attemptId: number;
  attempt: number;
}

const OPEN: DeliveryStatus[] = ['pending', 'retrying'];

export const INTERRUPTED = 'interrupted: the process stopped before the attempt finished';

/**
 * Records the start of an attempt. Scheduled deliveries and invites go on with their open
 * delivery (pending or retrying) when there is one for the same occurrence; an open one for
 * another occurrence is cancelled (the schedule moved on). A test is always a delivery of its own.
 */
export async function beginAttempt(
  db: Db,
  spec: {
    subscriptionId: number;
    teamId: number;
    kind: DeliveryKind;
    occurrence: string | null;
    skippedOccurrences?: number;
    target: DeliveryTarget;
  },
): Promise<AttemptHandle> {
  const now = nowIso();
  const open =
    spec.kind === 'test'
      ? undefined
      : await db
          .selectFrom('subscription_deliveries')
          .select(['id', 'occurrence', 'attempt'])
          .where('subscription_id', '=', spec.subscriptionId)
          .where('kind', '=', spec.kind)
          .where('status', 'in', OPEN)
          .orderBy('id', 'desc')
          .executeTakeFirst();
  const target = { target_type: spec.target.type, target_value: spec.target.value, webhook_url: spec.target.webhookUrl };
  let deliveryId: number;
  let attempt: number;
  if (open && open.occurrence === spec.occurrence) {
    deliveryId = Number(open.id);
    attempt = Number(open.attempt) + 1;
    // An attempt still pending here was cut short: its process stopped (the claim lapsed).
    await db
      .updateTable('subscription_delivery_attempts')
      .set({ status: 'failed', error: INTERRUPTED, finished_at: now })
      .where('delivery_id', '=', deliveryId)
      .where('status', '=', 'pending')
      .execute();
    await db
      .updateTable('subscription_deliveries')
      .set({ ...target, status: 'pending', attempt, last_attempt_at: now, next_attempt_at: null })
      .where('id', '=', deliveryId)
      .execute();
  } else {
    if (open) await cancel(db, [Number(open.id)], 'cancelled: the schedule moved on to another occurrence', now);
    attempt = 1;
    const row = await db
      .insertInto('subscription_deliveries')
      .values({
        subscription_id: spec.subscriptionId,
        team_id: spec.teamId,
        kind: spec.kind,
        occurrence: spec.occurrence,
        status: 'pending',
        attempt,
        skipped_occurrences: spec.skippedOccurrences ?? 0,
        error: null,
        created_at: now,
        ...target,
        last_attempt_at: now,
        next_attempt_at: null,
        delivered_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    deliveryId = Number(row.id);
  }
  const row = await db
    .insertInto('subscription_delivery_attempts')
    .values({ delivery_id: deliveryId, team_id: spec.teamId, attempt, status: 'pending', error: null, started_at: now, finished_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { deliveryId, attemptId: Number(row.id), attempt };
}

export type AttemptResult =
  | { status: 'delivered' | 'skipped'; error?: string | null }
  /** A failed attempt: retried at `retryAt`, or the delivery has failed for good when null. */
  | { status: 'failed'; error: string; retryAt: string | null };

export async function finishAttempt(db: Db, handle: AttemptHandle, result: AttemptResult): Promise<void> {
  const now = nowIso();
  const error = result.error ?? null;
  await db
    .updateTable('subscription_delivery_attempts')
    .set({ status: result.status, error, finished_at: now })
    .where('id', '=', handle.attemptId)
    .execute();
  const retryAt = result.status === 'failed' ? result.retryAt : null;
  await db
    .updateTable('subscription_deliveries')
    .set({
      status: result.status === 'failed' ? (retryAt ? 'retrying' : 'failed') : result.status,
      error,
      next_attempt_at: retryAt,
      delivered_at: result.status === 'delivered' ? now : null,
    })
    .where('id', '=', handle.deliveryId)
    .execute();
}

async function cancel(db: Db, ids: number[], reason: string, now = nowIso()): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('subscription_deliveries')
    .set({ status: 'cancelled', error: reason, next_attempt_at: null })
    .where('id', 'in', ids)
    .execute();
  await db
    .updateTable('subscription_delivery_attempts')
    .set({ status: 'failed', error: INTERRUPTED, finished_at: now })
    .where('delivery_id', 'in', ids)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Deliveries of these kinds waiting for a retry will not get one: cancelled, with the reason. (One
 * with an attempt under way is left to finish it.)
 */
export async function cancelOpenDeliveries(db: Db, subscriptionId: number, kinds: DeliveryKind[], reason: string): Promise<void> {
  const rows = await db
    .selectFrom('subscription_deliveries')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('kind', 'in', kinds)
    .where('status', '=', 'retrying')
    .execute();
  await cancel(
    db,
    rows.map((r) => Number(r.id)),
    reason,
  );
}

/** A test delivery of the subscription begun this recently and still under way (a crashed one stops counting). */
export async function testUnderWay(db: Db, subscriptionId: number, since: string): Promise<boolean> {
  const row = await db
    .selectFrom('subscription_deliveries')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'test')
    .where('status', '=', 'pending')
    .where('created_at', '>', since)
    .executeTakeFirst();
  return row !== undefined;
}

function toDelivery(row: Selectable<SubscriptionDeliveriesTable>, attempts: Selectable<SubscriptionDeliveryAttemptsTable>[]): Delivery {
  return {
    id: Number(row.id),
    subscriptionId: Number(row.subscription_id),
    teamId: Number(row.team_id),
    kind: row.kind as DeliveryKind,
    occurrence: row.occurrence,
    skippedOccurrences: Number(row.skipped_occurrences),
    target: { type: row.target_type, value: row.target_value, webhookUrl: row.webhook_url },
    status: row.status as DeliveryStatus,
    attempt: Number(row.attempt),
    error: row.error,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
    attempts: attempts.map((a) => ({
      attempt: Number(a.attempt),
      status: a.status as DeliveryAttempt['status'],
      error: a.error,
      startedAt: a.started_at,
      finishedAt: a.finished_at,
    })),
  };
}

async function withAttempts(db: Db, rows: Selectable<SubscriptionDeliveriesTable>[]): Promise<Delivery[]> {
  if (rows.length === 0) return [];
  const attempts = await db
    .selectFrom('subscription_delivery_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      rows.map((r) => Number(r.id)),
    )
    .orderBy('delivery_id')
    .orderBy('attempt')
    .orderBy('id')
    .execute();
  const byDelivery = new Map<number, Selectable<SubscriptionDeliveryAttemptsTable>[]>();
  for (const a of attempts) {
    const list = byDelivery.get(Number(a.delivery_id)) ?? [];
    list.push(a);
    byDelivery.set(Number(a.delivery_id), list);
  }
  return rows.map((row) => toDelivery(row, byDelivery.get(Number(row.id)) ?? []));
}

export async function getDelivery(db: Db, id: number): Promise<Delivery | undefined> {
  const row = await db.selectFrom('subscription_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  return row && (await withAttempts(db, [row]))[0];
}

/** Deliveries newest first, with their attempts: of one subscription, or of all (for operators). */
export async function listDeliveries(
  db: Db,
  filter: { subscriptionId?: number | undefined },
  page: { limit: number; offset: number },
): Promise<{ count: number; deliveries: Delivery[] }> {
  let query = db.selectFrom('subscription_deliveries');
  if (filter.subscriptionId !== undefined) query = query.where('subscription_id', '=', filter.subscriptionId);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return { count: Number(total?.n ?? 0), deliveries: await withAttempts(db, rows) };
}
