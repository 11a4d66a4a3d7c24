/**
 * Concurrent ingestion batches on PostgreSQL (several workers, each on its own partitions of the
 * queue) can collide on rows they share: persons reached through a merge's second distinct id,
 * groups, group types, definitions. Such a collision fails the batch's transaction; the batch is
 * then rolled back and retried whole, with fresh reads (ingestion/worker/conflict-retry.ts). This
 * module says which failures are such collisions.
 */

/**
 * A row the batch read changed under it before it wrote it back: another transaction updated or
 * deleted a person or group the batch holds an older version of (its write is version-checked).
 * Raised inside the batch's transaction, so the transaction rolls back.
 */
export class ConcurrentWriteConflict extends Error {
  readonly code = 'version_conflict';
  constructor(what: string) {
    super(`${what} was changed by a concurrent writer`);
  }
}

/** PostgreSQL's deadlock_detected and serialization_failure. */
const RETRYABLE_CODES = new Set(['40P01', '40001']);

/**
 * Unique keys two concurrent batches may both insert (23505 unique_violation): a distinct id given
 * to a person by two batches (one creates the person of distinct id X from X's event, another
 * attaches X in a merge), a group created by two, a group type index taken by two, an event uuid
 * stored by two, and the definitions and merge bookkeeping rows. Any other unique violation is a
 * bug or bad data, not a race: it goes to the one-by-one fallback at once.
 */
export const SHARED_UNIQUE_KEYS: ReadonlySet<string> = new Set([
  'person_distinct_ids_pkey',
  'persons_uuid_key',
  'groups_pkey',
  'group_type_mappings_pkey',
  'group_type_mappings_index_key',
  'event_definitions_project_name',
  'property_definitions_project_kind_name',
  'event_properties_project_pkey',
  'event_uuids_pkey',
  'person_overrides_pkey',
  'personless_distinct_ids_pkey',
]);

/**
 * 23503 foreign_key_violation on a distinct id's person: a batch gave a distinct id to a person
 * another batch merged away (deleted) meanwhile. The batches lock such persons first, so this is
 * a safety net.
 */
export const SHARED_FOREIGN_KEYS: ReadonlySet<string> = new Set(['person_distinct_ids_person_id_fkey']);

interface PgErrorFields {
  code?: unknown;
  constraint?: unknown;
  cause?: unknown;
}

/** The PostgreSQL error code of a failure, when it has one (also under `cause`). */
export function databaseErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as PgErrorFields).cause, depth++) {
    const code = (e as PgErrorFields).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Whether a failed transaction lost a race with another one writing the same rows, so that
 * running it again from fresh reads is expected to succeed: a deadlock (40P01), a serialization
 * failure (40001), a unique or foreign key violation on a key concurrent ingestion batches share,
 * or a version-checked write that found the row changed (ConcurrentWriteConflict). SQLite has one
 * writer: none of its errors is one.
 */
export function isConcurrentWriteConflict(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as PgErrorFields).cause, depth++) {
    if (e instanceof ConcurrentWriteConflict) return true;
    const { code, constraint } = e as PgErrorFields;
    if (typeof code !== 'string') continue;
    if (RETRYABLE_CODES.has(code)) return true;
    if (typeof constraint !== 'string') return false;
    if (code === '23505') return SHARED_UNIQUE_KEYS.has(constraint);
    if (code === '23503') return SHARED_FOREIGN_KEYS.has(constraint);
    return false;
  }
  return false;
}
