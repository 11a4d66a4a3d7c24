import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createLogger } from './platform/logger.js';
import { openAndMigrate } from './platform/db/open-and-migrate.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './platform/db/database.js';
import { analyticsFolder, prepareAnalytics, type OpeningEngine } from './platform/analytics/open.js';
import type { AnalyticsEngine } from './platform/analytics/engine.js';
import { ensureAnalyticsSchema } from './events/analytics-tables.js';
import { moveSqlEventsToClickHouse } from './events/upgrade.js';
import { openGeoip, type GeoipService } from './geoip/geoip-service.js';
import { IngestionQueueWriter } from './ingestion/queue.js';
import { IngestionWorker } from './ingestion/worker/worker.js';
import { ChangeBus } from './platform/change-bus.js';
import { closeWithGrace } from './http/graceful-close.js';
import { buildServer } from './server.js';
import { DeletionRunner } from './deletions/runner.js';
import { EventUuidsPruner } from './events/event-uuids-pruner.js';
import { SessionsMerger } from './events/sessions-merger.js';
import { createSubscriptionScheduler } from './subscriptions/scheduler.js';
import { CohortCalculator } from './cohorts/calculator.js';
import { bootstrapIfEmpty, type BootstrapResult } from './environments/bootstrap.js';
import { TeamCache } from './environments/team-cache.js';
import { projectsWithConflictingGroupTypes } from './groups/store.js';

/**
 * The configured ClickHouse, with Hoglet's tables made once it opens (on `begin`), and the events
 * an earlier version stored in SQL moved there (once; resumable) before any call goes through.
 */
export function prepareAnalyticsStore(config: Config, log: Logger, database?: Database): OpeningEngine {
  return prepareAnalytics(
    {
      url: config.clickhouseUrl,
      database: config.clickhouseDatabase,
      folder: analyticsFolder(config.dataDir),
      maxMemoryMb: config.clickhouseMaxMemoryMb,
    },
    log,
    async (engine) => {
      await ensureAnalyticsSchema(engine, { cluster: config.clickhouseCluster, log });
      if (database) await moveSqlEventsToClickHouse(database, engine, log);
    },
  );
}

/** The configured ClickHouse, opened now (one-shot tools and tests; the server opens it once it listens). */
export async function openAnalyticsStore(config: Config, log: Logger, database?: Database): Promise<AnalyticsEngine> {
  const opening = prepareAnalyticsStore(config, log, database);
  opening.begin();
  await opening.ready;
  return opening.engine;
}

/** The GeoIP reader is large and read-only: one per file per process, shared by every server in it. */
const geoipByPath = new Map<string, Promise<GeoipService>>();

interface GeoipLoading {
  /** Starts loading (once): the server does once it listens, so that loading does not slow its start. */
  begin(): void;
  loaded: Promise<GeoipService | undefined>;
}

/**
 * GeoIP, loaded without anything waiting for it but the worker: it takes half a second or more on
 * a thread of its own (the bundled file is gunzipped), which on two cores slowed the start by a
 * fifth when it ran alongside. The server serves meanwhile (/decide without GeoIP targeting); the
 * worker waits for it before processing events. `loaded` resolves with undefined when there is
 * none: GEOIP=off, or the bundled database unavailable. A user's own file that cannot be read is a
 * configuration error: one that cannot be opened fails the start at once; one found not to be a
 * database rejects.
 */
async function prepareGeoip(config: Config, log: Logger): Promise<GeoipLoading> {
  if (!config.geoip) {
    log.info('geoip off (GEOIP=off): events get no $geoip_* properties, flags no GeoIP targeting');
    return { begin: () => undefined, loaded: Promise.resolve(undefined) };
  }
  if (config.geoipDatabase) {
    await access(config.geoipDatabase, constants.R_OK).catch((error: unknown) => {
      throw new Error(`GeoIP database ${config.geoipDatabase} could not be opened: ${(error as Error).message}`, { cause: error });
    });
  }
  let begin: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (begin = resolve));
  const key = config.geoipDatabase ?? '';
  const pending = started.then(() => {
    let opening = geoipByPath.get(key);
    if (!opening) {
      opening = openGeoip(config.geoipDatabase ? { databasePath: config.geoipDatabase } : {});
      geoipByPath.set(key, opening);
      opening.catch(() => geoipByPath.delete(key));
    }
    return opening;
  });
  const loaded = pending.then(
    (geoip) => {
      log.info({ geoip: geoip.describe() }, 'geoip ready');
      return geoip;
    },
    (error: unknown) => {
      if (config.geoipDatabase) throw error;
      log.warn({ err: error }, 'bundled GeoIP database unavailable; events get no $geoip_* properties');
      return undefined;
    },
  );
  // Whoever started it may be gone (a start that failed later): no unhandled rejection then.
  loaded.catch(() => undefined);
  return { begin, loaded };
}

/** Closes what was opened, newest first, even when one of them fails. */
class Resources {
  private readonly closers: Array<() => Promise<unknown>> = [];
  add(closer: () => Promise<unknown>): void {
    this.closers.push(closer);
  }
  async closeAll(log: Logger): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) {
      await close().catch((error: unknown) => log.error({ err: error }, 'error while shutting down'));
    }
  }
}

/**
 * Storage, caches and services shared by the server and the worker; `geoip`, to begin loading
 * once the process serves; and `failed`: settles when something the process cannot go on without
 * fails after the start (a user's GeoIP file found not to be a database); the process is then to
 * stop.
 */
async function openContext(
  config: Config,
  log: Logger,
  resources: Resources,
): Promise<{ ctx: AppContext; failed: Promise<Error>; geoip: GeoipLoading; analytics: OpeningEngine }> {
  const geoip = await prepareGeoip(config, log);
  const database = await openAndMigrate(config, log, true);
  resources.add(() => database.close());
  await warnGroupTypeConflicts(database, log);
  const analytics = prepareAnalyticsStore(config, log, database);
  resources.add(() => analytics.engine.close());
  const changes = await ChangeBus.connect(log, database, config.databaseUrl);
  resources.add(() => changes.close());
  const ingestionQueue = new IngestionQueueWriter(database, log, config.ingestionCommitDelayMs);
  resources.add(() => ingestionQueue.drain());
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => (fail = resolve));
  // The process cannot go on without its events' store.
  analytics.ready.catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error))));
  const ctx: AppContext = {
    config,
    database,
    analytics: analytics.engine,
    log,
    changes,
    teams: new TeamCache(database, changes),
    geoip: undefined,
    // Never settles when loading failed: nothing may process events without the GeoIP asked for.
    geoipReady: new Promise((resolve) => {
      geoip.loaded.then(
        (service) => {
          ctx.geoip = service;
          resolve(service);
        },
        (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
      );
    }),
    ingestionQueue,
  };
  return { ctx, failed, geoip, analytics };
}

/**
 * Projects whose environments disagree on their group types (kept as they were by migration 028:
 * their events carry `$group_N` by the old indexes), one line each (docs/operations.md).
 */
async function warnGroupTypeConflicts(database: Database, log: Logger): Promise<void> {
  for (const project of await projectsWithConflictingGroupTypes(database.db)) {
    log.warn(
      { project },
      'group types differ between the environments of this project: each keeps its own indexes, new types get an index free in all of them',
    );
  }
}

/** The background deletions runner, stopped with the other resources. */
function startDeletions(ctx: AppContext, resources: Resources): DeletionRunner {
  const runner = new DeletionRunner(ctx.database, ctx.analytics, ctx.log);
  runner.start();
  resources.add(() => runner.stop());
  return runner;
}

/** The calculator of dynamic cohorts' counts (cohorts/calculator.ts), wherever the worker runs. */
function startCohortCalculator(ctx: AppContext, resources: Resources): void {
  const calculator = new CohortCalculator(ctx);
  calculator.start();
  resources.add(() => calculator.stop());
}

/** The pruner of event uuids older than the dedupe window, stopped with the other resources. */
function startUuidPruner(ctx: AppContext, resources: Resources): void {
  const pruner = new EventUuidsPruner(ctx.database, ctx.log, { days: ctx.config.ingestionDedupeDays });
  pruner.start();
  resources.add(() => pruner.stop());
}

/**
 * The merger of the sessions table (when ingestion goes quiet, or hourly), stopped with the other
 * resources. Not on a cluster: its replicated tables are merged on each node by ClickHouse and its
 * operators.
 */
function startSessionsMerger(ctx: AppContext, resources: Resources): void {
  if (!ctx.config.sessionsMerge || ctx.config.clickhouseCluster) return;
  const merger = new SessionsMerger(ctx.database, ctx.analytics, ctx.log);
  merger.start();
  resources.add(() => merger.stop());
}

function createWorker(ctx: AppContext): IngestionWorker {
  return new IngestionWorker(ctx.database, ctx.log, {
    analytics: ctx.analytics,
    geoip: ctx.geoipReady,
    spikeEventsPerSecond: ctx.config.spikeEventsPerSecond,
    idleMs: ctx.config.ingestionPollMs,
    leaseTtlMs: ctx.config.ingestionLeaseMs,
    wakeUp: ctx.ingestionQueue.events,
    onTeamChanged: (teamId) => ctx.teams.invalidate(teamId),
  });
}

export interface RunningApp {
  app: FastifyInstance;
  ctx: AppContext;
  url: string;
  bootstrap: BootstrapResult | null;
  /** The in-process ingestion worker, unless INGESTION_WORKER=off. */
  worker: IngestionWorker | undefined;
  /** Background deletions, run wherever the worker runs. */
  deletions: DeletionRunner | undefined;
  /** Settles when the process cannot go on (see openContext). */
  failed: Promise<Error>;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
}

/** Everything `hoglet serve` does before it waits for signals. */
export async function startApp(config: Config, options: StartOptions = {}): Promise<RunningApp> {
  const log = options.log ?? createLogger(config);
  const resources = new Resources();
  try {
    const { ctx, failed, geoip, analytics } = await openContext(config, log, resources);
    const bootstrap = await bootstrapIfEmpty(ctx.database, {
      email: config.bootstrapEmail,
      personalApiKey: config.bootstrapPersonalApiKey,
    });
    let worker: IngestionWorker | undefined;
    let deletions: DeletionRunner | undefined;
    if (config.ingestionWorker === 'inline') {
      const inline = createWorker(ctx);
      worker = inline;
      inline.start();
      resources.add(() => inline.stop());
      // Subscriptions are delivered wherever the worker runs; row claims keep several processes apart.
      const subscriptions = createSubscriptionScheduler(ctx);
      subscriptions.start();
      resources.add(() => subscriptions.stop());
      deletions = startDeletions(ctx, resources);
      startCohortCalculator(ctx, resources);
      startUuidPruner(ctx, resources);
      startSessionsMerger(ctx, resources);
    }
    const app = await buildServer(ctx);
    // Closed first on shutdown: stop accepting, let requests in flight finish (and commit).
    resources.add(() => closeWithGrace(app, config.shutdownGraceMs, log));
    // The engine opens before the server listens: loading chdb's library holds the thread for about
    // half a second, which after listening would hold the first requests (docs/benchmarks.md).
    analytics.begin();
    await analytics.ready;
    await app.listen({ port: config.port, host: config.host });
    geoip.begin();
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const url = config.siteUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    log.info({ url, database: ctx.database.dialect, worker: config.ingestionWorker }, 'hoglet listening');
    return { app, ctx, url, bootstrap, worker, deletions, failed, close: () => resources.closeAll(log) };
  } catch (error) {
    await resources.closeAll(log);
    throw error;
  }
}

export interface RunningWorker {
  ctx: AppContext;
  worker: IngestionWorker;
  /** Settles when the process cannot go on (see openContext). */
  failed: Promise<Error>;
  close(): Promise<void>;
}

/** `hoglet worker`: the ingestion worker alone, for deployments that run it as its own process. */
export async function startWorker(config: Config, options: StartOptions = {}): Promise<RunningWorker> {
  const log = options.log ?? createLogger(config);
  const resources = new Resources();
  try {
    const { ctx, failed, geoip, analytics } = await openContext(config, log, resources);
    analytics.begin();
    geoip.begin();
    const worker = createWorker(ctx);
    worker.start();
    resources.add(() => worker.stop());
    const subscriptions = createSubscriptionScheduler(ctx);
    subscriptions.start();
    resources.add(() => subscriptions.stop());
    startDeletions(ctx, resources);
    startCohortCalculator(ctx, resources);
    startUuidPruner(ctx, resources);
    startSessionsMerger(ctx, resources);
    return { ctx, worker, failed, close: () => resources.closeAll(log) };
  } catch (error) {
    await resources.closeAll(log);
    throw error;
  }
}
