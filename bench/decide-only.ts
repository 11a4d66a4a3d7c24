/**
 * Only the decide figures, for working on them: `npm run build && node dist/bench/decide-only.js`
 * (or `node --import tsx bench/decide-only.ts`). As `npm run bench` prints them: saturated and at
 * half that rate in one process, then with HTTP_PROCESSES = cores (BENCH_DECIDE_CLUSTER=0 skips
 * it), each beside bare fastify measured in the same run and beside its target.
 * BENCH_CPU_PROFILE=dir writes the one-process server's V8 CPU profile there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMixedFlags, decideText, loadDecide, measureClusterDecide, measureDecide, processQueued } from './decide.js';
import { spawnHoglet, spawnServer } from './harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;
const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-bench-'));
const profile = process.env.BENCH_CPU_PROFILE;
const env = {
  DATA_DIR: path.join(dir, 'hoglet'),
  DATABASE_URL: '',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  INGESTION_WORKER: 'off',
  HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
  HTTP_PROCESSES: '1',
};
const nodeArgs = [
  ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
];
try {
  const hoglet = await spawnHoglet(nodeArgs, env);
  let token: string;
  let figures;
  try {
    const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      results: Array<{ id: number; api_token: string }>;
    };
    token = projects.results[0]!.api_token;
    if (process.env.BENCH_NO_FLAGS !== '1') await createMixedFlags(hoglet.url, KEY, projects.results[0]!.id, token);
    await processQueued(env.DATA_DIR);
    await loadDecide(hoglet.url, token, CONNECTIONS, 1, hoglet.child.pid); // warm-up
    const bare = await spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/ });
    try {
      figures = await measureDecide(hoglet, bare, token, SECONDS, CONNECTIONS);
    } finally {
      await bare.stop();
    }
  } finally {
    await hoglet.stop();
  }
  const cluster =
    process.env.BENCH_DECIDE_CLUSTER === '0'
      ? undefined
      : await measureClusterDecide(env, token, os.availableParallelism(), SECONDS, CONNECTIONS);
  process.stdout.write(decideText(figures, cluster));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
