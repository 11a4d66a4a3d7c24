import { randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { nextTurn } from '../platform/next-turn.js';
import { isPostgres } from '../platform/db/dialect.js';
import { chunks } from '../lib/chunks.js';
import { processGroupLocks, sessionGroupLocks, type GroupLocks } from './outbox-group-locks.js';
import type { KeptOutboxRows, OutboxRow } from './outbox-rows.js';

type Db = Kysely<Schema>;

/**
 * The outbox between a worker batch's transaction and ClickHouse. A batch commits its event rows
 * as one outbox row (with the queue deletion and the persons), then the worker copies the row to
 * ClickHouse with the row's token and deletes it. A crash after the copy and before the deletion
 * copies it again on the next start: ClickHouse drops an insert whose token it has seen, so an
 * acknowledged event is stored exactly once.
 */

/** A copy's token marks its rows (see copyOutboxGroup); a fresh row's token is a bare uuid. */
const GROUP = 'group:';
/** A copy takes rows up to about this much event text (a posthog-js event takes 1-3 KB: 10,000-30,000 events). */
const GROUP_BYTES = 32 * 1024 * 1024;
/** Rows looked at per copy (a row is a batch of up to 1000 events). */
const GROUP_ROWS = 200;
/** Outbox rows read or deleted per statement (a row is up to 1000 events, a few MB). */
const ROWS_PER_STATEMENT = 2;

/**
 * Rows of others older than this (on the database's clock) are copied by whoever copies next: a
 * worker copies its own rows within BACKLOG_DELAY_MS and one insert (analytics-copier.ts), so
 * older ones are a stopped or dead worker's, or were written outside a worker (a person's split).
 */
export const ORPHANED_AFTER_MS = 10_000;

export interface CopyOptions {
  /**
   * Every row is a candidate. Otherwise, on PostgreSQL (where several workers copy), a copy given
   * `kept` claims only those rows and rows older than ORPHANED_AFTER_MS.
   */
  everyRow?: boolean;
}

/**
 * Copies the oldest outbox rows to ClickHouse as one insert, and deletes them; returns how many
 * rows it copied (0: nothing to copy). ClickHouse pays some 30 ms of CPU per insert into
 * `events` whatever its size (a part, the sessions view's part), so one insert for many batches
 * costs a fraction of one per batch (docs/benchmarks.md).
 *
 * The rows go together under one token, written onto them before the insert: a copy repeated
 * after a crash takes exactly the same rows under the same token, so ClickHouse drops the repeat.
 * Only rows no copy has claimed yet are claimed, so two copies never claim the same row under
 * different tokens; and a group that a live copy holds (outbox-group-locks.ts) is left to it, so
 * copies side by side (two workers) take different rows instead of inserting the same twice.
 * Beside other workers, a worker's copy takes the rows it committed (CopyOptions): their text is
 * in its memory, where another worker would read it back from PostgreSQL.
 */
export async function copyOutboxGroup(db: Db, engine: AnalyticsEngine, kept?: KeptOutboxRows, options: CopyOptions = {}): Promise<number> {
  if (!isPostgres(db)) return copyGroup(db, engine, kept, processGroupLocks, null);
  const own = ownRows(kept, options);
  return db.connection().execute((session) => copyGroup(session, engine, kept, sessionGroupLocks(session), own));
}

/**
 * Whether a copy given the same `kept` and options would find rows to claim: beside other workers,
 * its own or orphaned ones (CopyOptions), not the others' young rows, which their copies take.
 */
export async function outboxHoldsClaimable(db: Db, kept?: KeptOutboxRows, options: CopyOptions = {}): Promise<boolean> {
  const own = isPostgres(db) ? ownRows(kept, options) : null;
  let query = db.selectFrom('analytics_outbox').select('id');
  if (own) query = query.where(ownOrOrphaned(own));
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/** The ids a copy on PostgreSQL claims beside orphaned rows (null: every row is a candidate). */
function ownRows(kept: KeptOutboxRows | undefined, options: CopyOptions): number[] | null {
  return kept && !options.everyRow ? oldest(kept.ids()) : null;
}

/** A copy's own rows, and others' older than ORPHANED_AFTER_MS on the database's clock (addToOutbox wrote it). */
function ownOrOrphaned(own: number[]) {
  return (eb: ExpressionBuilder<Schema, 'analytics_outbox'>) => {
    const orphaned = sql<boolean>`created_at <= now() - ${sql.lit(ORPHANED_AFTER_MS)} * interval '1 millisecond'`;
    return own.length === 0 ? orphaned : eb.or([eb('id', 'in', own), orphaned]);
  };
}

/**
 * The first GROUP_ROWS ids, all a copy can claim: a backlog (ClickHouse down for hours) keeps
 * more than a statement takes as parameters.
 */
function oldest(ids: number[]): number[] {
  return ids.sort((a, b) => a - b).slice(0, GROUP_ROWS);
}

async function copyGroup(
  db: Db,
  engine: AnalyticsEngine,
  kept: KeptOutboxRows | undefined,
  locks: GroupLocks,
  own: number[] | null,
): Promise<number> {
  const head = await db.selectFrom('analytics_outbox').select(['id', 'token']).orderBy('id').limit(1).executeTakeFirst();
  if (!head) {
    kept?.dropBefore(Infinity);
    return 0;
  }
  kept?.dropBefore(Number(head.id));
  // The head's group when no live copy holds it (its copier died, or failed): taken over.
  let token: string | null = head.token.startsWith(GROUP) && (await locks.tryHold(head.token)) ? head.token : null;
  token ??= await claimRows(db, locks, own);
  if (token === null) {
    // Nothing of this copy's own is left to claim: the others' are theirs.
    if (own) return 0;
    // Every row is in groups that live copies hold: once the head's is done, go on from there.
    await locks.waitFor(head.token);
    return copyGroup(db, engine, kept, locks, own);
  }
  try {
    const ids = (await db.selectFrom('analytics_outbox').select('id').where('token', '=', token).orderBy('id').execute()).map((r) => r.id);
    // Claimed by another copy meanwhile, or copied by the one that held it: go on from what is left.
    if (ids.length === 0) return await copyGroup(db, engine, kept, locks, own);
    await copyRows(db, engine, kept, token, ids);
    return ids.length;
  } finally {
    await locks.release(token);
  }
}

/**
 * Claims the oldest rows no copy has claimed (up to GROUP_ROWS rows and about GROUP_BYTES of
 * events; when `own` is given, only those ids and others' rows older than ORPHANED_AFTER_MS)
 * under a new token that this copy holds; null when there are none.
 */
async function claimRows(db: Db, locks: GroupLocks, own: number[] | null): Promise<string | null> {
  let query = db
    .selectFrom('analytics_outbox')
    // PostgreSQL's octet_length reads the size off a stored value; length would decompress it.
    .select(['id', (eb) => eb.fn<number>(isPostgres(db) ? 'octet_length' : 'length', ['events']).as('bytes')])
    .where('token', 'not like', `${GROUP}%`);
  if (own) query = query.where(ownOrOrphaned(own));
  const candidates = await query.orderBy('id').limit(GROUP_ROWS).execute();
  if (candidates.length === 0) return null;
  const claimed: number[] = [];
  let bytes = 0;
  for (const row of candidates) {
    if (bytes > 0 && bytes + Number(row.bytes) > GROUP_BYTES) break;
    bytes += Number(row.bytes);
    claimed.push(Number(row.id));
  }
  const token = `${GROUP}${randomUUID()}`;
  await locks.tryHold(token);
  await db.updateTable('analytics_outbox').set({ token }).where('id', 'in', claimed).where('token', 'not like', `${GROUP}%`).execute();
  return token;
}

/** Inserts the rows of a group into ClickHouse under its token, then deletes them. */
async function copyRows(db: Db, engine: AnalyticsEngine, kept: KeptOutboxRows | undefined, token: string, ids: number[]): Promise<void> {
  // The rows this process did not keep are read, a few per statement, a turn of the event loop
  // between: on SQLite each read or delete holds the thread, and requests wait meanwhile.
  // The kept rows are taken once, before the reads yield: a row dropped from memory meanwhile is
  // then neither read nor taken, and would be deleted uncopied.
  const mine = new Map<number, OutboxRow>();
  for (const id of ids) {
    const row = kept?.get(Number(id));
    if (row) mine.set(Number(id), row);
  }
  const read = new Map<number, OutboxRow>();
  const unkept = ids.filter((id) => !mine.has(Number(id)));
  for (const chunk of chunks(unkept, ROWS_PER_STATEMENT)) {
    const rows = await db.selectFrom('analytics_outbox').select(['id', 'events', 'person_overrides']).where('id', 'in', chunk).execute();
    for (const row of rows) read.set(Number(row.id), { id: Number(row.id), events: row.events, personOverrides: row.person_overrides });
    await nextTurn();
  }
  const events: string[] = [];
  const overrides: string[] = [];
  for (const id of ids) {
    const row = mine.get(Number(id)) ?? read.get(Number(id));
    if (!row) continue;
    if (row.events) events.push(row.events);
    // A later merge's row replaces an earlier one's: the outbox id orders them.
    if (row.personOverrides)
      for (const line of row.personOverrides.split('\n')) overrides.push(`${line.slice(0, -1)},"version":${row.id}}`);
  }
  if (events.length > 0) await engine.insert('events', events, { deduplicationToken: token });
  if (overrides.length > 0) await engine.insert('person_overrides', overrides.join('\n'), { deduplicationToken: token });
  // A crash between two deletes leaves part of the rows: copied again under the same token,
  // ClickHouse drops them as the repeat they are.
  for (const chunk of chunks(ids, ROWS_PER_STATEMENT)) {
    await db.deleteFrom('analytics_outbox').where('id', 'in', chunk).execute();
    await nextTurn();
  }
  for (const id of ids) kept?.drop(Number(id));
}

/** Copies every outbox row to ClickHouse (copyOutboxGroup until none is left); returns how many rows it copied. */
export async function flushOutbox(db: Db, engine: AnalyticsEngine, kept?: KeptOutboxRows): Promise<number> {
  let copied = 0;
  for (let rows; (rows = await copyOutboxGroup(db, engine, kept, { everyRow: true })) > 0;) copied += rows;
  return copied;
}

/**
 * The outbox's high-water mark, its highest id (0 when empty: nothing is pending), as a query to
 * read or to record within the statement that needs it (queueDeletion). Every row committed before
 * it is read is visible to it, so has an id at or below it unless it was copied (rows are deleted
 * only then); ids are never reused. No clock is compared: a row's time is the database's on
 * PostgreSQL, its reader's may run behind it.
 */
export function outboxMarkQuery(db: Db) {
  return db.selectFrom('analytics_outbox').select((eb) => eb.fn.coalesce(eb.fn.max('id'), eb.lit(0)).as('mark'));
}

/** The outbox's high-water mark now (outboxMarkQuery). */
export async function outboxMark(db: Db): Promise<number> {
  const row = await outboxMarkQuery(db).executeTakeFirst();
  return Number(row?.mark ?? 0);
}

/** Whether rows at or below a mark (outboxMark) still wait to be copied: what committed before it did. */
export async function outboxHoldsRowsUpTo(db: Db, mark: number): Promise<boolean> {
  const row = await db.selectFrom('analytics_outbox').select('id').where('id', '<=', mark).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** How many outbox rows wait to be copied to ClickHouse (0: none). */
export async function outboxPending(db: Db): Promise<number> {
  const row = await db
    .selectFrom('analytics_outbox')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
