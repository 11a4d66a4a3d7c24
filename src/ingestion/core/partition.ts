/**
 * Which partition of the ingestion queue an event belongs to. A distinct id always maps to the
 * same partition, and one worker holds a partition at a time (worker/partition-leases.ts), so each
 * distinct id's events are processed in arrival order while several workers share the queue, as
 * PostHog partitions its ingestion stream by `token:distinct_id`. Pure.
 *
 * The value is stored in queue rows: the hash must be identical in every process and version.
 */
import type { DialectName } from '../../platform/db/database.js';
import { fnv1a32 } from '../../lib/fnv1a.js';

/** Partitions of the queue on PostgreSQL: room for up to 16 workers sharing it. */
export const POSTGRES_PARTITIONS = 16;

/**
 * How many partitions the queue has: SQLite has one writer, so its queue is one partition
 * (every row is partition 0) and nothing changes there.
 */
export function partitionCount(dialect: DialectName): number {
  return dialect === 'postgres' ? POSTGRES_PARTITIONS : 1;
}

/**
 * The partition of `distinctId` in environment `teamId`: the 32-bit FNV-1a hash of the UTF-8
 * bytes of `${teamId}:${distinctId}` (lib/fnv1a.ts), modulo `partitions`.
 */
export function queuePartition(teamId: number, distinctId: string, partitions: number): number {
  if (partitions <= 1) return 0;
  return fnv1a32(`${teamId}:${distinctId}`) % partitions;
}
