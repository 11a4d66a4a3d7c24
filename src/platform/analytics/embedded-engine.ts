import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Session } from 'chdb';
import {
  AnalyticsError,
  insertStatement,
  jsonEachRowText,
  type JsonEachRow,
  parseJsonEachRow,
  quoteIdentifier,
  SESSION_SETTINGS,
  toAnalyticsError,
  type AnalyticsEngine,
  type InsertOptions,
  type QueryParams,
} from './engine.js';
import { ConnectionPool } from './connection-pool.js';
import { inlineParams } from './inline-params.js';

export interface EmbeddedOptions {
  /** The folder ClickHouse keeps its files in. */
  path: string;
  /** The most memory the engine may hold, in bytes (ClickHouse's max_server_memory_usage). */
  maxMemoryBytes: number;
  /** Threads one query may use. */
  maxThreads: number;
  /** Queries run at a time (one a connection); 3 unless given. */
  connections?: number;
}

/**
 * chdb runs one query at a time on a connection: a few connections to the folder let queries of
 * the process run side by side (on two cores, a query's single-threaded parts overlap another's),
 * and bound how many do.
 */
const CONNECTIONS = 3;

/**
 * chdb runs one ClickHouse per process, on one folder at a time. The servers of one process (tests
 * start several) share it: the first to claim it names the folder, and a server with another folder
 * gets a database of its own in that one, named after its folder. The engine closes with its last
 * user. Claims are synchronous, so a server knows its database before the engine has opened.
 */
interface ProcessEngine {
  path: string;
  users: number;
  pool: Promise<ConnectionPool<Session>> | undefined;
}
let current: ProcessEngine | undefined;

export interface EmbeddedClaim {
  /** The database of the claimer's tables. */
  database: string;
  engine: ProcessEngine;
  released: boolean;
}

export function claimEmbedded(path: string, database = 'hoglet'): EmbeddedClaim {
  current ??= { path, users: 0, pool: undefined };
  current.users++;
  const name = current.path === path ? database : `${database}_${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
  return { database: name, engine: current, released: false };
}

export function releaseEmbedded(claim: EmbeddedClaim): void {
  if (claim.released) return;
  claim.released = true;
  const engine = claim.engine;
  engine.users--;
  if (engine.users > 0) return;
  if (current === engine) current = undefined;
  engine.pool?.then(
    (pool) => {
      for (const session of pool.close()) session.close();
    },
    () => undefined,
  );
}

/** The folder is another process's (ClickHouse locks it): that process serves it (engine-host.ts). */
export class EmbeddedFolderBusy extends AnalyticsError {}

/** chdb's library is large (~160 MB resident, a third of a second to load): loaded when the engine first opens, not with the server. */
let chdb: Promise<typeof import('chdb')> | undefined;

async function openPool(path: string, options: EmbeddedOptions): Promise<ConnectionPool<Session>> {
  chdb ??= import('chdb');
  const { Session } = await chdb;
  fs.mkdirSync(path, { recursive: true });
  // Every connection with the same settings (they are each connection's own).
  const connect = () =>
    new Session(path, {
      connectionArgs: [
        `--max_server_memory_usage=${Math.floor(options.maxMemoryBytes)}`,
        `--max_threads=${options.maxThreads}`,
        ...Object.entries(SESSION_SETTINGS).map(([name, value]) => `--${name}=${value}`),
      ],
    });
  try {
    return new ConnectionPool(options.connections ?? CONNECTIONS, connect, connect());
  } catch (error) {
    // ClickHouse's own message (the folder's `status` file is locked) goes to stderr; chdb says only this.
    if ((error as Error).name === 'ChdbConnectionError') {
      throw new EmbeddedFolderBusy(`the ClickHouse folder ${path} is in use by another process`, undefined, { cause: error });
    }
    throw error;
  }
}

/** The claim's connections, opened by its first user; a failed opening is tried again by the next. */
async function poolOf(claim: EmbeddedClaim, options: EmbeddedOptions): Promise<ConnectionPool<Session>> {
  const engine = claim.engine;
  engine.pool ??= openPool(engine.path, options);
  const opening = engine.pool;
  try {
    return await opening;
  } catch (error) {
    if (engine.pool === opening) engine.pool = undefined;
    throw error;
  }
}

/** ClickHouse in this process, through chdb. */
export class EmbeddedEngine implements AnalyticsEngine {
  readonly kind = 'embedded' as const;
  private closed = false;

  private constructor(
    private readonly claim: EmbeddedClaim,
    private readonly pool: ConnectionPool<Session>,
  ) {}

  get database(): string {
    return this.claim.database;
  }

  static async open(options: EmbeddedOptions, database = 'hoglet'): Promise<EmbeddedEngine> {
    return EmbeddedEngine.fromClaim(claimEmbedded(options.path, database), options);
  }

  /** Opens the engine for a claim (released when opening fails, or when the engine closes). */
  static async fromClaim(claim: EmbeddedClaim, options: EmbeddedOptions): Promise<EmbeddedEngine> {
    let engine: EmbeddedEngine;
    try {
      engine = new EmbeddedEngine(claim, await poolOf(claim, options));
    } catch (error) {
      releaseEmbedded(claim);
      throw error;
    }
    try {
      await engine.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(claim.database)}`);
    } catch (error) {
      await engine.close();
      throw error;
    }
    return engine;
  }

  /** The folder the engine keeps its files in (another server's, when one of this process opened it first). */
  get path(): string {
    return this.claim.engine.path;
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
      // chdb runs bound statements one at a time in the whole process; with their values written
      // in, statements run side by side (inline-params.ts). Binding stays for what it cannot write.
      const inlined = inlineParams(sql, params);
      const result = await this.pool.use((session) =>
        inlined === undefined ? session.queryBindAsync(sql, params, { format }) : session.queryAsync(inlined, { format }),
      );
      return result.text();
    } catch (error) {
      throw toAnalyticsError(error);
    }
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    await this.text(sql, params, 'Null');
  }

  async insert(table: string, rows: JsonEachRow, options: InsertOptions = {}): Promise<void> {
    this.assertOpen();
    const jsonEachRow = jsonEachRowText(rows);
    if (jsonEachRow.length === 0) return;
    try {
      await this.pool.use((session) =>
        session.queryAsync(`${insertStatement(this.table(table), options)}\n${jsonEachRow}`, { format: 'Null' }),
      );
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
    releaseEmbedded(this.claim);
  }
}
