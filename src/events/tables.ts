import type { Generated } from 'kysely';

export interface EventsTable {
  team_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  /** The person's uuid when the event was processed; null for personless events. */
  person_id: string | null;
  properties: unknown;
  timestamp: string;
  created_at: string;
  session_id: string | null;
  elements_chain: string | null;
}

/**
 * Which event uuids are stored (in ClickHouse, or on their way there in the outbox): the worker's
 * dedupe, kept for INGESTION_DEDUPE_DAYS (event-uuids-store.ts).
 */
export interface EventUuidsTable {
  team_id: number;
  uuid: string;
  /**
   * The day the event was stored, in days since 1970-01-01 UTC (dedupeDay). The worker always
   * writes it; left out, it is the day migration 026 ran.
   */
  stored_day: Generated<number>;
}

/**
 * Worker batches' writes to ClickHouse, committed with the batch and deleted once ClickHouse has
 * them; `token` makes a repeated insert a no-op there.
 */
export interface AnalyticsOutboxTable {
  id: Generated<number>;
  token: string;
  /** The batch's event rows, ClickHouse's JSONEachRow (events/analytics-rows.ts). */
  events: string;
  /** The batch's person override rows, JSONEachRow without their version (the row's id is). */
  person_overrides: string;
  created_at: string;
}

/** Merged-away persons → the person they live on in now (transitively), mirrored to ClickHouse. */
export interface PersonOverridesTable {
  team_id: number;
  old_person_id: string;
  override_person_id: string;
}

/** Distinct ids whose events were stored without a person (attributed to the uuid derived from the id). */
export interface PersonlessDistinctIdsTable {
  team_id: number;
  distinct_id: string;
}

export interface EventsTables {
  /** Events stored before ClickHouse held them, moved there on start (events/upgrade.ts). */
  events: EventsTable;
  event_uuids: EventUuidsTable;
  analytics_outbox: AnalyticsOutboxTable;
  person_overrides: PersonOverridesTable;
  personless_distinct_ids: PersonlessDistinctIdsTable;
}
