/**
 * Only the decide figure, for working on it: `node --import tsx bench/decide-only.ts`.
 * BENCH_CPU_PROFILE=dir writes the server's V8 CPU profile there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createMixedFlags, loadDecide } from './decide.js';
import { fmt, interleaved, load, spawnHoglet, spawnServer } from './harness.js';
import { drainExisting } from './worker-bench.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-bench-'));
const profile = process.env.BENCH_CPU_PROFILE;
// Here it names the server's profile directory; worker-bench (drainExisting, below) reads the same
// variable as a file for its own profile, which is not wanted here.
delete process.env.BENCH_CPU_PROFILE;
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
const nodeArgs = [
  ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
  ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []),
];
const hoglet = await spawnHoglet(nodeArgs, env);
try {
  const projects = (await (await fetch(`${hoglet.url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
    results: Array<{ id: number; api_token: string }>;
  };
  const token = projects.results[0]!.api_token;
  if (process.env.BENCH_NO_FLAGS !== '1') await createMixedFlags(hoglet.url, KEY, projects.results[0]!.id, token);
  await drainExisting(env.DATA_DIR, 10); // the $groupidentify creating the group type, so group flags evaluate
  await loadDecide(hoglet.url, token, 50, 1, hoglet.child.pid); // warm-up
  const bare = await spawnServer('bench/bare-server.ts', { pattern: /listening (http:\/\/\S+)/ });
  // In alternating slices, as npm run bench measures it (harness.ts interleaved).
  const { measured: decide, baseline: bareDecide } = await interleaved(
    SECONDS,
    (seconds) => loadDecide(hoglet.url, token, 50, seconds, hoglet.child.pid),
    (seconds) =>
      load({
        url: `${bare.url}/decide/`,
        body: JSON.stringify({ api_key: token, distinct_id: 'bench-user-1' }),
        seconds,
        serverPid: bare.child.pid,
      }),
  ).finally(() => bare.stop());
  process.stdout.write(
    `decide ${fmt(decide.requestsPerSecond)} req/s p99 ${decide.p99} ms, ${fmt(decide.requestsPerCpuSecond)}/cpu-s | bare ${fmt(bareDecide.requestsPerSecond)} req/s p99 ${bareDecide.p99} ms, ${fmt(bareDecide.requestsPerCpuSecond)}/cpu-s | ratio ${(decide.requestsPerSecond / bareDecide.requestsPerSecond).toFixed(2)}, non-2xx ${decide.non2xx}\n`,
  );
} finally {
  await hoglet.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
