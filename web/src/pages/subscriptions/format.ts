import type { Subscription } from '../../api/subscriptions';
import { formFromSubscription, weekdayLabel } from './subscription-form';

const TARGET_NAMES: Record<string, string> = { email: 'E-mail', slack: 'Slack', webhook: 'Webhook' };

export const targetName = (type: string | null) => (type ? (TARGET_NAMES[type] ?? type) : '');

/** Where a subscription goes, in words: the addresses, the channel, the URL. */
export function targetText(s: Pick<Subscription, 'target_type' | 'target_value'>): string {
  if (s.target_type === 'email') return s.target_value.split(',').join(', ');
  if (s.target_type === 'slack') return s.target_value.split('|').at(-1) ?? s.target_value;
  return s.target_value;
}

export const subscriptionTitle = (s: Pick<Subscription, 'title' | 'id'>) => s.title?.trim() || `Subscription ${s.id}`;

/**
 * The schedule in words: the server's summary (PostHog's: "sent every 2 weeks", "sent every month on
 * the first Monday"), with the weekdays of a weekly one, which it leaves out, and the time of day
 * in the environment's time zone.
 */
export function scheduleText(s: Subscription, timeZone: string): string {
  const form = formFromSubscription(s, timeZone);
  let text = s.summary.charAt(0).toUpperCase() + s.summary.slice(1);
  if (s.frequency === 'weekly' && (s.byweekday?.length ?? 0) > 0) text += ` on ${form.weekdays.map(weekdayLabel).join(', ')}`;
  return `${text} at ${form.time}`;
}
