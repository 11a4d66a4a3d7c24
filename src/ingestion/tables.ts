import type { Generated } from 'kysely';

export interface IngestionQueueTable {
  id: Generated<number>;
  team_id: number;
  /** `realtime` or `historical` (historical_migration: true), processed separately. */
  lane: string;
  /** The (first) event's distinct id: what an operator sees of a parked row. */
  distinct_id: string;
  /**
   * The accepted event and its request context, as JSON text (see queue.ts QueuedEvent); for a
   * chunk (the events of one request, or of the requests one commit carried), a JSON array of them.
   */
  payload: string;
  /** When capture received the (first) event (each event's own receipt time is in its payload). */
  received_at: string;
  attempts: Generated<number>;
  /** How many events `payload` holds: 1, or the length of a chunk's array. */
  event_count: Generated<number>;
  /** The queue partition of every event the row holds (core/partition.ts); 0 on SQLite. */
  partition: Generated<number>;
}

export interface WorkerLeasesTable {
  name: string;
  owner: string;
  expires_at: string;
}

export interface IngestionWarningsTable {
  id: Generated<number>;
  team_id: number;
  type: string;
  source: string;
  details: unknown;
  timestamp: string;
}

export interface IngestionTables {
  ingestion_queue: IngestionQueueTable;
  worker_leases: WorkerLeasesTable;
  ingestion_warnings: IngestionWarningsTable;
}
