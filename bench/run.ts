/**
 * `npm run bench`: Hoglet's throughput beside baselines measured in the same run on the same
 * machine (a bare fastify endpoint, a raw SQLite insert loop), printed as ratios. Nothing here
 * asserts: shared machines are noisy, so the figures are for reading, not for failing builds.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { batchBody, captureBody, sameLengthToken } from './bodies.js';
import { createMixedFlags, decideText, loadDecide, measureClusterDecide, measureDecide, processQueued } from './decide.js';
import {
  fmt,
  fmtMs,
  interleaved,
  load,
  LOAD_CLIENT,
  OPEN_LOAD_CLIENT,
  noteUnlessServerNodeOptions,
  report,
  SLICES,
  sliceSeconds,
  spawnHoglet,
  spawnServer,
} from './harness.js';
import { captureDuringDrain, drainLatencyText } from './drain-latency.js';
import { benchPostgresUrl, benchSections, describeUrl, postgresBench, postgresVersion } from './postgres-bench.js';
import { footprint, footprintText } from './footprint.js';
import { webSizes, webSizeText } from './web-size.js';
import { cpuPerEventText, drainExisting, floorText, workerBench, type WorkerFigure } from './worker-bench.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';

function rawSqliteInsertsPerSecond(dir: string): number {
  const db = new BetterSqlite3(path.join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('create table t (id integer primary key, distinct_id text, payload text)');
  const insert = db.prepare('insert into t (distinct_id, payload) values (?, ?)');
  const payload = JSON.stringify({ event: 'bench', properties: { plan: 'pro', n: 1, $current_url: 'https://example.com/pricing' } });
  const many = db.transaction((n: number) => {
    for (let i = 0; i < n; i++) insert.run(`user-${i % 100}`, payload);
  });
  let rows = 0;
  const started = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - started) / 1e9 < 2) {
    many(1000);
    rows += 1000;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return rows / seconds;
}

/** A worker figure's baseline: its storage floor (the same rows written raw). */
function floorLine(figure: WorkerFigure): { name: string; value: number; unit: string } {
  return { name: 'storage floor', value: figure.floor!.eventsPerSecond, unit: 'events/s' };
}

/** Starts a second server; when that fails, the first is stopped before the error goes on. */
async function stopOnFailure<T>(first: { stop(): Promise<void> }, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await first.stop();
    throw error;
  }
}

/** Runs `measure` against a started server and stops the server afterwards, also when measuring fails. */
async function stopAfter<T>(server: { stop(): Promise<void> }, measure: () => Promise<T>): Promise<T> {
  try {
    return await measure();
  } finally {
    await server.stop();
  }
}

/** The SQLite figures (everything but the PostgreSQL section). */
async function sqliteBench() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-bench-'));
  process.stdout.write(
    `Hoglet bench: each HTTP figure and its bare baseline in ${SLICES} alternating slices of ${sliceSeconds(SECONDS)}s, ${CONNECTIONS} connections, load from ${LOAD_CLIENT} (a set rate: independent arrivals from ${OPEN_LOAD_CLIENT}), ${os.cpus().length} cores, SQLite\n\n`,
  );
  try {
    // Start to serving and resident memory, idle and under capture load (footprint.ts), first: on
    // a machine nothing of this run has loaded yet.
    process.stdout.write(`${footprintText(await footprint(Math.max(SECONDS * 2, 10)))}\n`);
    // The web app's JavaScript for its first pages (web-size.ts), gzipped as served.
    process.stdout.write(`${webSizeText(await webSizes())}\n`);

    const rawInserts = rawSqliteInsertsPerSecond(dir);
    const raw = { name: 'raw SQLite insert loop', value: rawInserts, unit: 'rows/s' };

    const env = {
      DATA_DIR: path.join(dir, 'hoglet'),
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      INGESTION_WORKER: 'off',
      HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
    };
    const hoglet = await spawnHoglet([], { ...env, LOG_LEVEL: 'info' });
    const bare = await stopOnFailure(hoglet, () => spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/ }));
    const { token, decide, capture, bareCapture, batch, bareBatch } = await stopAfter(hoglet, () =>
      stopAfter(bare, async () => {
        const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
          results: Array<{ id: number; api_token: string }>;
        };
        const token = projects.results[0]!.api_token;
        await createMixedFlags(hoglet.url, KEY, projects.results[0]!.id, token);
        // The server runs no worker here (capture's queue is drained and timed below): process the
        // $groupidentify that creates the group type now, so the group flags really evaluate.
        await processQueued(env.DATA_DIR);
        await loadDecide(hoglet.url, token, CONNECTIONS, 1, hoglet.child.pid); // warm-up
        // Each figure and its bare baseline in alternating slices (harness.ts interleaved).
        const bareLoad = (route: string, body: string) => (seconds: number) =>
          load({ url: `${bare.url}${route}`, body, connections: CONNECTIONS, seconds, serverPid: bare.child.pid });
        // Saturated, then at half that rate (bench/decide.ts).
        const decide = await measureDecide(hoglet, bare, token, SECONDS, CONNECTIONS);
        const captureFigure = await interleaved(
          SECONDS,
          (seconds) =>
            load({
              url: `${hoglet.url}/capture/`,
              body: captureBody(token),
              connections: CONNECTIONS,
              seconds,
              serverPid: hoglet.child.pid,
            }),
          bareLoad('/capture/', captureBody(sameLengthToken(token))),
        );
        const batchFigure = await interleaved(
          SECONDS,
          (seconds) =>
            load({ url: `${hoglet.url}/batch/`, body: batchBody(token), connections: CONNECTIONS, seconds, serverPid: hoglet.child.pid }),
          bareLoad('/batch/', batchBody(sameLengthToken(token))),
        );
        return {
          token,
          decide,
          capture: captureFigure.measured,
          bareCapture: captureFigure.baseline,
          batch: batchFigure.measured,
          bareBatch: batchFigure.baseline,
        };
      }),
    );

    // Decide again with one server process per core (HTTP_PROCESSES), on the same database, beside
    // the bare endpoint served from as many processes (node's cluster module): the like-for-like
    // baseline for that figure.
    const clusterDecide = await measureClusterDecide({ ...env, LOG_LEVEL: 'info' }, token, os.availableParallelism(), SECONDS, CONNECTIONS);

    const bareLine = { name: 'bare fastify', value: bareCapture.requestsPerSecond, unit: 'req/s' };
    report('capture, single event', capture.requestsPerSecond, 'req/s', bareLine, '>= 0.75');
    process.stdout.write(`${''.padEnd(44)} p99 ${fmtMs(capture.p99)} ms (bare ${fmtMs(bareCapture.p99)} ms), non-2xx ${capture.non2xx}\n`);
    process.stdout.write(
      `${''.padEnd(44)} per server CPU second: ${fmt(capture.requestsPerCpuSecond)} (bare ${fmt(bareCapture.requestsPerCpuSecond)}), ratio ${(capture.requestsPerCpuSecond / bareCapture.requestsPerCpuSecond).toFixed(2)}\n`,
    );
    report(
      'batch, 100 events per request',
      batch.requestsPerSecond * 100,
      'events/s',
      { name: 'bare fastify', value: bareBatch.requestsPerSecond * 100, unit: 'events/s' },
      '150,000 events/s',
    );
    process.stdout.write(`${''.padEnd(44)} p99 ${fmtMs(batch.p99)} ms (bare ${fmtMs(bareBatch.p99)} ms), non-2xx ${batch.non2xx}\n`);
    process.stdout.write(`${''.padEnd(44)} per server CPU second: ${fmt(batch.requestsPerCpuSecond * 100)} events\n`);

    process.stdout.write(decideText(decide, clusterDecide));

    // The worker on what capture queued above (comparable with earlier runs of this bench).
    // Each worker figure beside its storage floor: the rows it stored, written again raw
    // (storage-floor.ts), a baseline no processing can beat.
    process.stdout.write(`${'raw SQLite insert loop (small rows)'.padEnd(44)} ${fmt(raw.value).padStart(10)} ${raw.unit}\n`);
    const leftovers = await drainExisting(env.DATA_DIR, Math.max(SECONDS * 2, 10));
    report("worker, capture's queue", leftovers.eventsPerSecond, 'events/s', floorLine(leftovers), '50,000 events/s');
    process.stdout.write(
      `${''.padEnd(44)} ${fmt(leftovers.processed)} of ${fmt(leftovers.queued)} queued events in ${leftovers.seconds.toFixed(1)} s; ${fmt(leftovers.eventsPerCpuSecond)} per CPU second${cpuPerEventText(leftovers)}\n`,
    );
    process.stdout.write(`${''.padEnd(44)} ${floorText(leftovers.floor!)}\n`);

    // The worker on a realistic stream (bench/workload.ts): browsing, sign-ups that merge persons,
    // $set, groups and personless events over thousands of visitors, on fresh storage. The
    // capture figures above queue only a hundred repeating users, which flatters person caching.
    const figure = await workerBench({ events: Number(process.env.BENCH_WORKER_EVENTS ?? 50_000), maxSeconds: Math.max(SECONDS * 2, 10) });
    report('worker, realistic workload', figure.eventsPerSecond, 'events/s', floorLine(figure), '50,000 events/s');
    process.stdout.write(
      `${''.padEnd(44)} ${fmt(figure.processed)} of ${fmt(figure.queued)} queued events in ${figure.seconds.toFixed(1)} s; ${fmt(figure.eventsPerCpuSecond)} per CPU second${cpuPerEventText(figure)}\n`,
    );
    process.stdout.write(`${''.padEnd(44)} ${floorText(figure.floor!)}\n`);

    // Capture while the inline worker drains a backlog (BENCH_DRAIN_EVENTS, a million by default),
    // beside the same server at the same offered rate with nothing queued.
    const drainRate = Number(process.env.BENCH_DRAIN_RATE ?? 1000);
    const drain = await captureDuringDrain({
      events: Number(process.env.BENCH_DRAIN_EVENTS ?? 1_000_000),
      seconds: SECONDS,
      rate: drainRate,
      connections: 10,
    });
    process.stdout.write(drainLatencyText(drain, drainRate));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The PostgreSQL section (bench/postgres-bench.ts) at DATABASE_URL or the test suite's database:
 * with `--postgres` it must be there; by default a run without it says so and ends.
 */
async function postgresSection(required: boolean) {
  const url = benchPostgresUrl();
  const reached = await postgresVersion(url);
  if ('error' in reached) {
    const message = `PostgreSQL not reachable at ${describeUrl(url)} (${reached.error}): no PostgreSQL figures (set DATABASE_URL)`;
    if (required) throw new Error(message);
    process.stdout.write(`\n${message}\n`);
    return;
  }
  await postgresBench({ url, version: reached.version, seconds: SECONDS, connections: CONNECTIONS });
}

/**
 * `npm run bench:analytics` (a million events through the worker into the engine, then the charts
 * and pages on them), as its own process: it is a script of its own, and its server and engine are
 * gone before the figures are read.
 */
async function analyticsSection(): Promise<void> {
  process.stdout.write('\n');
  const script = fileURLToPath(new URL(`./analytics${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, script], { stdio: 'inherit' });
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`the analytics section failed (${signal ?? `exit ${code}`})`);
}

const sections = benchSections(process.argv.slice(2));
noteUnlessServerNodeOptions();
if (sections.sqlite) await sqliteBench();
if (sections.postgres !== 'off') await postgresSection(sections.postgres === 'required');
if (sections.analytics) await analyticsSection();
