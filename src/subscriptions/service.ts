/**
 * Creating and editing subscriptions: PostHog's validation (core/validate.ts), the schedule
 * (`next_delivery_date` recomputed only when the rule changes), the invite owed to new
 * recipients, and the activity log entry, all in one transaction.
 */
import { diffFields, recordActivity } from '../activity/store.js';
import type { AppContext } from '../context.js';
import { dashboardTeamId } from '../dashboards/store.js';
import { ApiError } from '../posthog/errors.js';
import { insightTeamId } from '../insights/store.js';
import type { Team, User } from '../environments/models.js';
import {
  nextDeliveryDateOnSave,
  toUtcDate,
  validateSubscriptionBodyAsync,
  type ResourceStatus,
  type SubscriptionWrite,
} from './core/index.js';
import { cancelOpenDeliveries } from './deliveries-store.js';
import { serializeSubscription } from './serializers.js';
import {
  insertSubscription,
  scheduleOf,
  updateSubscription,
  type PendingInvite,
  type Subscription,
  type SubscriptionValues,
} from './store.js';

/** Topic announced on the change bus when a subscription has new work (wakes the scheduler). */
export const SUBSCRIPTION_CHANGE_TOPIC = 'subscriptions';

function status(owner: number | undefined, team: Team): ResourceStatus {
  return owner === undefined ? 'missing' : owner === team.id ? 'ok' : 'other_team';
}

async function validate(
  ctx: AppContext,
  team: Team,
  body: unknown,
  existing?: Subscription,
  partial = existing !== undefined,
): Promise<SubscriptionWrite> {
  const { db } = ctx.database;
  const result = await validateSubscriptionBodyAsync(body, {
    partial,
    existing: existing && {
      dashboard: existing.dashboardId,
      insight: existing.insightId,
      target_type: existing.targetType,
      target_value: existing.targetValue,
    },
    lookupDashboard: async (id) => status(await dashboardTeamId(db, id), team),
    lookupInsight: async (id) => status(await insightTeamId(db, id), team),
    slackConfigured: typeof team.settings.slack_incoming_webhook === 'string' && team.settings.slack_incoming_webhook !== '',
    allowedHosts: ctx.config.webhookAllowedHosts,
  });
  if (!result.ok) throw new ApiError(400, 'validation_error', result.error.code, result.error.detail, result.error.attr);
  return result.data;
}

const iso = (value: string) => toUtcDate(value).toISOString();

/** The subscription's fields after applying a validated body (dates stored as ISO-8601 UTC). */
function merge(data: SubscriptionWrite, base: SubscriptionValues): SubscriptionValues {
  const next = { ...base };
  if (data.dashboard !== undefined) next.dashboardId = data.dashboard;
  if (data.insight !== undefined) next.insightId = data.insight;
  if (data.title !== undefined) next.title = data.title;
  if (data.target_type !== undefined) next.targetType = data.target_type;
  if (data.target_value !== undefined) next.targetValue = data.target_value;
  if (data.frequency !== undefined) next.frequency = data.frequency;
  if (data.interval !== undefined) next.interval = data.interval;
  if (data.byweekday !== undefined) next.byweekday = data.byweekday;
  if (data.bysetpos !== undefined) next.bysetpos = data.bysetpos;
  if (data.count !== undefined) next.count = data.count;
  if (data.start_date !== undefined) next.startDate = iso(data.start_date);
  if (data.until_date !== undefined) next.untilDate = data.until_date === null ? null : iso(data.until_date);
  if (data.deleted !== undefined) next.deleted = data.deleted;
  return next;
}

/**
 * Who must get an invite after a change of target (PostHog's `handle_subscription_value_change`):
 * for email, the addresses that were not already on the list; for slack, the channel when it is
 * new. Webhooks get no invite.
 */
export function inviteRecipients(
  targetType: string,
  targetValue: string,
  previous: { targetType: string; targetValue: string } | null,
): string[] {
  if (previous && previous.targetType === targetType && previous.targetValue === targetValue) return [];
  if (targetType === 'email') {
    const before = new Set(previous?.targetType === 'email' ? previous.targetValue.split(',').map((e) => e.trim()) : []);
    return targetValue
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e && !before.has(e));
  }
  if (targetType === 'slack') return [targetValue];
  return [];
}

function invite(recipients: string[], message: string | null | undefined, current: PendingInvite | null): PendingInvite | null {
  if (recipients.length === 0) return current;
  const merged = [...new Set([...(current?.recipients ?? []), ...recipients])];
  return { recipients: merged, message: message ?? current?.message ?? '', attempts: 0, retryAt: null };
}

async function announce(ctx: AppContext, subscription: Subscription): Promise<void> {
  await ctx.changes.publish({ topic: SUBSCRIPTION_CHANGE_TOPIC, id: subscription.id }).catch(() => undefined);
}

export async function createSubscription(ctx: AppContext, team: Team, user: User, body: unknown): Promise<Subscription> {
  const { db } = ctx.database;
  const data = await validate(ctx, team, body);
  const empty: SubscriptionValues = {
    dashboardId: null,
    insightId: null,
    title: null,
    targetType: '',
    targetValue: '',
    frequency: '',
    interval: 1,
    byweekday: null,
    bysetpos: null,
    count: null,
    startDate: '',
    untilDate: null,
    nextDeliveryDate: null,
    deleted: false,
    pendingInvite: null,
    attempts: 0,
    retryAt: null,
    sentTo: [],
  };
  const values = merge(data, empty);
  const next = nextDeliveryDateOnSave(scheduleOf(values), new Date());
  values.nextDeliveryDate = next ? next.toISOString() : null;
  values.pendingInvite = values.deleted
    ? null
    : invite(inviteRecipients(values.targetType, values.targetValue, null), data.invite_message, null);
  const created = await db.transaction().execute(async (trx) => {
    const subscription = await insertSubscription(trx, team.id, user.id, values);
    await recordActivity(trx, {
      organizationId: team.organizationId,
      teamId: team.id,
      scope: 'Subscription',
      itemId: subscription.id,
      activity: 'created',
      actor: { userId: user.id },
      name: subscription.title,
    });
    return subscription;
  });
  await announce(ctx, created);
  return created;
}

/** The fields the activity log compares (what a client sees, minus the computed ones). */
function loggedFields(s: Subscription): Record<string, unknown> {
  const body = serializeSubscription(s, null);
  const { id: _id, created_at: _c, created_by: _b, invite_message: _m, ...rest } = body;
  return rest;
}

/**
 * PATCH (`partial`, the default) or PUT (a full update: DRF's ModelViewSet wants every required
 * field; optional ones left out keep their values).
 */
export async function editSubscription(
  ctx: AppContext,
  team: Team,
  user: User,
  existing: Subscription,
  body: unknown,
  { partial = true }: { partial?: boolean } = {},
): Promise<Subscription> {
  const { db } = ctx.database;
  const data = await validate(ctx, team, body, existing, partial);
  const values = merge(data, existing);
  const before = { schedule: scheduleOf(existing), next_delivery_date: existing.nextDeliveryDate };
  const next = nextDeliveryDateOnSave(scheduleOf(values), new Date(), before);
  values.nextDeliveryDate = next ? next.toISOString() : null;
  if (values.nextDeliveryDate !== existing.nextDeliveryDate) {
    // A new schedule starts afresh: the backoff of the old occurrence no longer applies.
    values.attempts = 0;
    values.retryAt = null;
    values.sentTo = [];
  }
  values.pendingInvite = values.deleted
    ? null
    : invite(inviteRecipients(values.targetType, values.targetValue, existing), data.invite_message, existing.pendingInvite);
  const updated = await db.transaction().execute(async (trx) => {
    const saved = await updateSubscription(trx, existing.id, values);
    if (saved.deleted && !existing.deleted) {
      await cancelOpenDeliveries(trx, saved.id, ['scheduled', 'invite'], 'cancelled: the subscription was deleted');
    } else if (values.nextDeliveryDate !== existing.nextDeliveryDate) {
      await cancelOpenDeliveries(trx, saved.id, ['scheduled'], 'cancelled: the schedule changed before the retry');
    }
    const changes = diffFields('Subscription', loggedFields(existing), loggedFields(saved));
    if (changes.length) {
      await recordActivity(trx, {
        organizationId: team.organizationId,
        teamId: team.id,
        scope: 'Subscription',
        itemId: saved.id,
        activity: !existing.deleted && saved.deleted ? 'deleted' : 'updated',
        actor: { userId: user.id },
        name: saved.title,
        changes,
      });
    }
    return saved;
  });
  if (updated.pendingInvite) await announce(ctx, updated);
  return updated;
}
