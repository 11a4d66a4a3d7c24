/**
 * Which partition of the ingestion queue an event belongs to. A distinct id always maps to the
 * same partition, and one worker holds a partition at a time (worker/partition-leases.ts), so each
 * distinct id's events are processed in arrival order while several workers share the queue, as
 * PostHog partitions its ingestion stream by `token:distinct_id`. Pure.
 *
 * The value is stored in queue rows: the hash must be identical in every process and version.
 */
import type { DialectName } from '../../platform/db/database.js';

/** Partitions of the queue on PostgreSQL: room for up to 16 workers sharing it. */
export const POSTGRES_PARTITIONS = 16;

/**
 * How many partitions the queue has: SQLite has one writer, so its queue is one partition
 * (every row is partition 0) and nothing changes there.
 */
export function partitionCount(dialect: DialectName): number {
  return dialect === 'postgres' ? POSTGRES_PARTITIONS : 1;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * The partition of `distinctId` in environment `teamId`: the 32-bit FNV-1a hash of the UTF-8
 * bytes of `${teamId}:${distinctId}` (a lone surrogate counts as U+FFFD, as TextEncoder has it),
 * modulo `partitions`. Bytes are hashed as they are encoded, with no string or buffer built.
 */
export function queuePartition(teamId: number, distinctId: string, partitions: number): number {
  if (partitions <= 1) return 0;
  let hash = hashText(FNV_OFFSET, String(teamId));
  hash = Math.imul(hash ^ 0x3a, FNV_PRIME); // ':'
  hash = hashText(hash, distinctId);
  return (hash >>> 0) % partitions;
}

function hashText(start: number, text: string): number {
  let hash = start;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code < 0x80) {
      hash = Math.imul(hash ^ code, FNV_PRIME);
      continue;
    }
    if (code < 0x800) {
      hash = Math.imul(hash ^ (0xc0 | (code >> 6)), FNV_PRIME);
      hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), FNV_PRIME);
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
        hash = Math.imul(hash ^ (0xf0 | (code >> 18)), FNV_PRIME);
        hash = Math.imul(hash ^ (0x80 | ((code >> 12) & 0x3f)), FNV_PRIME);
        hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), FNV_PRIME);
        hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), FNV_PRIME);
        continue;
      }
      code = 0xfffd; // a lone surrogate
    }
    hash = Math.imul(hash ^ (0xe0 | (code >> 12)), FNV_PRIME);
    hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), FNV_PRIME);
    hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), FNV_PRIME);
  }
  return hash;
}
