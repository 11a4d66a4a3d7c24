import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';

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
        .where((eb) =>
          eb.or([eb('worker_leases.owner', '=', owner), eb('worker_leases.expires_at', '<', now.toISOString())]),
        ),
    )
    .execute();
  const row = await db.selectFrom('worker_leases').select('owner').where('name', '=', name).executeTakeFirst();
  return row?.owner === owner;
}

/** Who holds the lease now (read in the caller's transaction), or undefined when nobody does. */
export async function leaseHolder(db: Kysely<Schema>, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('worker_leases').select('owner').where('name', '=', name).executeTakeFirst();
  return row?.owner;
}

export async function releaseLease(db: Kysely<Schema>, name: string, owner: string): Promise<void> {
  await db.deleteFrom('worker_leases').where('name', '=', name).where('owner', '=', owner).execute();
}
