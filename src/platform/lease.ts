import { PostgresAdapter, type Kysely } from 'kysely';
import type { Schema } from './db/schema.js';

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
  if (db.getExecutor().adapter instanceof PostgresAdapter) query = query.forShare();
  const row = await query.executeTakeFirst();
  return row?.owner;
}

export async function releaseLease(db: Kysely<Schema>, name: string, owner: string): Promise<void> {
  await db.deleteFrom('worker_leases').where('name', '=', name).where('owner', '=', owner).execute();
}
