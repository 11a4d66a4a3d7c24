import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { isDatabaseUnavailable, type DatabaseAvailability } from './db/availability.js';
import type { Database } from './db/database.js';
import { pgConnectionSettings } from './db/pg-connections.js';
import { WakeableSleep } from './wakeable-sleep.js';

export interface Change {
  /** What changed, e.g. `team` or `feature_flags`. */
  topic: string;
  /** Which one, e.g. a team id. */
  id: number | string;
  /**
   * Set (with the id `*`) when every item of the topic may have changed: this process may have
   * missed notices (its listener lost its connection), so handlers drop all they cached of it.
   */
  everything?: true;
}

/** How a change reaches the other processes sharing the database. */
interface Transport {
  send(change: Change): Promise<void>;
  close(): Promise<void>;
}

/** Pauses between attempts to listen again after the listener lost its connection. */
const RELISTEN_FIRST_MS = 250;
const RELISTEN_MAX_MS = 2_000;

/** How often SQLite processes look for each other's changes, and how long notices are kept. */
const SQLITE_POLL_MS = 250;
const SQLITE_KEEP_MS = 10 * 60_000;

/**
 * Tells every process that something cached has changed. Within a process it is an event
 * emitter. Other processes sharing the database hear it too: on PostgreSQL through
 * LISTEN/NOTIFY, at once; on SQLite through a small notice table they poll several times a
 * second. So a reset project token or an edited flag takes effect everywhere.
 */
export class ChangeBus {
  private readonly local = new EventEmitter();
  private transport: Transport | undefined;

  private constructor(private readonly log: Logger) {
    this.local.setMaxListeners(0);
  }

  static async connect(log: Logger, database: Database, databaseUrl: string | undefined): Promise<ChangeBus> {
    const bus = new ChangeBus(log);
    const deliver = (change: Change) => bus.local.emit(change.topic, change);
    bus.transport = databaseUrl
      ? await pgTransport(log, databaseUrl, database.schema, database.availability, deliver, () => bus.changedEverything())
      : await sqliteTransport(log, database, deliver);
    return bus;
  }

  /** Every handler drops everything it cached (`Change.everything`). */
  private changedEverything(): void {
    for (const topic of this.local.eventNames()) {
      if (typeof topic === 'string') this.local.emit(topic, { topic, id: '*', everything: true } satisfies Change);
    }
  }

  on(topic: string, handler: (change: Change) => void): () => void {
    this.local.on(topic, handler);
    return () => this.local.off(topic, handler);
  }

  /**
   * Announces a change. Local handlers run at once; other processes hear it shortly. Handlers
   * must be idempotent (they only drop cache entries): a lost listener makes them drop everything.
   */
  async publish(change: Change): Promise<void> {
    this.local.emit(change.topic, change);
    await this.transport
      ?.send(change)
      .catch((error: unknown) => this.log.warn({ err: error, change }, 'could not announce a change to other processes'));
  }

  async close(): Promise<void> {
    await this.transport?.close().catch(() => undefined);
  }
}

/**
 * LISTEN on one connection of its own, NOTIFY through a pool of one; a notice carries its process's
 * origin, so its own comes back to nothing (as on SQLite). A listener that loses its
 * connection listens again as soon as the database lets it (retrying until the bus closes); the
 * notices sent meanwhile are lost, so then every cache is told to drop everything.
 */
async function pgTransport(
  log: Logger,
  databaseUrl: string,
  schema: string | undefined,
  availability: DatabaseAvailability,
  deliver: (change: Change) => void,
  changedEverything: () => void,
): Promise<Transport> {
  // NOTIFY is database-wide: Hoglets in other schemas of the same database get their own channel.
  const channel = schema && schema !== 'public' ? `hoglet_changes_${schema}` : 'hoglet_changes';
  // Loaded only for PostgreSQL: on SQLite the driver's ~30 modules would slow every start for nothing.
  const { default: pg } = await import('pg');
  const sender = new pg.Pool({ ...pgConnectionSettings(databaseUrl), max: 1 });
  // pool.query handles the errors of the connection it uses; the pool, those of an idle one.
  sender.on('error', () => undefined);
  const origin = randomBytes(8).toString('hex');
  const pause = new WakeableSleep();
  let closed = false;
  let listener: pg.Client | undefined;

  /** Connects and listens (unless the bus closed meanwhile); a lost connection goes on to `listenAgain`. */
  const listen = async (): Promise<void> => {
    const client = new pg.Client(pgConnectionSettings(databaseUrl));
    let failure: unknown;
    client.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return;
      let notice: Change & { origin?: string };
      try {
        notice = JSON.parse(message.payload) as Change & { origin?: string };
      } catch {
        return; // a payload we did not write: ignore it
      }
      // This process's own notice came back: its handlers had it when it was published.
      if (notice.origin === origin) return;
      delete notice.origin;
      deliver(notice);
    });
    // A lost connection reports twice (the server's notice, then the socket's end): the first counts.
    client.on('error', (error) => {
      if (failure !== undefined) return;
      failure = error;
      if (listener !== client) return; // still connecting: listen() fails with it
      listener = undefined;
      void client.end().catch(() => undefined);
      if (closed) return;
      log.debug({ err: error }, 'change listener lost its connection; listening again');
      void listenAgain();
    });
    try {
      await client.connect();
      availability.restored();
      await client.query(`LISTEN ${channel}`);
      if (failure !== undefined) throw failure;
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (closed) await client.end().catch(() => undefined);
    else listener = client;
  };

  const listenAgain = async (): Promise<void> => {
    for (let wait = RELISTEN_FIRST_MS; !closed; wait = Math.min(wait * 2, RELISTEN_MAX_MS)) {
      await pause.sleep(wait);
      if (closed) return;
      const since = availability.generation;
      try {
        await listen();
      } catch (error) {
        if (isDatabaseUnavailable(error)) availability.lost(error, since);
        else log.warn({ err: error }, 'change listener could not listen again; retrying');
        continue;
      }
      changedEverything();
      log.debug('change listener listening again; cached items dropped');
      return;
    }
  };

  await listen();
  return {
    send: async (change) => {
      await sender.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify({ ...change, origin })]);
    },
    close: async () => {
      closed = true;
      pause.wake();
      await listener?.end().catch(() => undefined);
      await sender.end().catch(() => undefined);
    },
  };
}

async function sqliteTransport(log: Logger, database: Database, deliver: (change: Change) => void): Promise<Transport> {
  const { db } = database;
  const origin = randomBytes(8).toString('hex');
  const newest = await db
    .selectFrom('change_notices')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  let lastSeen = Number(newest?.id ?? 0);
  let polls = 0;
  let closed = false;
  const poll = async () => {
    const rows = await db.selectFrom('change_notices').selectAll().where('id', '>', lastSeen).orderBy('id').execute();
    for (const row of rows) {
      lastSeen = Math.max(lastSeen, Number(row.id));
      if (row.origin !== origin) deliver({ topic: row.topic, id: row.item_id });
    }
    if (++polls % 240 === 0) {
      await db
        .deleteFrom('change_notices')
        .where('created_at', '<', new Date(Date.now() - SQLITE_KEEP_MS).toISOString())
        .execute();
    }
  };
  const timer = setInterval(() => {
    if (!closed) poll().catch((error: unknown) => log.warn({ err: error }, 'could not read change notices'));
  }, SQLITE_POLL_MS);
  timer.unref();
  return {
    send: async (change) => {
      await db
        .insertInto('change_notices')
        .values({ origin, topic: change.topic, item_id: String(change.id), created_at: new Date().toISOString() })
        .execute();
    },
    close: async () => {
      closed = true;
      clearInterval(timer);
    },
  };
}
