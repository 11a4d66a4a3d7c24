import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AnalyticsEngine } from './engine.js';
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

/** The configured ClickHouse: a server when a URL is given, else the embedded engine of the data dir. */
export async function openAnalytics(options: AnalyticsOptions, log: Logger): Promise<AnalyticsEngine> {
  const maxMemoryBytes = options.maxMemoryMb * 1024 * 1024;
  const started = performance.now();
  const engine = options.url
    ? await ServerEngine.open({ url: options.url, database: options.database, maxMemoryBytes })
    : await FolderEngine.open({ path: options.folder, maxMemoryBytes, maxThreads: Math.max(1, os.availableParallelism()) }, log);
  log.info(
    {
      engine: engine.kind,
      database: engine.database,
      ...(options.url ? {} : { folder: options.folder }),
      ms: Math.round(performance.now() - started),
    },
    'analytics engine ready',
  );
  return engine;
}
