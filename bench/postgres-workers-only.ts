/**
 * The worker rounds of the PostgreSQL section alone (bench/postgres-bench.ts), without capture,
 * batch and decide: a minute or two instead of six, for working on the worker.
 * `node dist/bench/postgres-workers-only.js` (after `node scripts/build.mjs`), on DATABASE_URL or
 * the test suite's database; BENCH_PG_WORKER_EVENTS (50,000), BENCH_PG_WARMUP_EVENTS (10,000: the
 * untimed stream the workers drain first), BENCH_PG_WORKER_COUNTS (`1,2`;
 * the first must be 1), BENCH_PG_DRAIN_SECONDS (120). BENCH_WORKER_CPU_PROFILE=<dir> writes a CPU
 * profile of each worker process there (`--cpu-prof`); BENCH_WORKER_NODE_ARGS, node options for the
 * worker processes after the usual ones (`--max-semi-space-size=32`: the last one given wins).
 * BENCH_WORKER_TRACE=1 runs the workers at debug level and prints each one's round from its log.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnHoglet } from './harness.js';
import { benchPostgresUrl, freshDatabase, frontServerEnv, KEY, printWorkerLines } from './postgres-bench.js';
import { workerRounds } from './postgres-workers.js';

const events = Number(process.env.BENCH_PG_WORKER_EVENTS ?? 50_000);
const warmUpEvents = Number(process.env.BENCH_PG_WARMUP_EVENTS ?? 10_000);
const counts = (process.env.BENCH_PG_WORKER_COUNTS ?? '1,2').split(',').map(Number);
const drainSeconds = Number(process.env.BENCH_PG_DRAIN_SECONDS ?? 120);
const profileDir = process.env.BENCH_WORKER_CPU_PROFILE;
// Node options for the worker processes after the server's, which they override (A/B of a V8 setting).
const workerNodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

const database = await freshDatabase(benchPostgresUrl());
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-pg-workers-'));
try {
  const env = frontServerEnv(dir, database.url);
  const hoglet = await spawnHoglet([], env);
  try {
    const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      results: Array<{ api_token: string }>;
    };
    const { drains, workerFloor } = await workerRounds({
      url: database.url,
      serverUrl: hoglet.url,
      serverPid: hoglet.child.pid,
      token: projects.results[0]!.api_token,
      env: { ...env, LOG_LEVEL: 'warn' },
      nodeArgs: [...workerNodeArgs, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : [])],
      events,
      warmUpEvents,
      counts,
      drainSeconds,
    });
    printWorkerLines(drains, workerFloor, events);
  } finally {
    await hoglet.stop();
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
  await database.drop();
}
