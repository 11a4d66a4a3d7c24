import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { quoteIdentifier, type AnalyticsEngine } from './engine.js';
import { FolderEngine } from './folder-engine.js';
import { ServerEngine } from './server-engine.js';

export interface AnalyticsOptions {
  /** A ClickHouse server; unset: the embedded engine in `folder`. */
  url?: string | undefined;
  /** The server's database for Hoglet's tables. */
  database: string;
  /** The embedded engine's folder. */
  folder: string;
  maxMemoryMb: number;
}

/** The embedded engine's folder inside a data dir. */
export function analyticsFolder(dataDir: string): string {
  return path.join(dataDir, 'clickhouse');
}

/**
 * The engine, opened when `begin` is called (the server does before it listens: loading chdb's
 * library holds the thread for about half a second). Calls made before then wait for it;
 * `ready` rejects when opening failed.
 */
export interface OpeningEngine {
  engine: AnalyticsEngine;
  begin(): void;
  ready: Promise<AnalyticsEngine>;
}

/**
 * The configured ClickHouse (a server when a URL is given, else the embedded engine of the data
 * dir), opened on `begin`, then `prepare`d (its tables made) before any call goes through.
 */
export function prepareAnalytics(
  options: AnalyticsOptions,
  log: Logger,
  prepare: (engine: AnalyticsEngine) => Promise<void>,
): OpeningEngine {
  const maxMemoryBytes = options.maxMemoryMb * 1024 * 1024;
  const folder = options.url
    ? undefined
    : new FolderEngine({ path: options.folder, maxMemoryBytes, maxThreads: Math.max(1, os.availableParallelism()) }, log);
  const open = async (): Promise<AnalyticsEngine> => {
    const started = performance.now();
    let engine: AnalyticsEngine;
    if (folder) {
      await folder.begin();
      engine = folder;
    } else engine = await ServerEngine.open({ url: options.url!, database: options.database, maxMemoryBytes });
    try {
      await prepare(engine);
    } catch (error) {
      await engine.close().catch(() => undefined);
      throw error;
    }
    log.info(
      {
        engine: engine.kind,
        database: engine.database,
        ...(folder ? { folder: options.folder } : {}),
        ms: Math.round(performance.now() - started),
      },
      'analytics engine ready',
    );
    return engine;
  };
  return later(open, folder, folder ? folder.database : options.database, () => folder?.close());
}

function later(
  open: () => Promise<AnalyticsEngine>,
  folder: FolderEngine | undefined,
  database: string,
  closeUnopened: () => Promise<void> | undefined,
): OpeningEngine {
  let begin: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (begin = resolve));
  let closed = false;
  const ready = started.then(() => {
    if (closed) throw new Error('the analytics engine was closed before it opened');
    return open();
  });
  // Whoever asked may be gone (a start that failed later): no unhandled rejection then.
  ready.catch(() => undefined);
  const engine: AnalyticsEngine = {
    get kind() {
      return folder ? folder.kind : 'server';
    },
    database,
    table: (name) => `${quoteIdentifier(database)}.${quoteIdentifier(name)}`,
    query: async (sql, params) => (await ready).query(sql, params),
    command: async (sql, params) => (await ready).command(sql, params),
    insert: async (table, rows, options) => (await ready).insert(table, rows, options),
    async close() {
      if (closed) return;
      closed = true;
      begin();
      const opened = await ready.catch(() => undefined);
      await (opened ? opened.close() : closeUnopened());
    },
  };
  return { engine, begin: () => begin(), ready };
}
