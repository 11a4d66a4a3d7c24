import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../db/database.js';

export interface Change {
  /** What changed, e.g. `team` or `feature_flags`. */
  topic: string;
  /** Which one, e.g. a team id. */
  id: number | string;
}

/** How a change reaches the other processes sharing the database. */
interface Transport {
  send(change: Change): Promise<void>;
  close(): Promise<void>;
}

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
      ? await pgTransport(log, databaseUrl, database.schema, deliver)
      : await sqliteTransport(log, database, deliver);
    return bus;
  }


  on(topic: string, handler: (change: Change) => void): () => void {
    this.local.on(topic, handler);
    return () => this.local.off(topic, handler);
  }

  /**
   * Announces a change. Local handlers run at once; other processes hear it shortly. Handlers
   * must be idempotent (they only drop cache entries), since a process may hear its own notice.
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

async function pgTransport(
  log: Logger,
  databaseUrl: string,
  schema: string | undefined,
  deliver: (change: Change) => void,
): Promise<Transport> {
  // NOTIFY is database-wide: Hoglets in other schemas of the same database get their own channel.
  const channel = schema && schema !== 'public' ? `hoglet_changes_${schema}` : 'hoglet_changes';
  const sender = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  sender.on('error', () => undefined);
  let closed = false;
  let listener: pg.Client | undefined;
  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: databaseUrl });
    client.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return;
      try {
        deliver(JSON.parse(message.payload) as Change);
      } catch {
        // a payload we did not write: ignore it
      }
    });
    client.on('error', (error) => {
      if (closed) return;
      log.warn({ err: error }, 'change listener lost its connection; reconnecting');
      setTimeout(() => void listen().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${channel}`);
    listener = client;
  };
  await listen();
  return {
    send: async (change) => {
      await sender.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(change)]);
    },
    close: async () => {
      closed = true;
      await listener?.end().catch(() => undefined);
      await sender.end().catch(() => undefined);
    },
  };
}

async function sqliteTransport(log: Logger, database: Database, deliver: (change: Change) => void): Promise<Transport> {
  const { db } = database;
  const origin = randomBytes(8).toString('hex');
  const newest = await db.selectFrom('change_notices').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
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
      await db.deleteFrom('change_notices').where('created_at', '<', new Date(Date.now() - SQLITE_KEEP_MS).toISOString()).execute();
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
