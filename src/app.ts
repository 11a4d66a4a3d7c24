import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrations/index.js';
import { ChangeBus } from './lib/change-bus.js';
import { buildServer } from './server.js';
import { TeamCache } from './tenancy/team-cache.js';
import { bootstrapIfEmpty, type BootstrapResult } from './tenancy/bootstrap.js';

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'hoglet' } });
}

/** Opens the configured database and brings its schema up to date. */
export async function openAndMigrate(config: Config, log: Logger): Promise<Database> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: path.join(config.dataDir, 'hoglet.db'),
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

export interface RunningApp {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  bootstrap: BootstrapResult | null;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
}

/** Everything `hoglet serve` does before it waits for signals. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  const log = options.log ?? createLogger(config);
  const database = await openAndMigrate(config, log);
  let app: FastifyInstance | undefined;
  let changes: ChangeBus | undefined;
  try {
    changes = await ChangeBus.connect(log, config.databaseUrl, database.schema);
    const ctx: AppContext = { config, database, log, changes, teams: new TeamCache(database, changes) };
    const bootstrap = await bootstrapIfEmpty(database, {
      email: config.bootstrapEmail,
      personalApiKey: config.bootstrapPersonalApiKey,
    });
    app = await buildServer(ctx);
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const url = config.siteUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    log.info({ url, database: database.dialect }, 'hoglet listening');
    let closed = false;
    return {
      app,
      ctx,
      url,
      bootstrap,
      async close() {
        if (closed) return;
        closed = true;
        await app!.close();
        await changes!.close();
        await database.close();
      },
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    await changes?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw error;
  }
}
