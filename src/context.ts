import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';

/** What every feature is given: settings, storage and the logger. */
export interface AppContext {
  config: Config;
  database: Database;
  log: Logger;
}
