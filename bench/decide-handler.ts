/**
 * Decide's own work without HTTP, for working on it:
 * `node --heap-growing-percent=50 --max-semi-space-size=8 --import tsx bench/decide-handler.ts` (the server's node options).
 * The /decide?v=3 handler (decode, evaluate the 50 flags of bench/decide.ts, write the answer) is
 * called in a loop in this process with the same 200 request bodies; it prints microseconds per
 * request for each round. On a shared machine this moves far less than the HTTP figure, whose
 * other half is node's HTTP server and the kernel (compare the two to see where a change lands).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { flagsRoutes } from '../src/sdk/flags/flags-routes.js';
import { IngestionWorker } from '../src/ingestion/worker/worker.js';
import { createMixedFlags, decideBodies } from './decide.js';
import { noteUnlessServerNodeOptions } from './harness.js';

noteUnlessServerNodeOptions();
const KEY = 'phx_bench0123456789abcdefghijklmnopqrstuvwxyzAB';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-bench-'));
const config = loadConfig({
  DATA_DIR: dir,
  DATABASE_URL: '',
  PORT: '0',
  HOST: '127.0.0.1',
  INGESTION_WORKER: 'off',
  HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
});
const running = await startApp(config, { log: pino({ level: 'silent' }) });
try {
  const team = running.bootstrap!.team;
  await createMixedFlags(running.url, KEY, team.projectId, team.apiToken);
  // The $groupidentify that creates the group type, so the group flags evaluate.
  const worker = new IngestionWorker(running.ctx.database, pino({ level: 'silent' }));
  await worker.drain();
  await worker.stop();
  const decide = flagsRoutes(running.ctx).find((route) => route.path === '/decide')!;
  const bodies = decideBodies(team.apiToken).map((body) => Buffer.from(body));
  let bytes = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    for (let n = 0; n < REQUESTS; n++) {
      const answer = await decide.handle({
        method: 'POST',
        query: { v: '3' },
        headers: { 'content-type': 'application/json' },
        body: bodies[n % bodies.length]!,
        ip: '127.0.0.1',
      });
      bytes += String(answer.body).length;
    }
    const micros = Number(process.hrtime.bigint() - started) / 1000 / REQUESTS;
    const used = process.cpuUsage(cpu);
    const cpuMicros = (used.user + used.system) / REQUESTS;
    // The process's CPU: steadier than wall time when neighbours take the cores (includes V8's collector threads).
    process.stdout.write(
      `round ${round}: ${micros.toFixed(2)} µs per request (decode, evaluate, answer), ${cpuMicros.toFixed(2)} µs of CPU\n`,
    );
  }
  if (bytes === 0) throw new Error('no answers');
} finally {
  await running.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
