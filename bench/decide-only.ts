/**
 * Only the decide figures, for working on them: `npm run build && node dist/bench/decide-only.js`
 * (or `node --import tsx bench/decide-only.ts`). As `npm run bench` prints them: saturated and at
 * half that rate in one process, then with HTTP_PROCESSES = cores (BENCH_DECIDE_CLUSTER=0 skips
 * it), each beside bare fastify measured in the same run and beside its target.
 * BENCH_CPU_PROFILE=dir writes the one-process server's V8 CPU profile there. BENCH_DECIDE_FLOOR=1
 * also measures decide's floor (bench/decide-floor-server.ts: one of this run's answers sent back
 * without evaluating anything) beside bare fastify. BENCH_PIN=1 runs the servers on CPU 0 and this
 * process, the load generator, on the other cores (harness.ts pinLoadGenerator); the figure with
 * HTTP_PROCESSES = cores is left out then, as it needs every core.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMixedFlags, decideBodies, decideText, loadDecide, measureClusterDecide, measureDecide, processQueued } from './decide.js';
import { fmt, interleaved, load, pinLoadGenerator, spawnHoglet, spawnServer } from './harness.js';

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
const pin = process.env.BENCH_PIN === '1' ? pinLoadGenerator() : undefined;
if (process.env.BENCH_PIN === '1')
  process.stdout.write(
    pin ? 'servers pinned to CPU 0, the load generator to the others\n' : 'BENCH_PIN=1: not pinned (one core, or no taskset)\n',
  );
const cpus = pin?.serverCpus;
try {
  const hoglet = await spawnHoglet(nodeArgs, env, undefined, cpus);
  let token: string;
  let figures;
  let answer = '{}';
  try {
    const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      results: Array<{ id: number; api_token: string }>;
    };
    token = projects.results[0]!.api_token;
    if (process.env.BENCH_NO_FLAGS !== '1') await createMixedFlags(hoglet.url, KEY, projects.results[0]!.id, token);
    await processQueued(env.DATA_DIR);
    await loadDecide(hoglet.url, token, CONNECTIONS, 1, hoglet.child.pid); // warm-up
    const asked = await fetch(`${hoglet.url}/decide/?v=3`, { method: 'POST', body: decideBodies(token)[0] });
    answer = await asked.text();
    const bare = await spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/, cpus });
    try {
      figures = await measureDecide(hoglet, bare, token, SECONDS, CONNECTIONS);
    } finally {
      await bare.stop();
    }
  } finally {
    await hoglet.stop();
  }
  const cluster =
    process.env.BENCH_DECIDE_CLUSTER === '0' || pin
      ? undefined
      : await measureClusterDecide(env, token, os.availableParallelism(), SECONDS, CONNECTIONS);
  process.stdout.write(decideText(figures, cluster));
  if (process.env.BENCH_DECIDE_FLOOR === '1') process.stdout.write(await measureFloor(token, answer));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The floor (bench/decide-floor-server.ts) beside bare fastify, in alternating slices. */
async function measureFloor(token: string, answer: string): Promise<string> {
  const floor = await spawnServer('bench/decide-floor-server.ts', {
    env: { DECIDE_FLOOR_ANSWER: answer },
    pattern: /listening (http:\/\/\S+)/,
    cpus,
  });
  const bare = await spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/, cpus });
  try {
    const bodies = decideBodies(token);
    const body = JSON.stringify({ api_key: token, distinct_id: 'bench-user-1' });
    const { measured, baseline } = await interleaved(
      SECONDS,
      (seconds) => load({ url: `${floor.url}/decide/?v=3`, bodies, connections: CONNECTIONS, seconds, serverPid: floor.child.pid }),
      (seconds) => load({ url: `${bare.url}/decide/`, body, connections: CONNECTIONS, seconds, serverPid: bare.child.pid }),
    );
    return (
      `${'decide floor (no evaluation, same answer)'.padEnd(44)} ${fmt(measured.requestsPerSecond).padStart(10)} req/s      | bare fastify ${fmt(baseline.requestsPerSecond)} req/s | ratio ${(measured.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}\n` +
      `${''.padEnd(44)} per server CPU second: ${fmt(measured.requestsPerCpuSecond)} (bare ${fmt(baseline.requestsPerCpuSecond)}), ratio ${(measured.requestsPerCpuSecond / baseline.requestsPerCpuSecond).toFixed(2)}\n`
    );
  } finally {
    await bare.stop();
    await floor.stop();
  }
}
