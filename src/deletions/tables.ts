import type { Generated } from 'kysely';

export interface PendingDeletionsTable {
  id: Generated<number>;
  owner_team_id: number;
  /** A DeletionKind (store.ts): `environment`, `person_events` or `person_recordings` (of the person `target`, a uuid). */
  kind: string;
  target: string | null;
  /** How far a person-events deletion got: the last event it deleted, in (timestamp, uuid) order. */
  cursor_timestamp: string | null;
  cursor_uuid: string | null;
  /** Batches that failed; at MAX_DELETION_ATTEMPTS the deletion is parked until the next start. */
  attempts: Generated<number>;
  created_at: string;
  /**
   * The highest outbox id when the deletion was queued (migration 030): the deletion waits while
   * an outbox row at or below it is left. Null for a deletion queued before (the runner sets it).
   */
  outbox_mark: number | null;
}

/** A `person_events` or `person_recordings` deletion's person's distinct ids, as they were when it was deleted. */
export interface PendingDeletionDistinctIdsTable {
  deletion_id: number;
  distinct_id: string;
}

/** A deleted person's event deletion, as the persons API's `deletion_status` lists it (migration 015). */
export interface PersonEventDeletionsTable {
  id: Generated<number>;
  team_id: number;
  person_uuid: string;
  /** The background deletion carrying it (null once that is done: the row is then verified). */
  deletion_id: number | null;
  created_at: string;
  verified_at: string | null;
}

export interface DeletionsTables {
  background_deletions: PendingDeletionsTable;
  person_event_deletions: PersonEventDeletionsTable;
  pending_deletion_distinct_ids: PendingDeletionDistinctIdsTable;
}
