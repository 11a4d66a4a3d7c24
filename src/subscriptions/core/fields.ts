/**
 * The subscription-specific part of PostHog's `SubscriptionSerializer` fields (validate.ts declares
 * which field uses which): the messages of its own checks and the `byweekday` list. The generic
 * DRF fields are posthog/drf-fields.ts's.
 */
import { DRF_MESSAGES, FieldError, fail, parseChoice } from '../../posthog/drf-fields.js';
import { WEEKDAYS, type Weekday } from './types.js';

export const MESSAGES = {
  ...DRF_MESSAGES,
  dashboardOtherTeam: 'This dashboard does not belong to your team.',
  insightOtherTeam: 'This insight does not belong to your team.',
  neitherResource: 'Either dashboard or insight is required for an export.',
  bothResources: 'A subscription can have either a dashboard or an insight, not both.',
  bysetposRange: 'bysetpos must be between 1 and 366, or between -366 and -1.',
  webhookScheme: 'Invalid webhook URL: URL must start with http:// or https://',
  webhookHost: 'Invalid webhook URL: Missing host',
  webhookInvalid: 'Invalid webhook URL: Invalid URL',
  slackNotConfigured: 'A Slack integration is required for Slack subscriptions.',
} as const;

export function parseWeekdays(data: unknown): Weekday[] {
  if (typeof data === 'string' || data === null || typeof data !== 'object' || !Array.isArray(data)) {
    fail('not_a_list', MESSAGES.notAList(data));
  }
  const out: Weekday[] = [];
  for (let i = 0; i < data.length; i++) {
    const item: unknown = data[i];
    try {
      if (item === null || item === undefined) fail('null', MESSAGES.null);
      out.push(parseChoice(item, WEEKDAYS));
    } catch (e) {
      if (e instanceof FieldError) throw new FieldError(e.code, e.detail, String(i));
      throw e;
    }
  }
  return out;
}
