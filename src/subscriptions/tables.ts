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

export interface SubscriptionDeliveriesTable {
  id: Generated<number>;
  subscription_id: number;
  team_id: number;
  /** `scheduled` (an occurrence of the schedule) or `invite`. */
  kind: string;
  occurrence: string | null;
  /** `sent`, `failed` (will retry), `abandoned` (gave up) or `skipped` (resource gone). */
  status: string;
  attempt: number;
  skipped_occurrences: number;
  error: string | null;
  created_at: string;
}

export interface SubscriptionsTables {
  subscriptions: SubscriptionsTable;
  subscription_deliveries: SubscriptionDeliveriesTable;
}
