import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { Logger } from 'pino';


export interface Change {
  /** What changed, e.g. `team` or `feature_flags`. */
  topic: string;
  /** Which one, e.g. a team id. */
  id: number | string;
}

/**
 * Tells every process that something cached has changed. Within a process it is an event
 * emitter; on PostgreSQL it also rides LISTEN/NOTIFY, so caches in other processes sharing the
 * database are dropped at once too (a reset project token stops working everywhere).
 */
export class ChangeBus {
  private readonly local = new EventEmitter();
  private listener: pg.Client | undefined;
  private closed = false;
  private channel = 'hoglet_changes';

  constructor(
    private readonly log: Logger,
    private readonly notify?: (payload: string) => Promise<void>,
  ) {
    this.local.setMaxListeners(0);
  }

  /** On PostgreSQL: listen for other processes' changes on a dedicated connection. */
  static async connect(log: Logger, databaseUrl: string | undefined, schema?: string): Promise<ChangeBus> {
    if (!databaseUrl) return new ChangeBus(log);
    const sender = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    sender.on('error', () => undefined);
    // NOTIFY is database-wide: Hoglets in other schemas of the same database get their own channel.
    const channel = schema && schema !== 'public' ? `hoglet_changes_${schema}` : 'hoglet_changes';
    const bus = new ChangeBus(log, async (payload) => {
      await sender.query('SELECT pg_notify($1, $2)', [channel, payload]);
    });
    bus.channel = channel;
    bus.closeSender = () => sender.end();
    await bus.listen(databaseUrl);
    return bus;
  }

  private closeSender: () => Promise<void> = async () => undefined;

  private async listen(databaseUrl: string): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl });
    client.on('notification', (message) => {
      if (message.channel !== this.channel || !message.payload) return;
      try {
        const change = JSON.parse(message.payload) as Change;
        this.local.emit(change.topic, change);
      } catch {
        // a payload we did not write: ignore it
      }
    });
    client.on('error', (error) => {
      if (this.closed) return;
      this.log.warn({ err: error }, 'change listener lost its connection; reconnecting');
      this.listener = undefined;
      setTimeout(() => void this.listen(databaseUrl).catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    this.listener = client;
  }

  on(topic: string, handler: (change: Change) => void): () => void {
    this.local.on(topic, handler);
    return () => this.local.off(topic, handler);
  }

  /** Announces a change; local handlers run at once, other processes hear it via NOTIFY. */
  async publish(change: Change): Promise<void> {
    if (this.notify) {
      // NOTIFY reaches this process too; emitting here as well keeps local caches exact even if
      // the notification is delayed. Handlers must be idempotent (they only drop cache entries).
      this.local.emit(change.topic, change);
      await this.notify(JSON.stringify(change)).catch((error: unknown) =>
        this.log.warn({ err: error, change }, 'could not announce a change to other processes'),
      );
    } else {
      this.local.emit(change.topic, change);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
    await this.closeSender().catch(() => undefined);
  }
}
