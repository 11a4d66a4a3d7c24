import type { ClickHouseClient } from '@clickhouse/client';
import {
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

export interface ServerOptions {
  /** `http(s)://user:password@host:port`; the database may be given as `?database=` or below. */
  url: string;
  database: string;
  /** Each query's memory limit, in bytes (max_memory_usage). */
  maxMemoryBytes: number;
}

/** A ClickHouse server or cluster (CLICKHOUSE_URL), through the official client. */
export class ServerEngine implements AnalyticsEngine {
  readonly kind = 'server' as const;

  private constructor(
    private readonly client: ClickHouseClient,
    readonly database: string,
  ) {}

  static async open(options: ServerOptions): Promise<ServerEngine> {
    const { createClient } = await import('@clickhouse/client');
    const client = createClient({
      url: options.url,
      // Tables are named with their database; the connection's own default database is left alone.
      clickhouse_settings: { ...SESSION_SETTINGS, max_memory_usage: String(options.maxMemoryBytes) } as never,
      request_timeout: 120_000,
    });
    const engine = new ServerEngine(client, options.database);
    try {
      await engine.command(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(options.database)}`);
    } catch (error) {
      await client.close();
      throw error;
    }
    return engine;
  }

  table(name: string): string {
    return `${quoteIdentifier(this.database)}.${quoteIdentifier(name)}`;
  }

  async query<T = Record<string, unknown>>(sql: string, params: QueryParams = {}): Promise<T[]> {
    try {
      const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow' });
      return parseJsonEachRow<T>(await result.text());
    } catch (error) {
      throw toAnalyticsError(error);
    }
  }

  async command(sql: string, params: QueryParams = {}): Promise<void> {
    try {
      await this.client.command({ query: sql, query_params: params });
    } catch (error) {
      throw toAnalyticsError(error);
    }
  }

  async insert(table: string, rows: JsonEachRow, options: InsertOptions = {}): Promise<void> {
    const jsonEachRow = jsonEachRowText(rows);
    if (jsonEachRow.length === 0) return;
    try {
      // The statement and its rows in the request body, as the embedded engine takes them.
      await this.client.command({ query: `${insertStatement(this.table(table), options)}\n${jsonEachRow}` });
    } catch (error) {
      throw toAnalyticsError(error);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
