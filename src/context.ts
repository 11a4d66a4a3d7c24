import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './platform/db/database.js';
import type { AnalyticsEngine } from './platform/analytics/engine.js';
import type { GeoipService } from './geoip/geoip-service.js';
import type { IngestionQueueWriter } from './ingestion/queue.js';
import type { ChangeBus } from './platform/change-bus.js';
import type { TeamCache } from './environments/team-cache.js';

/** What every feature is given: settings, storage, the logger and the shared services. */
export interface AppContext {
  config: Config;
  database: Database;
  /** ClickHouse, where events live (embedded, or a server). */
  analytics: AnalyticsEngine;
  log: Logger;
  /** Announces changes to caches in this and other processes. */
  changes: ChangeBus;
  /** Environments by project API key, for the public endpoints. */
  teams: TeamCache;
  /**
   * IP → location, for flag targeting; absent while it loads (a second or two after the start),
   * with GEOIP=off, and when it could not be opened.
   */
  geoip?: GeoipService | undefined;
  /**
   * Settles once GeoIP is loaded (undefined when there is none): what waits for it, as the
   * ingestion worker does for event enrichment. Never settles when a user's file failed to load.
   */
  geoipReady: Promise<GeoipService | undefined>;
  /** The durable queue capture commits accepted events to. */
  ingestionQueue: IngestionQueueWriter;
}
