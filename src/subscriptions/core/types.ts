/**
 * Shared types of the subscription cores. Field names and enumerations follow PostHog's
 * `Subscription` model (posthog/models/subscription.py), baseline serializer.
 */

export const TARGET_TYPES = ['email', 'slack', 'webhook'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export const FREQUENCIES = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** Order matters: index 0 = Monday, as in dateutil / rrule (`MO`..`SU`). */
export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * The schedule part of a subscription, as stored. Dates may be `Date`s or ISO strings
 * (anything `new Date()` reads unambiguously, e.g. the `...Z` strings the validator returns).
 */
export interface ScheduleFields {
  frequency: Frequency | string;
  /** Defaults to 1 (model default) when null/undefined. */
  interval?: number | null;
  byweekday?: readonly (Weekday | string)[] | null;
  bysetpos?: number | null;
  count?: number | null;
  start_date: Date | string;
  until_date?: Date | string | null;
}
