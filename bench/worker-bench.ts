import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import pino from 'pino';
import type { AnalyticsEngine } from '../src/platform/analytics/engine.js';
import type { Database } from '../src/platform/db/database.js';
import { openGeoip, type GeoipService } from '../src/geoip/geoip-service.js';
import { IngestionQueueWriter } from '../src/ingestion/queue.js';
import { IngestionWorker } from '../src/ingestion/worker/worker.js';
import { bootstrapIfEmpty } from '../src/environments/bootstrap.js';
import { noteUnlessServerNodeOptions } from './harness.js';
import { storageFloor, type StorageFloor } from './storage-floor.js';
import { captureWorkload, realisticWorkload } from './workload.js';
import { openWorkerStores } from './worker-stores.js';

export interface WorkerFigure {
  eventsPerSecond: number;
  /** Events per second of this process's CPU time: steadier than wall time on a shared machine. */
  eventsPerCpuSecond: number;
  /**
   * Microseconds of CPU per event on the worker's own thread, on its prepare thread, and on all
   * the others (WAL checkpoints, V8's collector): on two cores the worker is bound by the busier
   * of its two threads and by their sum, not by its own thread alone. NaN where /proc is not there.
   */
  cpuMicrosPerEvent: { workerThread: number; prepareThread: number; otherThreads: number };
  processed: number;
  queued: number;
  seconds: number;
  /** The same stored rows written raw (storage-floor.ts); SQLite only. */
  floor?: StorageFloor | undefined;
}

/**
 * The worker on a realistic stream (bench/workload.ts) with full person processing, on fresh
 * storage: SQLite by default, PostgreSQL when `databaseUrl` is given (in a throwaway schema).
 * Only processing is timed, not enqueueing.
 */
/** The bundled GeoIP database, opened once per process (as the server opens it). */
let bundledGeoip: Promise<GeoipService> | undefined;

/** Times a worker draining whatever `database` has queued, for at most `maxSeconds`. */
async function timeWorker(
  database: Database,
  analytics: AnalyticsEngine,
  maxSeconds: number,
  batchSize: number,
): Promise<Omit<WorkerFigure, 'queued'>> {
  const log = pino({ level: 'silent' });
  // GeoIP enrichment as the server's worker does it (app.ts): every event with a public address
  // is looked up, and its $geoip_* properties are stored and set on the person.
  const geoip = await (bundledGeoip ??= openGeoip());
  // Spike detection is off unless BENCH_SPIKE_EVENTS_PER_SECOND says otherwise (the server's default is 1000).
  const worker = new IngestionWorker(database, log, {
    analytics,
    geoip,
    batchSize,
    spikeEventsPerSecond: Number(process.env.BENCH_SPIKE_EVENTS_PER_SECOND ?? 0),
    // BENCH_PREPARE_AHEAD=0: every batch prepared in the worker's own thread (to compare).
    prepareAhead: process.env.BENCH_PREPARE_AHEAD !== '0',
    // BENCH_BATCH_BUDGET_MS: the SQLite batch time budget (0: batches of batchSize, as before it).
    ...(process.env.BENCH_BATCH_BUDGET_MS !== undefined ? { batchBudgetMs: Number(process.env.BENCH_BATCH_BUDGET_MS) } : {}),
  });
  // The prepare thread is the busiest of the threads that the warm-up starts.
  const threadsBefore = new Set(threadCpuSeconds().keys());
  await worker.warmUp();
  const startedThreads = [...threadCpuSeconds().keys()].filter((tid) => !threadsBefore.has(tid));
  let processed = 0;
  // BENCH_CPU_PROFILE=file.cpuprofile profiles the timed part only (not the set-up).
  const profiler = process.env.BENCH_CPU_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  const cpu = process.cpuUsage();
  const threadsAtStart = threadCpuSeconds();
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  while (elapsed() < maxSeconds) {
    const n = await worker.runOnce();
    if (n === 0) break;
    processed += n;
  }
  // What the worker's last batches committed is stored once it is in ClickHouse: timed too.
  await worker.drain();
  const seconds = elapsed();
  const used = process.cpuUsage(cpu);
  const threadsAtEnd = threadCpuSeconds();
  const spent = (tid: string) => (threadsAtEnd.get(tid) ?? NaN) - (threadsAtStart.get(tid) ?? 0);
  const mainSpent = spent(String(process.pid));
  const prepareSpent = startedThreads.length === 0 ? 0 : Math.max(...startedThreads.map(spent));
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    fs.writeFileSync(process.env.BENCH_CPU_PROFILE!, JSON.stringify(profile));
    profiler.disconnect();
  }
  await worker.stop();
  const cpuSeconds = (used.user + used.system) / 1e6;
  // The process's CPU (process.cpuUsage) counts threads that ended meanwhile too: the others'
  // share is what the main thread did not use.
  const perEvent = (spent: number) => (processed === 0 ? NaN : (spent * 1e6) / processed);
  return {
    eventsPerSecond: processed / seconds,
    eventsPerCpuSecond: processed / cpuSeconds,
    cpuMicrosPerEvent: {
      workerThread: perEvent(mainSpent),
      prepareThread: perEvent(prepareSpent),
      otherThreads: perEvent(cpuSeconds - mainSpent - prepareSpent),
    },
    processed,
    seconds,
  };
}

/**
 * CPU seconds (user + system) of each of this process's threads by thread id (the main thread's
 * is the process id), from Linux /proc in 10 ms ticks; empty elsewhere.
 */
function threadCpuSeconds(): Map<string, number> {
  const seconds = new Map<string, number>();
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return seconds;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      seconds.set(tid, (Number(fields[11]) + Number(fields[12])) / 100); // utime, stime in clock ticks (USER_HZ 100)
    } catch {
      // the thread ended meanwhile
    }
  }
  return seconds;
}

/** `; CPU per event: 31 µs on the worker's thread, 28 on its prepare thread, 6 on the others`, for the figure's line. */
export function cpuPerEventText(figure: Pick<WorkerFigure, 'cpuMicrosPerEvent'>): string {
  const { workerThread, prepareThread, otherThreads } = figure.cpuMicrosPerEvent;
  if (Number.isNaN(workerThread)) return '';
  return `; CPU per event: ${workerThread.toFixed(0)} µs on the worker's thread, ${prepareThread.toFixed(0)} on its prepare thread, ${otherThreads.toFixed(0)} on the others`;
}

/** `storage floor: 18,000 events/s, 26,500 per CPU second (the same 50,000 events, 2,106 characters of properties each, written raw)`. */
export function floorText(floor: StorageFloor): string {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  return `storage floor: ${n(floor.eventsPerSecond)} events/s, ${n(floor.eventsPerCpuSecond)} per CPU second (the same ${n(floor.events)} events, ${n(floor.propertiesLength)} characters of properties each, and their persons and groups, written raw)`;
}

/** The worker on what an existing SQLite data folder has queued (bench/run.ts: capture's leftovers). */
export async function drainExisting(dataDir: string, maxSeconds: number): Promise<WorkerFigure> {
  // The server running on this data dir owns its embedded ClickHouse: this process reaches it through that one.
  const { database, analytics } = await openWorkerStores({ DATA_DIR: dataDir, DATABASE_URL: '' });
  try {
    let figure: WorkerFigure;
    try {
      // Events, not rows: a capture request's events are one row.
      const queued = await database.db
        .selectFrom('ingestion_queue')
        .select((eb) => eb.fn.sum<number | string>('event_count').as('n'))
        .executeTakeFirstOrThrow();
      figure = { ...(await timeWorker(database, analytics.engine, maxSeconds, 1000)), queued: Number(queued.n) };
    } finally {
      await database.close();
    }
    return { ...figure, floor: await storageFloor(path.join(dataDir, 'hoglet.db'), analytics.engine) };
  } finally {
    await analytics.engine.close();
  }
}

/**
 * The worker on a generated stream, on fresh storage each run. Runs are repeated (`runs`, default
 * BENCH_WORKER_RUNS or 3) and the median run (by events per CPU second) is returned: a single
 * one-second run on a shared two-core machine moved by ±10%.
 */
export async function workerBench(
  options: Parameters<typeof workerBenchOnce>[0] & { runs?: number },
): Promise<WorkerFigure & { runs: WorkerFigure[] }> {
  const count = Math.max(1, options.runs ?? Number(process.env.BENCH_WORKER_RUNS ?? 3));
  const runs: WorkerFigure[] = [];
  for (let i = 0; i < count; i++) runs.push(await workerBenchOnce(options));
  const sorted = [...runs].sort((a, b) => a.eventsPerCpuSecond - b.eventsPerCpuSecond);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, runs };
}

/**
 * Queues the generated stream; returns how many events. The stream is garbage afterwards: kept
 * during the timed part, its memory would be marked by every major collection, a cost no server
 * has.
 */
async function enqueueWorkload(
  queue: IngestionQueueWriter,
  teamId: number,
  events: number,
  workload: 'realistic' | 'capture' | undefined,
): Promise<number> {
  if (workload === 'capture') {
    // As capture queues them: a request's events in one row.
    const requests = captureWorkload(teamId, events);
    for (let i = 0; i < requests.length; i += 100)
      await Promise.all(requests.slice(i, i + 100).map((request) => queue.enqueueRequest(request)));
    return requests.reduce((sum, request) => sum + request.length, 0);
  }
  // A row per event: each a request of its own, the least favourable shape for the worker.
  const rows = realisticWorkload(teamId, events);
  for (let i = 0; i < rows.length; i += 5000) await queue.enqueue(rows.slice(i, i + 5000));
  return rows.length;
}

async function workerBenchOnce(options: {
  events: number;
  maxSeconds: number;
  databaseUrl?: string | undefined;
  batchSize?: number;
  /** `realistic` (default, bench/workload.ts) or `capture` (what npm run bench's capture leaves queued). */
  workload?: 'realistic' | 'capture';
}): Promise<WorkerFigure> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-worker-bench-'));
  const schema = options.databaseUrl ? `bench_${randomBytes(4).toString('hex')}` : undefined;
  const env = { DATA_DIR: dir, DATABASE_URL: options.databaseUrl ?? '', ...(schema ? { DATABASE_SCHEMA: schema } : {}) };
  // The events' store as the server opens it: the embedded ClickHouse in the data dir.
  const { log, database, analytics } = await openWorkerStores(env);
  let closed = false;
  try {
    await analytics.ready;
    const boot = await bootstrapIfEmpty(database, { email: 'bench@hoglet.local', personalApiKey: undefined });
    const queue = new IngestionQueueWriter(database, log, 0);
    const queued = await enqueueWorkload(queue, boot!.team.id, options.events, options.workload);
    const figure = { ...(await timeWorker(database, analytics.engine, options.maxSeconds, options.batchSize ?? 1000)), queued };
    if (options.databaseUrl) return figure;
    await database.close();
    closed = true;
    return { ...figure, floor: await storageFloor(path.join(dir, 'hoglet.db'), analytics.engine) };
  } finally {
    await analytics.engine.close();
    if (!closed) await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (options.databaseUrl && schema) {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
    }
  }
}

// `node --heap-growing-percent=50 --max-semi-space-size=8 --import tsx bench/worker-bench.ts [events]` (with the server's
// node options, package.json): this figure alone (BENCH_DATABASE_URL for PostgreSQL,
// BENCH_WORKLOAD=capture for capture's queue, BENCH_BATCH_SIZE for the batch size).
// The capture workload runs 200,000 events by default (50,000 took one second: too short to be
// steady); the realistic one keeps 50,000, as more events of its 5,000 visitors would flatter it.
if (import.meta.url === `file://${process.argv[1]}`) {
  noteUnlessServerNodeOptions();
  const capture = process.env.BENCH_WORKLOAD === 'capture';
  const figure = await workerBench({
    events: Number(process.argv[2] ?? (capture ? 200_000 : 50_000)),
    maxSeconds: 60,
    databaseUrl: process.env.BENCH_DATABASE_URL,
    workload: capture ? 'capture' : 'realistic',
    ...(process.env.BENCH_BATCH_SIZE ? { batchSize: Number(process.env.BENCH_BATCH_SIZE) } : {}),
  });
  const all = figure.runs.map((r) => `${Math.round(r.eventsPerSecond)}/${Math.round(r.eventsPerCpuSecond)}`).join(' ');
  process.stdout.write(
    `worker: ${Math.round(figure.eventsPerSecond)} events/s, ${Math.round(figure.eventsPerCpuSecond)} per CPU second (median of ${figure.runs.length}: ${all}; ${figure.processed} of ${figure.queued} in ${figure.seconds.toFixed(1)} s${cpuPerEventText(figure)})\n`,
  );
  if (figure.floor) process.stdout.write(`${floorText(figure.floor)}\n`);
}
