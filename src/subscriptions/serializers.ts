import { serializeUserBasic } from '../environments/serializers.js';
import { formatDrfDateTime, subscriptionSummary } from './core/index.js';
import type { Delivery } from './deliveries-store.js';
import type { Subscription } from './store.js';

const drf = (value: string | null) => (value === null ? null : formatDrfDateTime(new Date(value)));

/** PostHog's baseline SubscriptionSerializer, in its field order. */
export function serializeSubscription(s: Subscription, createdBy: ReturnType<typeof serializeUserBasic> | null) {
  return {
    id: s.id,
    dashboard: s.dashboardId,
    insight: s.insightId,
    target_type: s.targetType,
    target_value: s.targetValue,
    frequency: s.frequency,
    interval: s.interval,
    byweekday: s.byweekday,
    bysetpos: s.bysetpos,
    count: s.count,
    start_date: drf(s.startDate),
    until_date: drf(s.untilDate),
    created_at: drf(s.createdAt),
    created_by: createdBy,
    deleted: s.deleted,
    title: s.title,
    summary: subscriptionSummary({ frequency: s.frequency, interval: s.interval, byweekday: s.byweekday, bysetpos: s.bysetpos }),
    next_delivery_date: drf(s.nextDeliveryDate),
    // Accepted on write for the invite, never stored: PostHog always answers null.
    invite_message: null,
  };
}

/** The delivery's trigger in PostHog's words (its SubscriptionDelivery.trigger_type). */
const TRIGGER_TYPES = { scheduled: 'scheduled', invite: 'target_change', test: 'manual' } as const;

/**
 * A delivery with its attempts. Hoglet's own endpoint; names follow PostHog's SubscriptionDelivery
 * where they mean the same (subscription, trigger_type, scheduled_at, target_type, target_value,
 * status, error, created_at).
 */
export function serializeDelivery(d: Delivery) {
  return {
    id: d.id,
    subscription: d.subscriptionId,
    trigger_type: TRIGGER_TYPES[d.kind] ?? d.kind,
    is_test: d.kind === 'test',
    scheduled_at: drf(d.occurrence),
    skipped_occurrences: d.skippedOccurrences,
    target_type: d.target.type,
    target_value: d.target.value,
    webhook_url: d.target.webhookUrl,
    status: d.status,
    attempt: d.attempt,
    error: d.error,
    created_at: drf(d.createdAt),
    last_attempt_at: drf(d.lastAttemptAt),
    next_attempt_at: drf(d.nextAttemptAt),
    delivered_at: drf(d.deliveredAt),
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      status: a.status,
      error: a.error,
      started_at: drf(a.startedAt),
      finished_at: drf(a.finishedAt),
    })),
  };
}
