/**
 * The analytics store: events (and what queries join them with) live in ClickHouse, run either
 * in-process through chdb or as a ClickHouse server. Every store writes ClickHouse SQL once; the
 * engine only carries it. Stores never splice values into SQL text: they write `{name:Type}`
 * parameters, which a server binds, and the embedded engine writes in as typed literals itself
 * (inline-params.ts: chdb runs bound statements one at a time in the whole process).
 */
export type QueryParams = Record<string, unknown>;

export interface InsertOptions {
  /**
   * The same token twice inserts once (ClickHouse's insert deduplication): a write repeated after
   * a crash between the insert and what records it stores nothing twice.
   */
  deduplicationToken?: string;
}

/**
 * Rows in JSONEachRow (one JSON object a line): the text, or its pieces, each whole lines, to be
 * joined by newlines. A worker's copy hands over its outbox rows' texts as they are: a guest
 * writes them to the host one after the other instead of joining tens of MB first.
 */
export type JsonEachRow = string | readonly string[];

/** The rows as one text. */
export function jsonEachRowText(rows: JsonEachRow): string {
  return typeof rows === 'string' ? rows : rows.join('\n');
}

export interface AnalyticsEngine {
  /** `embedded` (chdb in this process), `server` (CLICKHOUSE_URL) or `guest` (through the process that owns the embedded folder). */
  readonly kind: 'embedded' | 'server' | 'guest';
  /** The ClickHouse database holding Hoglet's tables. */
  readonly database: string;
  /** A table's name as SQL text, qualified with the database. */
  table(name: string): string;
  /** Rows of a SELECT, as JSON objects (64-bit integers as numbers). */
  query<T = Record<string, unknown>>(sql: string, params?: QueryParams): Promise<T[]>;
  /** A statement without rows: DDL, DELETE, ALTER. */
  command(sql: string, params?: QueryParams): Promise<void>;
  /** Rows into a table. */
  insert(table: string, jsonEachRow: JsonEachRow, options?: InsertOptions): Promise<void>;
  close(): Promise<void>;
}

/** ClickHouse refused a statement or could not be reached; `code` is ClickHouse's error code when it gave one. */
export class AnalyticsError extends Error {
  constructor(
    message: string,
    readonly code?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Any failure of a ClickHouse call as an AnalyticsError, with ClickHouse's code where the client
 * gave one (chdb: `clickhouseCode`; the HTTP client: `code`, as text).
 */
export function toAnalyticsError(error: unknown): AnalyticsError {
  if (error instanceof AnalyticsError) return error;
  const e = error as { message?: string; clickhouseCode?: unknown; code?: unknown };
  const raw = e.clickhouseCode ?? e.code;
  const code = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : undefined;
  return new AnalyticsError(e.message ?? String(error), code, { cause: error });
}

/** ClickHouse's codes for a query too deep or too large to parse (TOO_DEEP_AST, TOO_BIG_AST). */
const AST_LIMIT_CODES = new Set([167, 168]);

/**
 * Whether ClickHouse refused a query for its size alone (max_query_size, its AST limits): one
 * asking for thousands of columns or filters, the asker's to narrow, not a fault of the server.
 */
export function isQueryTooLarge(error: unknown): boolean {
  if (!(error instanceof AnalyticsError)) return false;
  return (error.code !== undefined && AST_LIMIT_CODES.has(error.code)) || /Max query size exceeded/.test(error.message);
}

/** Rows of a JSONEachRow answer. */
export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) rows.push(JSON.parse(text.slice(start, end)) as T);
    start = end + 1;
  }
  return rows;
}

/** Settings every query runs with, whatever the engine: answers look the same from each. */
export const SESSION_SETTINGS: Record<string, string | number> = {
  output_format_json_quote_64bit_integers: 0,
  output_format_json_quote_decimals: 0,
  date_time_output_format: 'iso',
  // Hoglet's timestamps are ISO text (`…T…Z`).
  date_time_input_format: 'best_effort',
  // Time zones in queries are always explicit; a server's own zone must not change an answer.
  session_timezone: 'UTC',
};

/**
 * The `INSERT` statement of `insert()`, with its deduplication token as a setting. A JSON object
 * given for a String column is stored as its text, byte for byte (`properties`: see eventRow). The
 * setting is on by default in recent ClickHouse (chdb's included); said here for servers set otherwise.
 */
export function insertStatement(qualifiedTable: string, options: InsertOptions = {}): string {
  const token = options.deduplicationToken;
  if (token !== undefined && !/^[A-Za-z0-9_:.-]{1,200}$/.test(token)) throw new AnalyticsError(`invalid deduplication token "${token}"`);
  const settings = `input_format_json_read_objects_as_strings=1${token ? `, insert_deduplication_token='${token}'` : ''}`;
  return `INSERT INTO ${qualifiedTable} SETTINGS ${settings} FORMAT JSONEachRow`;
}

/** A database or table name is an identifier Hoglet chose or was configured with: checked, then quoted. */
export function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new AnalyticsError(`invalid ClickHouse identifier "${name}"`);
  return `\`${name}\``;
}
