import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

/**
 * Allocates the next value of a named counter inside the caller's transaction. Used where an id
 * must be chosen before the row exists in two tables at once: a project and its first environment
 * share one id (as in PostHog), and later environments draw from the same sequence so the two id
 * spaces never collide. The UPDATE takes a row lock (PostgreSQL) or the write lock (SQLite), so
 * concurrent processes never get the same value.
 */
export async function nextCounterValue(trx: Kysely<Schema>, name: string): Promise<number> {
  const row = await trx
    .updateTable('counters')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('name', '=', name)
    .returning('value')
    .executeTakeFirst();
  if (row) return Number(row.value);
  // First use of this counter: create it, tolerating a concurrent creator, then take a value.
  await trx
    .insertInto('counters')
    .values({ name, value: 0 })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  return nextCounterValue(trx, name);
}

/** A named counter's current value (0 before its first use). */
export async function counterValue(db: Kysely<Schema>, name: string): Promise<number> {
  const row = await db.selectFrom('counters').select('value').where('name', '=', name).executeTakeFirst();
  return Number(row?.value ?? 0);
}
