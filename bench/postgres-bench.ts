/**
 * The PostgreSQL section of `npm run bench` (`npm run bench -- --postgres` alone): capture, batch,
 * decide and `hoglet worker` processes on a fresh PostgreSQL database made for the run and dropped
 * after it, each beside PostgreSQL's own floor measured in the same run (bench/postgres-floor.ts:
 * the same rows inserted raw) or, for decide, which reads no row a request, beside bare fastify.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { batchBody, captureBody, sameLengthToken } from './bodies.js';
import { createMixedFlags, loadDecide } from './decide.js';
import { fmt, fmtMs, interleaved, load, report, spawnHoglet, spawnServer, type LoadResult } from './harness.js';
import { postgresFloor, postgresFloorText, type PostgresFloor } from './postgres-floor.js';
import { type WorkerTrace } from './postgres-worker-processes.js';
import { drainQueued, lastQueueId, queueRows, workerCounts, workerRounds, type DrainFigure } from './postgres-workers.js';

/** Where the bench looks for PostgreSQL when DATABASE_URL is not set (the test suite's database). */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function benchPostgresUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL?.trim() || DEFAULT_POSTGRES_URL;
}

export interface BenchSections {
  sqlite: boolean;
  /** `required`: fail when PostgreSQL is not reachable; `if-reachable`: say so and go on. */
  postgres: 'required' | 'if-reachable' | 'off';
  /** `npm run bench:analytics`'s million events (bench/analytics.ts), last. */
  analytics: boolean;
}

const USAGE = 'npm run bench [-- --postgres | --analytics | --no-postgres | --no-analytics]';

/**
 * What `npm run bench` runs: everything by default; `--postgres` or `--analytics` one section
 * alone; `--no-postgres` and `--no-analytics` leave one out.
 */
export function benchSections(args: readonly string[]): BenchSections {
  const known = ['--postgres', '--no-postgres', '--analytics', '--no-analytics'];
  const unknown = args.filter((a) => !known.includes(a));
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]}: ${USAGE}`);
  const only = args.filter((a) => a === '--postgres' || a === '--analytics');
  if (only.length > 0 && args.length > 1) throw new Error(`${only[0]} runs one section alone and takes no other argument: ${USAGE}`);
  if (args.includes('--postgres')) return { sqlite: false, postgres: 'required', analytics: false };
  if (args.includes('--analytics')) return { sqlite: false, postgres: 'off', analytics: true };
  return {
    sqlite: true,
    postgres: args.includes('--no-postgres') ? 'off' : 'if-reachable',
    analytics: !args.includes('--no-analytics'),
  };
}

/** A URL without its password, to print. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'an unparsable DATABASE_URL';
  }
}

/** PostgreSQL's version at `url`, or why it cannot be reached. */
export async function postgresVersion(url: string): Promise<{ version: string } | { error: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('show server_version');
    return { version: result.rows[0]!.server_version };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A database of its own for the run, in the server `url` points at; `drop` ends its connections. */
export async function freshDatabase(url: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `hoglet_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database "${name}"`);
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return { url: fresh.toString(), name, drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

/** The floor of the queue rows with ids in (after, upTo]: those very rows inserted raw, 1000 a transaction. */
async function queueRowsFloor(client: pg.Client, url: string, after: number, upTo: number): Promise<PostgresFloor> {
  const { table, events } = await queueRows(client, after, upTo);
  return postgresFloor(url, 'public', [table], events, Math.ceil(table.rows.length / 1000));
}

export const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';

/** The server that takes the bench's requests on PostgreSQL: its worker off (workers run apart), the bench's key. */
export function frontServerEnv(dir: string, databaseUrl: string): Record<string, string> {
  return {
    DATA_DIR: path.join(dir, 'hoglet'),
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    INGESTION_WORKER: 'off',
    HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
  };
}

/** Runs the section and prints its lines (same format as bench/run.ts's). */
export async function postgresBench(options: { url: string; version: string; seconds: number; connections: number }): Promise<void> {
  const { seconds, connections } = options;
  const workerEvents = Number(process.env.BENCH_PG_WORKER_EVENTS ?? 50_000);
  const warmUpEvents = Number(process.env.BENCH_PG_WARMUP_EVENTS ?? 10_000);
  // A round's deadline: the figure is then what was stored by it (said on its line).
  const drainSeconds = Number(process.env.BENCH_PG_DRAIN_SECONDS ?? 120);
  const database = await freshDatabase(options.url);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-pg-bench-'));
  process.stdout.write(
    `\nPostgreSQL ${options.version} at ${describeUrl(options.url)}: fresh database ${database.name} for this run (dropped after it), ${os.availableParallelism()} cores shared with PostgreSQL\n`,
  );
  const client = new pg.Client({ connectionString: database.url });
  try {
    const env = frontServerEnv(dir, database.url);
    const hoglet = await spawnHoglet([], env);
    await client.connect();
    try {
      const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
        results: Array<{ id: number; api_token: string }>;
      };
      const token = projects.results[0]!.api_token;
      await createMixedFlags(hoglet.url, KEY, projects.results[0]!.id, token);
      // The $groupidentify that creates the group type, processed so that the group flags evaluate.
      await drainQueued(database.url, { ...env, LOG_LEVEL: 'warn' }, 60);

      const bare = await spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/ });
      let http: { decide: Interleaved; capture: Interleaved; batch: Interleaved };
      const marks: number[] = [];
      try {
        const bareLoad = (route: string, body: string) => (s: number) =>
          load({ url: `${bare.url}${route}`, body, connections, seconds: s, serverPid: bare.child.pid });
        await loadDecide(hoglet.url, token, connections, 1, hoglet.child.pid); // warm-up
        const decideFigure = await interleaved(
          seconds,
          (s) => loadDecide(hoglet.url, token, connections, s, hoglet.child.pid),
          bareLoad('/decide/', JSON.stringify({ api_key: token, distinct_id: 'bench-user-1' })),
        );
        marks.push(await lastQueueId(client));
        const captureFigure = await interleaved(
          seconds,
          (s) => load({ url: `${hoglet.url}/capture/`, body: captureBody(token), connections, seconds: s, serverPid: hoglet.child.pid }),
          bareLoad('/capture/', captureBody(sameLengthToken(token))),
        );
        marks.push(await lastQueueId(client));
        const batchFigure = await interleaved(
          seconds,
          (s) => load({ url: `${hoglet.url}/batch/`, body: batchBody(token), connections, seconds: s, serverPid: hoglet.child.pid }),
          bareLoad('/batch/', batchBody(sameLengthToken(token))),
        );
        marks.push(await lastQueueId(client));
        http = { decide: decideFigure, capture: captureFigure, batch: batchFigure };
      } finally {
        await bare.stop();
      }
      // Capture's and batch's floors: the very queue rows they wrote.
      const captureFloor = await queueRowsFloor(client, database.url, marks[0]!, marks[1]!);
      const batchFloor = await queueRowsFloor(client, database.url, marks[1]!, marks[2]!);
      // Those queued events are not the workers' stream: gone before it is queued.
      await client.query('delete from ingestion_queue');

      // The workers, one round per count, each warmed up then timed on a fresh stream queued through /batch/ first.
      const { drains, workerFloor } = await workerRounds({
        url: database.url,
        serverUrl: hoglet.url,
        serverPid: hoglet.child.pid,
        token,
        env: { ...env, LOG_LEVEL: 'warn' },
        events: workerEvents,
        warmUpEvents,
        counts: workerCounts(os.availableParallelism()),
        drainSeconds,
      });

      printLines(http, captureFloor, batchFloor, drains, workerFloor, workerEvents);
    } finally {
      await hoglet.stop();
    }
  } finally {
    await client.end().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    await database.drop();
  }
}

type Interleaved = { measured: LoadResult; baseline: LoadResult };

function printLines(
  http: { decide: Interleaved; capture: Interleaved; batch: Interleaved },
  captureFloor: PostgresFloor,
  batchFloor: PostgresFloor,
  drains: DrainFigure[],
  workerFloor: PostgresFloor,
  workerEvents: number,
): void {
  const pad = ''.padEnd(44);
  const floorLine = (floor: PostgresFloor) => ({ name: 'PostgreSQL floor', value: floor.eventsPerSecond, unit: 'events/s' });
  /** An ingestion figure in events/s beside its floor, then its latency, bare fastify's rate (per request for single events) and the floor. */
  const ingestion = (name: string, figure: Interleaved, eventsPerRequest: number, floor: PostgresFloor, rows: string) => {
    const { measured, baseline } = figure;
    report(name, measured.requestsPerSecond * eventsPerRequest, 'events/s', floorLine(floor));
    const bare =
      eventsPerRequest === 1
        ? `${fmt(baseline.requestsPerSecond)} req/s`
        : `${fmt(baseline.requestsPerSecond * eventsPerRequest)} events/s`;
    process.stdout.write(
      `${pad} p99 ${fmtMs(measured.p99)} ms, non-2xx ${measured.non2xx}; bare fastify ${bare}, ratio ${(measured.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}\n`,
    );
    process.stdout.write(`${pad} ${postgresFloorText(floor, rows)}\n`);
  };
  const { capture, batch, decide } = http;
  ingestion('capture, single event (PostgreSQL)', capture, 1, captureFloor, "capture's queue rows");
  ingestion('batch, 100 events per request (PostgreSQL)', batch, 100, batchFloor, "batch's queue rows");
  report('decide v3, 50 flags (PostgreSQL)', decide.measured.requestsPerSecond, 'req/s', {
    name: 'bare fastify',
    value: decide.baseline.requestsPerSecond,
    unit: 'req/s',
  });
  process.stdout.write(
    `${pad} p99 ${fmtMs(decide.measured.p99)} ms (bare ${fmtMs(decide.baseline.p99)} ms), non-2xx ${decide.measured.non2xx}\n`,
  );
  printWorkerLines(drains, workerFloor, workerEvents);
}

/**
 * The most events/s `cores` could store in a round if the workers cost no CPU at all: the cores over
 * the CPU per event the stores themselves took (PostgreSQL's backends and the server hosting
 * ClickHouse). The floor writes to PostgreSQL only, so this says how near to it any worker can come
 * here; undefined where either store's CPU could not be read.
 */
export function storesOnlyEventsPerSecond(
  d: Pick<DrainFigure, 'processed' | 'postgresCpuSeconds' | 'serverCpuSeconds'>,
  cores: number,
): number | undefined {
  const storesSeconds = d.postgresCpuSeconds + d.serverCpuSeconds;
  if (!Number.isFinite(storesSeconds) || storesSeconds <= 0 || d.processed <= 0) return undefined;
  return (cores * d.processed) / storesSeconds;
}

/** The worker rounds' lines: one worker beside its floor, more beside one. */
export function printWorkerLines(drains: DrainFigure[], workerFloor: PostgresFloor, workerEvents: number): void {
  const pad = ''.padEnd(44);
  const floorLine = (floor: PostgresFloor) => ({ name: 'PostgreSQL floor', value: floor.eventsPerSecond, unit: 'events/s' });
  const [one, ...more] = drains;
  // One worker that keeps the machine busy leaves little for a second one to add: shown beside it.
  const busyText = (d: DrainFigure) => {
    if (d.machineBusy === undefined) return '';
    const busy = `; machine ${Math.round(d.machineBusy * 100)}% busy (all cores, PostgreSQL's too)`;
    return d.workers === 1 ? `${busy}, so more workers can add at most ${(1 / d.machineBusy).toFixed(2)}x here` : busy;
  };
  const mb = (values: number[]) => values.map((v) => `${Math.round(v)}`).join(' / ');
  const rssText = (d: DrainFigure) => `peak ${mb(d.peakRssMb)} MB, idle after ${mb(d.idleRssMb)} MB`;
  // CPU milliseconds per 1,000 events processed, of a process or group of processes over the timed part.
  const perThousand = (d: DrainFigure, seconds: number) => ((seconds * 1e6) / d.processed).toFixed(0);
  const cpuText = (d: DrainFigure) =>
    `; CPU ms per 1,000 events: workers ${perThousand(d, d.processed / d.eventsPerCpuSecond)}` +
    (Number.isNaN(d.postgresCpuSeconds) ? '' : `, PostgreSQL ${perThousand(d, d.postgresCpuSeconds)}`) +
    (Number.isNaN(d.serverCpuSeconds) ? '' : `, server (ClickHouse) ${perThousand(d, d.serverCpuSeconds)}`);
  const detail = (d: DrainFigure) =>
    `${pad} ${fmt(d.processed)} of ${fmt(d.queued)} queued events (posthog-node batches of the realistic stream) ${d.processed < d.queued ? 'processed by the deadline' : 'stored'} in ${d.seconds.toFixed(1)} s (the queue empty at ${d.queueSeconds.toFixed(1)} s); ${fmt(d.eventsPerCpuSecond)} per worker CPU second${busyText(d)}${cpuText(d)}; RSS a worker ${rssText(d)}\n`;
  report('worker, 1 process (PostgreSQL)', one!.eventsPerSecond, 'events/s', floorLine(workerFloor), '>= 0.3');
  process.stdout.write(detail(one!));
  process.stdout.write(`${pad} ${postgresFloorText(workerFloor, `the rows 1 worker stored for ${fmt(workerEvents)} events`)}\n`);
  const cores = os.availableParallelism();
  const storesOnly = storesOnlyEventsPerSecond(one!, cores);
  if (storesOnly !== undefined) {
    process.stdout.write(
      `${pad} the stores alone (PostgreSQL and ClickHouse, as measured in this round): with workers that cost no CPU, ${cores} cores would store at most ${fmt(storesOnly)} events/s, ${(storesOnly / workerFloor.eventsPerSecond).toFixed(2)} of the floor\n`,
    );
  }
  for (const d of more) {
    report(
      `worker, ${d.workers} processes (PostgreSQL)`,
      d.eventsPerSecond,
      'events/s',
      {
        name: 'worker, 1 process',
        value: one!.eventsPerSecond,
        unit: 'events/s',
      },
      d.workers === 2 ? '>= 1.3' : undefined,
    );
    process.stdout.write(detail(d));
  }
  for (const d of drains) for (const [i, t] of (d.traces ?? []).entries()) process.stdout.write(`${pad} ${traceText(d, i, t)}\n`);
}

/** One worker's round as traced (BENCH_WORKER_TRACE=1). */
function traceText(d: DrainFigure, i: number, t: WorkerTrace): string {
  const s = (v: number) => v.toFixed(2);
  const partitions = t.partitions.map((p) => `${p.held}@${s(p.at)}`).join(' ') || 'none changed';
  return (
    `${d.workers} worker(s), #${i + 1}: warm-up ${t.warmUpBatches} batches (retried ${t.warmUpRetried}); ` +
    `${fmt(t.events)} events in ${t.batches} batches (${t.preparedAhead} prepared ahead), ` +
    `batches ${s(t.batchSeconds)} s of ${s(d.seconds)}, first ${s(t.firstBatchAt)} last ${s(t.lastBatchAt)} s; ` +
    `${fmt(t.events / t.cpuSeconds)} events per CPU second; retried ${t.retried}, rolled back ${t.rolledBack}; partitions held ${partitions}` +
    t.warnings.map((w) => `\n${''.padEnd(48)}${w.slice(0, 300)}`).join('')
  );
}
