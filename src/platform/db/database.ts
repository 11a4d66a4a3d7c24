import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { DatabaseAvailability } from './availability.js';
import { pgConnectionSettings, watchPool } from './pg-connections.js';
import { fallbackAutocheckpointFrames, startCheckpointer, type Checkpointer, type CheckpointOptions } from './sqlite-checkpointer.js';
import type { Schema } from './schema.js';
import { compileClickHouseRegex } from '../../lib/linear-regex.js';

export type DialectName = 'sqlite' | 'postgres';

/** The one handle every store uses: a typed query builder over whichever backend was configured. */
export interface Database {
  db: Kysely<Schema>;
  dialect: DialectName;
  /** Where the data lives, for logs and messages (never contains a password). */
  location: string;
  /** The PostgreSQL schema holding Hoglet's tables (undefined on SQLite). */
  schema: string | undefined;
  /** Whether PostgreSQL answers, as its connections last told (SQLite's is never unavailable). */
  availability: DatabaseAvailability;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…`; when absent the embedded SQLite file is used. */
  databaseUrl?: string | undefined;
  /** SQLite file path (ignored for PostgreSQL). */
  sqliteFile?: string;
  /** PostgreSQL schema to use instead of `public` (tests use one schema per server). */
  pgSchema?: string;
  /** PostgreSQL pool size. */
  pgPoolSize?: number;
  /**
   * SQLite: run WAL checkpoints on a background thread (sqlite-checkpointer.ts). For long-running
   * processes; without it SQLite checkpoints inside commits.
   */
  backgroundCheckpoints?: CheckpointOptions;
  /** Where PostgreSQL's outages are logged (one line when it becomes unavailable, one when it is back). */
  log?: Logger | undefined;
  /**
   * Only a database Hoglet created before (for one-shot commands): no SQLite file, folder or
   * PostgreSQL schema is created, and a place without Hoglet's tables is a DatabaseMissingError.
   */
  existing?: boolean;
}

export class DatabaseOpenError extends Error {}

/** `existing` was asked for and the place holds no Hoglet database. */
export class DatabaseMissingError extends Error {
  constructor(
    readonly dialect: DialectName,
    /** As Database.location: the SQLite file, or the redacted URL and schema. */
    readonly location: string,
  ) {
    super(`no Hoglet database at ${location}`);
  }
}

/** Hoglet's bookkeeping table, created by its first migration run: a place without it holds no Hoglet database. */
const MIGRATIONS_TABLE = 'hoglet_migrations';

/**
 * SQLite binds only numbers, strings, bigints, buffers and null. Booleans and dates are turned
 * into the representation the schema stores (0/1 and ISO-8601 text) here, once, so stores can
 * write the same values on both backends.
 */
function toSqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/** The most parameters passed to better-sqlite3 as arguments rather than as one array. */
const MAX_SPREAD_PARAMETERS = 4096;

/** The parameters as SQLite binds them; the same array when none needs converting (the usual case). */
function sqliteParameters(params: ReadonlyArray<unknown>): unknown[] {
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (typeof value === 'boolean' || value instanceof Date) return params.map(toSqliteValue);
  }
  return params as unknown[];
}

/**
 * Kysely opens transactions with a plain (deferred) `begin`. Between processes that is a trap: two
 * deferred transactions that both read and then write deadlock, and SQLite fails one at once
 * instead of waiting. `begin immediate` takes the write lock up front, so the busy timeout applies.
 */
function rewriteSql(text: string): string {
  return /^\s*begin\s*;?\s*$/i.test(text) ? 'begin immediate' : text;
}

/** The main connection's automatic checkpoint when no background thread checkpoints (64 MB of WAL). */
const AUTOCHECKPOINT_FRAMES = 16384;

/** Statements kept compiled: Kysely asks for a fresh one per query, and compiling is not free. */
const STATEMENT_CACHE_SIZE = 500;

function wrapSqlite(raw: BetterSqlite3.Database) {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const statementFor = (text: string) => {
    const sqlText = rewriteSql(text);
    let statement = cache.get(sqlText);
    if (statement) {
      // Re-insert to keep the map in least-recently-used order.
      cache.delete(sqlText);
    } else {
      statement = raw.prepare(sqlText);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sqlText, statement);
    return statement;
  };
  return {
    close: () => raw.close(),
    prepare(text: string) {
      const statement = statementFor(text);
      // The parameters as arguments: better-sqlite3 reads its arguments faster than an array's
      // elements (measured on a 100-row, 10-column insert; docs/benchmarks.md). A list too long to
      // pass as arguments is passed as the array, which better-sqlite3 binds the same.
      return {
        reader: statement.reader,
        all: (params: ReadonlyArray<unknown>) => {
          const values = sqliteParameters(params);
          return values.length <= MAX_SPREAD_PARAMETERS ? statement.all(...values) : statement.all(values);
        },
        run: (params: ReadonlyArray<unknown>) => {
          const values = sqliteParameters(params);
          return values.length <= MAX_SPREAD_PARAMETERS ? statement.run(...values) : statement.run(values);
        },
        iterate: (params: ReadonlyArray<unknown>) => statement.iterate(sqliteParameters(params)) as IterableIterator<unknown>,
      };
    },
  };
}

/**
 * `hoglet_regexp(pattern, text)`: 1 when the pattern matches the text anywhere, 0 when not, NULL
 * for a NULL text or an invalid pattern; RE2's syntax in linear time, as ClickHouse's `match`
 * (property-conditions.ts regexMatches). SQLite has no regular expressions of its own.
 */
function registerRegexp(raw: BetterSqlite3.Database): void {
  raw.function('hoglet_regexp', { deterministic: true }, (pattern: unknown, text: unknown) => {
    if (text === null || typeof pattern !== 'string') return null;
    const regex = compileClickHouseRegex(pattern);
    return regex === null ? null : regex.test(String(text)) ? 1 : 0;
  });
}

/**
 * The settings of every connection Hoglet opens to its SQLite file (also used by the bench's
 * storage floor, so that it writes as Hoglet does): WAL, commits that do not wait for the disk,
 * foreign keys, a busy timeout for other processes' writes, and 16 MB of page cache for hot
 * indexes (the kernel's page cache holds the rest of the file). `autocheckpointFrames`: WAL pages
 * after which a commit checkpoints (0: never).
 */
export function configureSqliteConnection(raw: BetterSqlite3.Database, autocheckpointFrames: number): void {
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma(`wal_autocheckpoint = ${autocheckpointFrames}`);
  raw.pragma('cache_size = -16384');
}

function openSqlite(file: string, checkpoints?: CheckpointOptions, existing = false): Database {
  let raw: BetterSqlite3.Database | undefined;
  let checkpointer: Checkpointer | undefined;
  try {
    if (existing) {
      if (!fs.existsSync(file)) throw new DatabaseMissingError('sqlite', file);
      raw = new BetterSqlite3(file, { fileMustExist: true });
      // Before any setting is written to it: a file that is not Hoglet's stays as it was.
      if (!raw.prepare(`select 1 from sqlite_master where type = 'table' and name = '${MIGRATIONS_TABLE}'`).get())
        throw new DatabaseMissingError('sqlite', file);
    } else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      raw = new BetterSqlite3(file);
    }
    // Fewer, larger checkpoints: under sustained ingestion the default (every 4 MB of WAL) spends
    // much of the worker's time checkpointing. With background checkpoints this is only the
    // fallback.
    configureSqliteConnection(raw, checkpoints ? fallbackAutocheckpointFrames(checkpoints) : AUTOCHECKPOINT_FRAMES);
    registerRegexp(raw);
    const connection = raw;
    if (checkpoints)
      checkpointer = startCheckpointer(file, checkpoints, () => connection.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_FRAMES}`));
  } catch (error) {
    raw?.close();
    if (error instanceof DatabaseMissingError) throw error;
    throw new DatabaseOpenError(`cannot open the SQLite database at ${file}: ${(error as Error).message}`);
  }
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: wrapSqlite(raw) }) });
  return {
    db,
    dialect: 'sqlite',
    location: file,
    schema: undefined,
    availability: new DatabaseAvailability(undefined, file),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** PostgreSQL values are read back in the same shapes SQLite gives: numbers and ISO strings. */
const pgTypes = (pg: typeof import('pg').default) =>
  ({
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      switch (oid) {
        case 20: // int8: ids and counts stay far below 2^53
          return (value: string) => Number(value);
        case 1184: // timestamptz
        case 1114: // timestamp (stored as UTC)
          return (value: string) => new Date(oid === 1114 ? `${value}Z` : value).toISOString();
        default:
          return pg.types.getTypeParser(oid, format);
      }
    },
  }) as pg.CustomTypesConfig;

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

async function openPostgres(
  url: string,
  schema: string | undefined,
  poolSize: number,
  log: Logger | undefined,
  existing = false,
): Promise<Database> {
  const location = redactUrl(url) + (schema ? ` (schema ${schema})` : '');
  // Loaded only for PostgreSQL: on SQLite the driver's ~30 modules would slow every start for nothing.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    ...pgConnectionSettings(url),
    max: poolSize,
    types: pgTypes(pg),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const availability = new DatabaseAvailability(log, location);
  const watched = watchPool(pool, availability);
  try {
    const client = await pool.connect();
    try {
      if (existing) {
        // Resolved through the connection's search_path: the schema asked for, else PostgreSQL's default.
        const found = await client.query<{ found: boolean }>(`select to_regclass('${MIGRATIONS_TABLE}') is not null as found`);
        if (!found.rows[0]?.found) throw new DatabaseMissingError('postgres', location);
      } else if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof DatabaseMissingError) throw error;
    throw new DatabaseOpenError(`cannot connect to PostgreSQL at ${redactUrl(url)}: ${(error as Error).message}`);
  }
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: watched }) });
  return {
    db,
    dialect: 'postgres',
    location,
    schema: schema ?? 'public',
    availability,
    close: () => db.destroy(),
  };
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, options.pgSchema, options.pgPoolSize ?? 10, options.log, options.existing);
  }
  if (!options.sqliteFile) throw new DatabaseOpenError('no SQLite file and no DATABASE_URL given');
  return openSqlite(options.sqliteFile, options.backgroundCheckpoints, options.existing);
}

/** A cheap round trip, for readiness checks. */
export async function pingDatabase(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db);
}

/**
 * Whether a query failed on a NUL character in the request's text: PostgreSQL takes none in a text
 * value (22021, "invalid byte sequence for encoding UTF8: 0x00"), and on SQLite a NUL ends a JSON
 * path early ("bad JSON path"; json-path.ts quotes every other character of a key). Nothing stored
 * can hold one there, so it is the request's fault: a 400, not a 500.
 */
export function isNulCharacterError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '22021') return true;
  return code === 'SQLITE_ERROR' && typeof message === 'string' && message.startsWith('bad JSON path');
}
