import type { PostgresPool } from 'kysely';
import type pg from 'pg';
import { isDatabaseUnavailable, type DatabaseAvailability } from './availability.js';

/**
 * How long a request waits for a connection (a new one, or a free one of a full pool) before it
 * fails with 503: while the database is down or unreachable, requests fail fast instead of hanging.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/** TCP keepalive after this much silence, so a connection to a vanished host is noticed (the OS default is 2 h). */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * The settings of every connection Hoglet opens to PostgreSQL. They appear as `hoglet` in
 * pg_stat_activity unless the URL (`?application_name=`) or PGAPPNAME names them otherwise.
 */
export function pgConnectionSettings(databaseUrl: string): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    fallback_application_name: 'hoglet',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
}

/**
 * Handles every error of the pool's connections and tells `availability` about them; returns the
 * pool as Kysely takes it. pg emits `error` on a connection when it is lost, and pg-pool listens
 * only while the connection is idle in the pool: one lost while checked out (a query or a
 * transaction under way) would otherwise crash the process. Its queries fail by themselves, and
 * the pool drops it when it is released.
 */
export function watchPool(pool: pg.Pool, availability: DatabaseAvailability): PostgresPool {
  const checkedOut = new WeakSet<pg.PoolClient>();
  // Idle connections: pg-pool drops one that fails and then emits it here. Not an outage by
  // itself (a server's idle timeout does it too); the next connect tells.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    availability.restored();
    const since = availability.generation;
    client.on('error', (error) => {
      if (checkedOut.has(client) && isDatabaseUnavailable(error)) availability.lost(error, since);
    });
  });
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  return {
    connect: async () => {
      const since = availability.generation;
      try {
        return await pool.connect();
      } catch (error) {
        // Waiting for a free connection of a full pool says nothing of the database.
        if (isDatabaseUnavailable(error) && !(error as Error).message.startsWith('timeout exceeded')) availability.lost(error, since);
        throw error;
      }
    },
    end: () => pool.end(),
  };
}
