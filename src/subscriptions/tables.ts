import type { Generated } from 'kysely';

export interface SubscriptionsTable {
  id: Generated<number>;
  team_id: number;
  dashboard_id: number | null;
  insight_id: number | null;
  title: string | null;
  target_type: string;
  target_value: string;
  frequency: string;
  interval: number;
  byweekday: unknown;
  bysetpos: number | null;
  count: number | null;
  start_date: string;
  until_date: string | null;
  next_delivery_date: string | null;
  deleted: boolean | number;
  created_by_id: number | null;
  created_at: string;
  /** An invite still to send (new recipients and the invite message), JSON; null when none. */
  pending_invite: unknown;
  /** Failed attempts at the current due delivery. */
  attempts: number;
  /** Not before this time: the backoff after a failed attempt. */
  retry_at: string | null;
  last_error: string | null;
  /** E-mail recipients already served for the due occurrence (JSON array); null when none. */
  sent_to: unknown;
  claim_token: string | null;
  claim_expires_at: string | null;
}

/** One delivery: an occurrence of the schedule, an invite, or a test; its attempts are rows of their own. */
export interface SubscriptionDeliveriesTable {
  id: Generated<number>;
  subscription_id: number;
  team_id: number;
  /** `scheduled` (an occurrence of the schedule), `invite` or `test` (sent on request, outside the schedule). */
  kind: string;
  occurrence: string | null;
  /** `pending` (an attempt under way), `retrying`, `delivered`, `failed` (gave up), `skipped` (resource gone), `cancelled`. */
  status: string;
  /** Attempts made so far (the number of the latest one). */
  attempt: number;
  skipped_occurrences: number;
  /** The latest attempt's error, as text. */
  error: string | null;
  created_at: string;
  /** The target when the delivery was made, secrets in URLs masked; null on rows recorded before targets were kept. */
  target_type: string | null;
  target_value: string | null;
  /** The URL the delivery posts to (slack, webhook), masked. */
  webhook_url: string | null;
  last_attempt_at: string | null;
  /** When the scheduler will try again (status `retrying`). */
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export interface SubscriptionDeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  team_id: number;
  attempt: number;
  /** `pending` (under way), `delivered`, `failed` or `skipped`. */
  status: string;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface SubscriptionsTables {
  subscriptions: SubscriptionsTable;
  subscription_deliveries: SubscriptionDeliveriesTable;
  subscription_delivery_attempts: SubscriptionDeliveryAttemptsTable;
}
