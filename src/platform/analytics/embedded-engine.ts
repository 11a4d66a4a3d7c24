import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Session } from 'chdb';
import {
  AnalyticsError,
  insertStatement,
  parseJsonEachRow,
  quoteIdentifier,
  SESSION_SETTINGS,
  type AnalyticsEngine,
  type InsertOptions,
  type QueryParams,
} from './engine.js';

export interface EmbeddedOptions {
  /** The folder ClickHouse keeps its files in. */
  path: string;
  /** The most memory the engine may hold, in bytes (ClickHouse's max_server_memory_usage). */
  maxMemoryBytes: number;
  /** Threads one query may use. */
  maxThreads: number;
}

/**
 * chdb runs one ClickHouse per process, on one folder at a time. The servers of one process (tests
 * start several) share it: the first one's folder is the engine's, and a server with another folder
 * gets a database of its own in it, named after its folder. The engine closes with its last user.
 */
interface OpenSession {
  session: Session;
  path: string;
  users: number;
}
let shared: OpenSession | undefined;

/** The folder is another process's (ClickHouse locks it): that process serves it (engine-host.ts). */
export class EmbeddedFolderBusy extends AnalyticsError {}

function openShared(options: EmbeddedOptions): OpenSession {
  if (shared) {
    shared.users++;
    return shared;
  }
  fs.mkdirSync(options.path, { recursive: true });
  let session: Session;
  try {
    session = new Session(options.path, {
      connectionArgs: [
        `--max_server_memory_usage=${Math.floor(options.maxMemoryBytes)}`,
        `--max_threads=${options.maxThreads}`,
        ...Object.entries(SESSION_SETTINGS).map(([name, value]) => `--${name}=${value}`),
      ],
    });
  } catch (error) {
    // ClickHouse's own message (the folder's `status` file is locked) goes to stderr; chdb says only this.
    if ((error as Error).name === 'ChdbConnectionError') {
      throw new EmbeddedFolderBusy(`the ClickHouse folder ${options.path} is in use by another process`, undefined, { cause: error });
    }
    throw error;
  }
  shared = { session, path: options.path, users: 1 };
  return shared;
}

function releaseShared(open: OpenSession): void {
  open.users--;
  if (open.users > 0) return;
  if (shared === open) shared = undefined;
  open.session.close();
}

function toAnalyticsError(error: unknown): AnalyticsError {
  if (error instanceof AnalyticsError) return error;
  const e = error as { message?: string; clickhouseCode?: number; code?: unknown };
  const code = typeof e.clickhouseCode === 'number' ? e.clickhouseCode : typeof e.code === 'number' ? e.code : undefined;
  return new AnalyticsError(e.message ?? String(error), code, { cause: error });
}

/** ClickHouse in this process, through chdb. */
export class EmbeddedEngine implements AnalyticsEngine {
  readonly kind = 'embedded' as const;
  private closed = false;

  private constructor(
    private readonly open: OpenSession,
    readonly database: string,
  ) {}

  static async open(options: EmbeddedOptions, database = 'hoglet'): Promise<EmbeddedEngine> {
    const open = openShared(options);
    // Another server of this process opened the engine on its own folder: this one's tables go in a database of their own.
    const name =
      open.path === options.path ? database : `${database}_${createHash('sha256').update(options.path).digest('hex').slice(0, 12)}`;
    const engine = new EmbeddedEngine(open, name);
    try {
      await engine.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(name)}`);
    } catch (error) {
      await engine.close();
      throw error;
    }
    return engine;
  }

  /** The folder the engine keeps its files in (another server's, when one of this process opened it first). */
  get path(): string {
    return this.open.path;
  }

  table(name: string): string {
    return `${quoteIdentifier(this.database)}.${quoteIdentifier(name)}`;
  }

  async query<T = Record<string, unknown>>(sql: string, params: QueryParams = {}): Promise<T[]> {
    return parseJsonEachRow<T>(await this.text(sql, params, 'JSONEachRow'));
  }

  /** The answer as text, in a ClickHouse output format. */
  async text(sql: string, params: QueryParams = {}, format = 'JSONEachRow'): Promise<string> {
    this.assertOpen();
    try {
      const result = await this.open.session.queryBindAsync(sql, params, { format });
      return result.text();
    } catch (error) {
      throw toAnalyticsError(error);
    }
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.text(sql, params, 'Null');
  }

  async insert(table: string, jsonEachRow: string, options: InsertOptions = {}): Promise<void> {
    this.assertOpen();
    if (jsonEachRow.length === 0) return;
    try {
      await this.open.session.queryAsync(`${insertStatement(this.table(table), options)}\n${jsonEachRow}`, { format: 'Null' });
    } catch (error) {
      throw toAnalyticsError(error);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new AnalyticsError('the analytics engine is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    releaseShared(this.open);
  }
}
