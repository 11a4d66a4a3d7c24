import { sql, type Kysely } from 'kysely';
import type { Schema } from './db/schema.js';
import { isPostgres } from './db/dialect.js';

/**
 * Takes or renews a named lease. Exactly one process holds it at a time: the holder renews it
 * while it works; when it dies, the lease lapses after `ttlMs` and another process takes over.
 */
export async function acquireLease(db: Kysely<Schema>, name: string, owner: string, ttlMs: number): Promise<boolean> {
  const now = new Date();
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  await db
    .insertInto('worker_leases')
    .values({ name, owner, expires_at: expires })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ owner, expires_at: expires })
        .where((eb) => eb.or([eb('worker_leases.owner', '=', owner), eb('worker_leases.expires_at', '<', now.toISOString())])),
    )
    .execute();
  const row = await db.selectFrom('worker_leases').select('owner').where('name', '=', name).executeTakeFirst();
  return row?.owner === owner;
}

/**
 * Who holds the lease now, or undefined when nobody does; read in the caller's transaction as a
 * fence. On PostgreSQL the row is read FOR SHARE: another process taking the lease over (an
 * update of that row) waits until the caller's transaction ends. (SQLite has no row locks and
 * needs none: a transaction begun with `begin immediate` holds the write lock.)
 */
export async function leaseHolder(db: Kysely<Schema>, name: string): Promise<string | undefined> {
  let query = db.selectFrom('worker_leases').select('owner').where('name', '=', name);
  if (isPostgres(db)) query = query.forShare();
  const row = await query.executeTakeFirst();
  return row?.owner;
}

export async function releaseLease(db: Kysely<Schema>, name: string, owner: string): Promise<void> {
  await db.deleteFrom('worker_leases').where('name', '=', name).where('owner', '=', owner).execute();
}

/*
 * Groups of leases (the ingestion queue's partitions, worker/partition-leases.ts): a worker renews
 * all of its leases of a group in one statement and reads the group in another, whatever their
 * number, instead of a statement per lease.
 */

/** Every lease whose name starts with `prefix` (no `%` or `_` in it). */
export async function readLeases(db: Kysely<Schema>, prefix: string): Promise<Array<{ name: string; owner: string; expires_at: string }>> {
  return db.selectFrom('worker_leases').select(['name', 'owner', 'expires_at']).where('name', 'like', `${prefix}%`).execute();
}

/** Extends every lease of `owner` whose name starts with `prefix`; returns how many. */
export async function renewLeases(db: Kysely<Schema>, prefix: string, owner: string, ttlMs: number): Promise<number> {
  const expires = new Date(Date.now() + ttlMs).toISOString();
  const result = await db
    .updateTable('worker_leases')
    .set({ expires_at: expires })
    .where('owner', '=', owner)
    .where('name', 'like', `${prefix}%`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Takes the leases named that are free, lapsed, or this owner's already, in one statement;
 * returns the names taken. Callers pass names in one order (sorted), so two claims never wait on
 * each other's rows in opposite orders.
 */
export async function claimLeases(db: Kysely<Schema>, names: readonly string[], owner: string, ttlMs: number): Promise<string[]> {
  if (names.length === 0) return [];
  const now = new Date();
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  const taken = await db
    .insertInto('worker_leases')
    // In name order, as holdsLeases locks them: a claim and a batch's fence wait, never deadlock.
    .values([...names].sort().map((name) => ({ name, owner, expires_at: expires })))
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ owner, expires_at: expires })
        .where((eb) => eb.or([eb('worker_leases.owner', '=', owner), eb('worker_leases.expires_at', '<', now.toISOString())])),
    )
    .returning('name')
    .execute();
  return taken.map((row) => row.name);
}

/** Gives up the leases named (all of `owner`'s whose name starts with `prefix` when none are named). */
export async function releaseLeases(db: Kysely<Schema>, owner: string, prefix: string, names?: readonly string[]): Promise<void> {
  if (names?.length === 0) return;
  let query = db.deleteFrom('worker_leases').where('owner', '=', owner).where('name', 'like', `${prefix}%`);
  if (names) query = query.where('name', 'in', [...names]);
  await query.execute();
}

/** Deletes the leases of a group that lapsed before `before` (their holders are gone). */
export async function dropLapsedLeases(db: Kysely<Schema>, prefix: string, before: Date): Promise<void> {
  await db.deleteFrom('worker_leases').where('name', 'like', `${prefix}%`).where('expires_at', '<', before.toISOString()).execute();
}

/**
 * Whether `owner` holds every lease named, read in the caller's transaction as a fence (see
 * leaseHolder: FOR SHARE on PostgreSQL, so a takeover waits until the transaction ends).
 */
export async function holdsLeases(db: Kysely<Schema>, names: readonly string[], owner: string): Promise<boolean> {
  return (await holdsLeasesReading(db, names, owner)).held;
}

/**
 * The same, and in the same statement (a round trip fewer) the value of the named counter when
 * one is named and some lease was read (0 before the counter's first use; undefined otherwise),
 * and with `live`, the owners of live leases of some prefixes and the live leases of one.
 * On PostgreSQL the counter is the statement's snapshot, taken before FOR SHARE waits on a lease
 * row: a change committed during that wait is seen by the next read, as one committed just after
 * a separate read would be.
 */
export async function holdsLeasesReading(
  db: Kysely<Schema>,
  names: readonly string[],
  owner: string,
  counter?: string,
  live?: LiveLeasesQuery,
): Promise<{ held: boolean; counter: number | undefined; live: LiveLeases | undefined }> {
  if (names.length === 0) return { held: true, counter: undefined, live: undefined };
  const at = live?.at.toISOString();
  // A count over the live leases whose names start with one of `prefixes` (null without `live`).
  const liveCount = (what: string, prefixes: readonly string[]) => {
    if (live === undefined) return sql<number | string | null>`null`;
    const named = sql.join(
      prefixes.map((prefix) => sql`others.name like ${`${prefix}%`}`),
      sql` or `,
    );
    return sql<
      number | string | null
    >`(select ${sql.raw(what)} from worker_leases as others where (${named}) and others.expires_at >= ${at})`;
  };
  let query = db
    .selectFrom('worker_leases')
    .select((eb) => [
      'owner',
      (counter === undefined ? sql<null>`null` : eb.selectFrom('counters').select('value').where('name', '=', counter)).as('counter'),
      liveCount('count(distinct others.owner)', live?.ownersOf ?? []).as('live_owners'),
      liveCount('count(*)', live ? [live.countOf] : []).as('live_leases'),
    ])
    .where('name', 'in', [...names])
    .orderBy('name');
  if (isPostgres(db)) query = query.forShare();
  const rows = await query.execute();
  const held = rows.length === names.length && rows.every((row) => row.owner === owner);
  const first = rows[0];
  const value = counter === undefined || !first ? undefined : Number(first.counter ?? 0);
  const counts = live === undefined || !first ? undefined : { owners: Number(first.live_owners), leases: Number(first.live_leases) };
  return { held, counter: value, live: counts };
}

/** What holdsLeasesReading counts besides: the holders of live leases of some prefixes, and the live leases of one. */
export interface LiveLeasesQuery {
  ownersOf: readonly string[];
  countOf: string;
  /** Live: lapsing at or after this time. */
  at: Date;
}

export interface LiveLeases {
  owners: number;
  leases: number;
}
