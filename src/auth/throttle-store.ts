/**
 * Failed-login counters, one row per key (`email:…`, `ip:…`) and fixed window, in the database so
 * every HTTP process counts the same failures. The increment is one upsert: concurrent failures
 * from several processes all count.
 */
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';

type Db = Kysely<Schema>;

/** The failures counted for `key` in the window that started after `windowStart`. */
export async function failuresSince(db: Db, key: string, windowStart: Date): Promise<{ failures: number; startedAt: string } | undefined> {
  const row = await db
    .selectFrom('login_failures')
    .select(['failures', 'window_started_at'])
    .where('key', '=', key)
    .where('window_started_at', '>', windowStart.toISOString())
    .executeTakeFirst();
  return row && { failures: Number(row.failures), startedAt: row.window_started_at };
}

/** Counts one failure; a window older than `windowStart` starts again at 1. */
export async function recordFailure(db: Db, key: string, now: Date, windowStart: Date): Promise<void> {
  const cutoff = windowStart.toISOString();
  const at = now.toISOString();
  await db
    .insertInto('login_failures')
    .values({ key, failures: 1, window_started_at: at })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql<number>`case when login_failures.window_started_at > ${cutoff} then login_failures.failures + 1 else 1 end`,
        window_started_at: sql<string>`case when login_failures.window_started_at > ${cutoff} then login_failures.window_started_at else ${at} end`,
      }),
    )
    .execute();
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.deleteFrom('login_failures').where('key', '=', key).execute();
}

/** Drops windows that ended: the table holds only the keys that failed recently. */
export async function deleteOldFailures(db: Db, windowStart: Date): Promise<void> {
  await db.deleteFrom('login_failures').where('window_started_at', '<=', windowStart.toISOString()).execute();
}
