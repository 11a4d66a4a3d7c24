/**
 * Only the single-event capture figure, for working on it: `node --import tsx bench/capture-only.ts`.
 * BENCH_CPU_PROFILE=dir writes the server's V8 CPU profile there; BENCH_BASELINE_ROOT=dir also
 * measures another checkout of Hoglet (e.g. an export of the previous commit) in the same run.
 * Each server is warmed up for a second first. Figures per server CPU second are the ones to
 * compare on a shared machine. A profiled server answers some 500s that an unprofiled one does
 * not: the profiler's sampling signal cuts SQLite's busy-wait sleeps short (usleep returns early),
 * so a queue commit that meets a WAL restart spends its 5 s busy timeout in a fraction of that and
 * fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { batchBody, captureBody, sameLengthToken } from './bodies.js';
import { fmt, fmtMs, load, spawnHoglet, spawnServer, type LoadResult } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';
const profile = process.env.BENCH_CPU_PROFILE;
const baselineRoot = process.env.BENCH_BASELINE_ROOT;

// BENCH_PATH=batch measures /batch/ with 100 events a request instead.
const batch = process.env.BENCH_PATH === 'batch';
const endpoint = batch ? '/batch/' : '/capture/';
const body = batch ? batchBody : captureBody;

async function measureHoglet(cwd: string | undefined, withProfile: boolean): Promise<{ result: LoadResult; token: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-bench-'));
  const env = {
    DATA_DIR: path.join(dir, 'hoglet'),
    DATABASE_URL: '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    INGESTION_WORKER: 'off',
    HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
    HTTP_PROCESSES: process.env.HTTP_PROCESSES ?? '1',
  };
  const hoglet = await spawnHoglet(withProfile && profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [], env, cwd);
  try {
    const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      results: Array<{ api_token: string }>;
    };
    const token = projects.results[0]!.api_token;
    const options = { url: `${hoglet.url}${endpoint}`, body: body(token), serverPid: hoglet.child.pid };
    await load({ ...options, seconds: 1 }); // warm-up
    return { result: await load({ ...options, seconds: SECONDS }), token };
  } finally {
    await hoglet.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function line(name: string, r: LoadResult, bare: LoadResult) {
  process.stdout.write(
    `${name.padEnd(10)} ${fmt(r.requestsPerSecond).padStart(7)} req/s, ${fmt(r.requestsPerCpuSecond).padStart(7)}/cpu-s, p99 ${fmtMs(r.p99)} ms, non-2xx ${r.non2xx}` +
      ` | ratio to bare ${(r.requestsPerSecond / bare.requestsPerSecond).toFixed(2)}, per cpu-s ${(r.requestsPerCpuSecond / bare.requestsPerCpuSecond).toFixed(2)}\n`,
  );
}

const current = await measureHoglet(undefined, true);
const baseline = baselineRoot ? await measureHoglet(baselineRoot, false) : undefined;
const bareServer = await spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/ });
const bareOptions = { url: `${bareServer.url}${endpoint}`, body: body(sameLengthToken(current.token)), serverPid: bareServer.child.pid };
await load({ ...bareOptions, seconds: 1 });
const bare = await load({ ...bareOptions, seconds: SECONDS });
await bareServer.stop();
line('capture', current.result, bare);
if (baseline) line('baseline', baseline.result, bare);
line('bare', bare, bare);
