/**
 * The PostgreSQL section of `npm run bench` (`npm run bench -- --postgres` alone): capture, batch,
 * decide and `hoglet worker` processes on a fresh PostgreSQL database made for the run and dropped
 * after it, each beside PostgreSQL's own floor measured in the same run (bench/postgres-floor.ts:
 * the same rows inserted raw) or, for decide, which reads no row a request, beside bare fastify.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { batchBody, captureBody, sameLengthToken } from './bodies.js';
import { createMixedFlags, loadDecide } from './decide.js';
import {
  cpuSecondsOf,
  entryArguments,
  fmt,
  interleaved,
  load,
  report,
  ROOT,
  SERVER_ENVIRONMENT,
  SERVER_NODE_OPTIONS,
  spawnHoglet,
  spawnServer,
  type LoadResult,
} from './harness.js';
import { postgresFloor, postgresFloorText, readTable, type FloorTable, type PostgresFloor } from './postgres-floor.js';
import { realisticWorkload } from './workload.js';

/** Where the bench looks for PostgreSQL when DATABASE_URL is not set (the test suite's database). */
export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function benchPostgresUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.DATABASE_URL?.trim() || DEFAULT_POSTGRES_URL;
}

export interface BenchSections {
  sqlite: boolean;
  /** `required`: fail when PostgreSQL is not reachable; `if-reachable`: say so and go on. */
  postgres: 'required' | 'if-reachable' | 'off';
}

/** What `npm run bench [-- --postgres | --no-postgres]` runs. */
export function benchSections(args: readonly string[]): BenchSections {
  const unknown = args.filter((a) => a !== '--postgres' && a !== '--no-postgres');
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]}: npm run bench [-- --postgres | --no-postgres]`);
  if (args.includes('--postgres') && args.includes('--no-postgres')) throw new Error('--postgres and --no-postgres exclude each other');
  if (args.includes('--postgres')) return { sqlite: false, postgres: 'required' };
  if (args.includes('--no-postgres')) return { sqlite: true, postgres: 'off' };
  return { sqlite: true, postgres: 'if-reachable' };
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
async function freshDatabase(url: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
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

/** A realistic stream (bench/workload.ts) as posthog-node sends it: batches of 100, distinct ids under `prefix`. */
export function posthogNodeBatches(token: string, events: number, prefix: string): string[] {
  const rows = realisticWorkload(0, events);
  const bodies: string[] = [];
  for (let i = 0; i < rows.length; i += 100) {
    const batch = rows.slice(i, i + 100).map(({ payload }) => {
      const properties: Record<string, unknown> = {
        ...(payload.properties as Record<string, unknown>),
        $lib: 'posthog-node',
        $lib_version: '4.18.0',
      };
      // Each round's persons and groups are new ones: every round does the same work.
      if (typeof properties.$anon_distinct_id === 'string') properties.$anon_distinct_id = `${prefix}${properties.$anon_distinct_id}`;
      if (typeof properties.$group_key === 'string') properties.$group_key = `${prefix}${properties.$group_key}`;
      const groups = properties.$groups as Record<string, string> | undefined;
      if (groups) properties.$groups = Object.fromEntries(Object.entries(groups).map(([type, key]) => [type, `${prefix}${key}`]));
      return {
        type: 'capture',
        event: payload.event,
        distinct_id: `${prefix}${payload.distinct_id}`,
        properties,
        timestamp: payload.timestamp,
        uuid: payload.uuid,
        library: 'posthog-node',
        library_version: '4.18.0',
      };
    });
    bodies.push(JSON.stringify({ api_key: token, batch }));
  }
  return bodies;
}

/** POSTs `body` to /batch/; again when the connection was closed under it (an idle keep-alive connection the server timed out). */
async function postBatch(url: string, body: string, attempts = 3): Promise<Response> {
  try {
    return await fetch(`${url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch (error) {
    // A repeat stores nothing twice: the events carry their uuids.
    if (attempts <= 1) throw error;
    return postBatch(url, body, attempts - 1);
  }
}

/** Sends `bodies` to /batch/, a few at a time, each answered 200. */
async function sendBatches(url: string, bodies: readonly string[]): Promise<void> {
  let next = 0;
  const sender = async () => {
    while (next < bodies.length) {
      const res = await postBatch(url, bodies[next++]!);
      if (res.status !== 200) throw new Error(`/batch/ answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
}

/** Events queued and outbox rows not yet copied to ClickHouse. */
async function backlog(client: pg.Client): Promise<{ queued: number; outbox: number }> {
  const result = await client.query<{ queued: string; outbox: string }>(
    'select (select coalesce(sum(event_count), 0) from ingestion_queue) as queued, (select count(*) from analytics_outbox) as outbox',
  );
  return { queued: Number(result.rows[0]!.queued), outbox: Number(result.rows[0]!.outbox) };
}

async function waitFor(check: () => Promise<boolean>, seconds: number, what: string): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface DrainFigure {
  workers: number;
  eventsPerSecond: number;
  /** Events per CPU second of the worker processes (their start included: a rough figure). */
  eventsPerCpuSecond: number;
  processed: number;
  queued: number;
  seconds: number;
}

/** `hoglet worker` processes of this checkout (compiled when the bench runs compiled). */
function startWorkers(count: number, env: Record<string, string>): Array<{ child: ChildProcess; output: () => string }> {
  return Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [...SERVER_NODE_OPTIONS, ...entryArguments('src/cli/main.ts', ROOT), 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...SERVER_ENVIRONMENT, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    const keep = (d: Buffer) => {
      text = (text + d.toString()).slice(-4000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    return { child, output: () => text };
  });
}

async function stopWorkers(workers: Array<{ child: ChildProcess }>): Promise<void> {
  await Promise.all(
    workers.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.on('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * Starts `count` workers on what is queued and times them until the queue and the outbox are
 * empty (every event stored in ClickHouse): from the last look at a full queue (every 50 ms) to
 * the first at an empty one, so the processes' start is not timed.
 */
export async function timeDrain(url: string, count: number, env: Record<string, string>, maxSeconds: number): Promise<DrainFigure> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const workers = startWorkers(count, { ...env, DATABASE_URL: url });
  try {
    const initial = (await backlog(client)).queued;
    const cpu = () => workers.reduce((sum, { child }) => sum + cpuSecondsOf(child.pid), 0);
    let startedAt = process.hrtime.bigint();
    let cpuAtStart = cpu();
    const deadline = Date.now() + maxSeconds * 1000;
    let now = await backlog(client);
    while (now.queued > 0 || now.outbox > 0) {
      if (Date.now() > deadline) break;
      const exited = workers.find(({ child }) => child.exitCode !== null);
      if (exited) throw new Error(`a worker exited ${exited.child.exitCode}:\n${exited.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const at = process.hrtime.bigint();
      const cpuAt = cpu();
      now = await backlog(client);
      if (now.queued === initial) {
        startedAt = at;
        cpuAtStart = cpuAt;
      }
    }
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const processed = initial - now.queued;
    return {
      workers: count,
      eventsPerSecond: processed / seconds,
      eventsPerCpuSecond: processed / (cpu() - cpuAtStart),
      processed,
      queued: initial,
      seconds,
    };
  } finally {
    await stopWorkers(workers);
    await client.end();
  }
}

/** The tables a worker batch writes rows into (besides the outbox; definitions left out: a few rows). */
const WORKER_TABLES = ['persons', 'person_distinct_ids', 'personless_distinct_ids', 'groups', 'person_overrides', 'event_uuids'] as const;

/**
 * The worker's rows for its floor: what it stored in `WORKER_TABLES`, and its outbox rows (one a
 * batch of 1000 events, copied to ClickHouse and deleted since) made again from the queued
 * events' JSON, read before the drain: about the size of the event lines a worker writes there.
 */
async function workerFloorTables(client: pg.Client, queued: FloorTable, transactions: number): Promise<FloorTable[]> {
  const tables: FloorTable[] = [];
  for (const name of WORKER_TABLES) tables.push(await readTable(client, 'public', name));
  const outbox = await readTable(client, 'public', 'analytics_outbox', 'where false');
  const payload = queued.columns.indexOf('payload');
  const rows: Array<Array<string | null>> = [];
  for (let k = 0; k < transactions; k++) {
    const share = queued.rows.slice(
      Math.floor((k * queued.rows.length) / transactions),
      Math.floor(((k + 1) * queued.rows.length) / transactions),
    );
    const values: Record<string, string> = {
      id: String(k + 1),
      token: randomUUID(),
      events: share.map((row) => row[payload]).join('\n'),
      person_overrides: '',
      created_at: new Date().toISOString(),
    };
    rows.push(outbox.columns.map((column) => values[column] ?? null));
  }
  tables.push({ name: 'analytics_outbox', columns: outbox.columns, rows });
  return tables;
}

/** Queue rows with ids in (after, upTo], and how many events they hold. */
async function queueRows(client: pg.Client, after: number, upTo: number): Promise<{ table: FloorTable; events: number }> {
  const table = await readTable(client, 'public', 'ingestion_queue', 'where id > $1 and id <= $2 order by id', [after, upTo]);
  const count = table.columns.indexOf('event_count');
  return { table, events: table.rows.reduce((sum, row) => sum + Number(row[count]), 0) };
}

async function lastQueueId(client: pg.Client): Promise<number> {
  const result = await client.query<{ id: string | null }>('select max(id) as id from ingestion_queue');
  return Number(result.rows[0]!.id ?? 0);
}

const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';

/** The worker counts measured: one, two, and the machine's parallelism when it is more than two. */
export function workerCounts(parallelism: number): number[] {
  return parallelism > 2 ? [1, 2, parallelism] : [1, 2];
}

/** Runs the section and prints its lines (same format as bench/run.ts's). */
export async function postgresBench(options: { url: string; version: string; seconds: number; connections: number }): Promise<void> {
  const { seconds, connections } = options;
  const workerEvents = Number(process.env.BENCH_PG_WORKER_EVENTS ?? 50_000);
  // A round's deadline: the figure is then what was stored by it (said on its line).
  const drainSeconds = Number(process.env.BENCH_PG_DRAIN_SECONDS ?? 120);
  const database = await freshDatabase(options.url);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-pg-bench-'));
  process.stdout.write(
    `\nPostgreSQL ${options.version} at ${describeUrl(options.url)}: fresh database ${database.name} for this run (dropped after it), ${os.availableParallelism()} cores shared with PostgreSQL\n`,
  );
  const client = new pg.Client({ connectionString: database.url });
  try {
    const env = {
      DATA_DIR: path.join(dir, 'hoglet'),
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      INGESTION_WORKER: 'off',
      HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
    };
    const hoglet = await spawnHoglet([], env);
    await client.connect();
    try {
      const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
        results: Array<{ id: number; api_token: string }>;
      };
      const token = projects.results[0]!.api_token;
      await createMixedFlags(hoglet.url, KEY, projects.results[0]!.id, token);
      // The $groupidentify that creates the group type, processed so that the group flags evaluate.
      await timeDrain(database.url, 1, { ...env, LOG_LEVEL: 'warn' }, 60);

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
      // Capture's and batch's floors: the very queue rows they wrote, inserted raw, 1000 a transaction.
      const captured = await queueRows(client, marks[0]!, marks[1]!);
      const batched = await queueRows(client, marks[1]!, marks[2]!);
      const captureFloor = await postgresFloor(
        database.url,
        'public',
        [captured.table],
        captured.events,
        Math.ceil(captured.table.rows.length / 1000),
      );
      const batchFloor = await postgresFloor(
        database.url,
        'public',
        [batched.table],
        batched.events,
        Math.ceil(batched.table.rows.length / 1000),
      );
      // Those queued events are not the workers' stream: gone before it is queued.
      await client.query('delete from ingestion_queue');

      // The workers, one round per count, each on a fresh stream (distinct ids of its own) queued
      // through /batch/ first, then drained by that many `hoglet worker` processes.
      const drains: DrainFigure[] = [];
      let workerFloor: PostgresFloor | undefined;
      for (const count of workerCounts(os.availableParallelism())) {
        const before = await lastQueueId(client);
        await sendBatches(hoglet.url, posthogNodeBatches(token, workerEvents, `r${count}-`));
        await waitFor(async () => (await backlog(client)).queued >= workerEvents, 60, 'the queue to fill');
        const queued = count === 1 ? await queueRows(client, before, await lastQueueId(client)) : undefined;
        const drain = await timeDrain(database.url, count, { ...env, LOG_LEVEL: 'warn' }, drainSeconds);
        drains.push(drain);
        // What a round left at its deadline is not the next round's.
        if (drain.processed < drain.queued) await client.query('delete from ingestion_queue');
        if (queued) {
          const transactions = Math.ceil(queued.events / 1000);
          workerFloor = await postgresFloor(
            database.url,
            'public',
            await workerFloorTables(client, queued.table, transactions),
            queued.events,
            transactions,
          );
        }
      }

      printLines(http, captureFloor, batchFloor, drains, workerFloor!, workerEvents);
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
  const { capture, batch, decide } = http;
  report('capture, single event (PostgreSQL)', capture.measured.requestsPerSecond, 'events/s', floorLine(captureFloor));
  process.stdout.write(
    `${pad} p99 ${capture.measured.p99} ms, non-2xx ${capture.measured.non2xx}; bare fastify ${fmt(capture.baseline.requestsPerSecond)} req/s, ratio ${(capture.measured.requestsPerSecond / capture.baseline.requestsPerSecond).toFixed(2)}\n`,
  );
  process.stdout.write(`${pad} ${postgresFloorText(captureFloor, "capture's queue rows")}\n`);
  report('batch, 100 events per request (PostgreSQL)', batch.measured.requestsPerSecond * 100, 'events/s', floorLine(batchFloor));
  process.stdout.write(
    `${pad} p99 ${batch.measured.p99} ms, non-2xx ${batch.measured.non2xx}; bare fastify ${fmt(batch.baseline.requestsPerSecond * 100)} events/s, ratio ${(batch.measured.requestsPerSecond / batch.baseline.requestsPerSecond).toFixed(2)}\n`,
  );
  process.stdout.write(`${pad} ${postgresFloorText(batchFloor, "batch's queue rows")}\n`);
  report('decide v3, 50 flags (PostgreSQL)', decide.measured.requestsPerSecond, 'req/s', {
    name: 'bare fastify',
    value: decide.baseline.requestsPerSecond,
    unit: 'req/s',
  });
  process.stdout.write(`${pad} p99 ${decide.measured.p99} ms (bare ${decide.baseline.p99} ms), non-2xx ${decide.measured.non2xx}\n`);
  const [one, ...more] = drains;
  const detail = (d: DrainFigure) =>
    `${pad} ${fmt(d.processed)} of ${fmt(d.queued)} queued events (posthog-node batches of the realistic stream) ${d.processed < d.queued ? 'processed by the deadline' : 'stored'} in ${d.seconds.toFixed(1)} s; ${fmt(d.eventsPerCpuSecond)} per worker CPU second\n`;
  report('worker, 1 process (PostgreSQL)', one!.eventsPerSecond, 'events/s', floorLine(workerFloor), '>= 0.3');
  process.stdout.write(detail(one!));
  process.stdout.write(`${pad} ${postgresFloorText(workerFloor, `the rows 1 worker stored for ${fmt(workerEvents)} events`)}\n`);
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
}
