import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import { openDatabase, type Database } from './database.js';
import { migrateToLatest } from './migrations/index.js';

export interface OpenOptions {
  /** The server and the worker, not one-shot commands: SQLite's WAL checkpoints on a thread of their own. */
  longRunning?: boolean;
  /** One-shot commands: only a database Hoglet created before (DatabaseMissingError otherwise); nothing is created. */
  existing?: boolean;
}

/** Opens the configured database and brings its schema up to date (`true`: `{ longRunning: true }`). */
export async function openAndMigrate(config: Config, log: Logger, options: boolean | OpenOptions = {}): Promise<Database> {
  const { longRunning = false, existing = false } = typeof options === 'boolean' ? { longRunning: options } : options;
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: path.join(config.dataDir, 'hoglet.db'),
    log,
    existing,
    ...(longRunning ? { backgroundCheckpoints: { log } } : {}),
    ...(config.databaseSchema ? { pgSchema: config.databaseSchema } : {}),
  });
  try {
    const applied = await migrateToLatest(database);
    log.info({ database: database.dialect, location: database.location, applied }, 'database ready');
    return database;
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
}
