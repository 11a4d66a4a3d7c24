import { serializeUserBasic } from '../tenancy/serializers.js';
import { formatDrfDateTime, subscriptionSummary } from './core/index.js';
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
