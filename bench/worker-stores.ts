/**
 * The stores a bench's worker runs on, opened as `hoglet worker` opens them: the database
 * long-running (WAL checkpoints on their own thread) and the events' store. On a data folder a
 * running server owns, its embedded ClickHouse is reached through that server.
 */
import pino, { type Logger } from 'pino';
import { prepareAnalyticsStore } from '../src/app.js';
import { openAndMigrate } from '../src/platform/db/open-and-migrate.js';
import { loadConfig } from '../src/config.js';
import type { OpeningEngine } from '../src/platform/analytics/open.js';
import type { Database } from '../src/platform/db/database.js';

export interface WorkerStores {
  log: Logger;
  database: Database;
  /** Begun: `ready` once open, `engine` to close. */
  analytics: OpeningEngine;
}

/** Opens the stores `env` (loadConfig's variables) names; the caller closes both. */
export async function openWorkerStores(env: NodeJS.ProcessEnv): Promise<WorkerStores> {
  const log = pino({ level: 'silent' });
  const config = loadConfig(env);
  const database = await openAndMigrate(config, log, true);
  const analytics = prepareAnalyticsStore(config, log);
  analytics.begin();
  return { log, database, analytics };
}
