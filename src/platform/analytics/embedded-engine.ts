import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Session } from 'chdb';
import {
  AnalyticsError,
  insertStatement,
  parseJsonEachRow,
  quoteIdentifier,
  SESSION_SETTINGS,
  toAnalyticsError,
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
 * start several) share it: the first to claim it names the folder, and a server with another folder
 * gets a database of its own in that one, named after its folder. The engine closes with its last
 * user. Claims are synchronous, so a server knows its database before the engine has opened.
 */
interface ProcessEngine {
  path: string;
  users: number;
  session: Promise<Session> | undefined;
}
let current: ProcessEngine | undefined;

export interface EmbeddedClaim {
  /** The database of the claimer's tables. */
  database: string;
  engine: ProcessEngine;
  released: boolean;
}

export function claimEmbedded(path: string, database = 'hoglet'): EmbeddedClaim {
  current ??= { path, users: 0, session: undefined };
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
  engine.session?.then(
    (session) => session.close(),
    () => undefined,
  );
}

/** The folder is another process's (ClickHouse locks it): that process serves it (engine-host.ts). */
export class EmbeddedFolderBusy extends AnalyticsError {}

/** chdb's library is large (~160 MB resident, a third of a second to load): loaded when the engine first opens, not with the server. */
let chdb: Promise<typeof import('chdb')> | undefined;

async function openSession(path: string, options: EmbeddedOptions): Promise<Session> {
  chdb ??= import('chdb');
  const { Session } = await chdb;
  fs.mkdirSync(path, { recursive: true });
  try {
    return new Session(path, {
      connectionArgs: [
        `--max_server_memory_usage=${Math.floor(options.maxMemoryBytes)}`,
        `--max_threads=${options.maxThreads}`,
        ...Object.entries(SESSION_SETTINGS).map(([name, value]) => `--${name}=${value}`),
      ],
    });
  } catch (error) {
    // ClickHouse's own message (the folder's `status` file is locked) goes to stderr; chdb says only this.
    if ((error as Error).name === 'ChdbConnectionError') {
      throw new EmbeddedFolderBusy(`the ClickHouse folder ${path} is in use by another process`, undefined, { cause: error });
    }
    throw error;
  }
}

/** The claim's session, opened by its first user; a failed opening is tried again by the next. */
async function sessionOf(claim: EmbeddedClaim, options: EmbeddedOptions): Promise<Session> {
  const engine = claim.engine;
  engine.session ??= openSession(engine.path, options);
  const opening = engine.session;
  try {
    return await opening;
  } catch (error) {
    if (engine.session === opening) engine.session = undefined;
    throw error;
  }
}

/** ClickHouse in this process, through chdb. */
export class EmbeddedEngine implements AnalyticsEngine {
  readonly kind = 'embedded' as const;
  private closed = false;

  private constructor(
    private readonly claim: EmbeddedClaim,
    private readonly session: Session,
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
      engine = new EmbeddedEngine(claim, await sessionOf(claim, options));
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
      const result = await this.session.queryBindAsync(sql, params, { format });
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
      await this.session.queryAsync(`${insertStatement(this.table(table), options)}\n${jsonEachRow}`, { format: 'Null' });
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
