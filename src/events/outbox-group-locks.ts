import { sql, type Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';

/**
 * Which outbox groups a live copy holds (outbox-copy.ts copyOutboxGroup), so that another
 * copy takes other rows instead of inserting the same ones again: ClickHouse would drop the
 * repeat by its token, but only after paying for the whole insert.
 */
export interface GroupLocks {
  /** Holds the group unless a live copy does: false when one does. */
  tryHold(token: string): Promise<boolean>;
  /** Returns once no live copy holds the group (holding nothing). */
  waitFor(token: string): Promise<void>;
  release(token: string): Promise<void>;
}

/**
 * On PostgreSQL: a session-level advisory lock on the group's token, taken on the copy's own
 * connection. Every process sees it, and it ends with the session, so the group of a copier that
 * died is taken over by the next copy.
 */
export function sessionGroupLocks(session: Kysely<Schema>): GroupLocks {
  const key = (token: string) => sql`hashtext(current_schema() || ':analytics_outbox'), hashtext(${token})`;
  return {
    async tryHold(token) {
      const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_lock(${key(token)}) as held`.execute(session);
      return rows[0]?.held === true;
    },
    async waitFor(token) {
      await sql`select pg_advisory_lock(${key(token)})`.execute(session);
      await sql`select pg_advisory_unlock(${key(token)})`.execute(session);
    },
    async release(token) {
      await sql`select pg_advisory_unlock(${key(token)})`.execute(session);
    },
  };
}

const copying = new Map<string, { done: Promise<void>; finish: () => void }>();

/** On SQLite only this process writes: the groups its own copies hold. */
export const processGroupLocks: GroupLocks = {
  async tryHold(token) {
    if (copying.has(token)) return false;
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    copying.set(token, { done, finish });
    return true;
  },
  async waitFor(token) {
    await copying.get(token)?.done;
  },
  async release(token) {
    copying.get(token)?.finish();
    copying.delete(token);
  },
};
