import { execFile, spawnSync } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import type { LoadOptions, Measured } from './load-types.js';
import { LatencyRecorder } from './latency-recorder.js';

/** The closed-loop clients of harness.ts `load`: as many requests as the server answers, on every connection. */

const execFileAsync = promisify(execFile);

export type LoadClient = 'wrk' | 'autocannon';

/**
 * The load generator: wrk when it is installed (`apt-get install wrk`), else autocannon;
 * BENCH_CLIENT=wrk|autocannon chooses. On a two-core machine the client shares the cores with the
 * server, and wrk (C, one thread) costs a fraction of autocannon's CPU per request, so the server's
 * figure depends less on the client. Both sides of a ratio are always measured with the same one.
 */
export const LOAD_CLIENT: LoadClient = (() => {
  const chosen = process.env.BENCH_CLIENT;
  if (chosen === 'wrk' || chosen === 'autocannon') return chosen;
  return spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error ? 'autocannon' : 'wrk';
})();

/** bench/wrk-requests.lua in the checkout (compiled, this file is in dist/bench/). */
const WRK_SCRIPT = fileURLToPath(
  new URL(import.meta.url.endsWith('.js') ? '../../bench/wrk-requests.lua' : 'wrk-requests.lua', import.meta.url),
);

/**
 * autocannon's own latency histogram holds whole milliseconds (latency-recorder.ts): its figures
 * are read from each answer's latency as it reports it (process.hrtime, a float) instead.
 */
export async function loadWithAutocannon(options: LoadOptions): Promise<Measured> {
  const bodies = options.bodies;
  let n = 0;
  const latencies = new LatencyRecorder();
  const run = autocannon({
    url: options.url,
    method: options.method ?? 'POST',
    headers: { 'content-type': 'application/json' },
    connections: options.connections ?? 50,
    duration: options.seconds ?? 5,
    pipelining: 1,
    ...(bodies
      ? { requests: [{ setupRequest: (request) => ({ ...request, body: bodies[n++ % bodies.length] }) }] }
      : { body: options.body }),
  });
  // Typed as a promise alone, it is autocannon's tracker too, whose 'response' events carry each latency.
  (run as unknown as EventEmitter).on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.record(ms));
  const result = await run;
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: latencies.percentile(50),
    p90: latencies.percentile(90),
    p99: latencies.percentile(99),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export async function loadWithWrk(options: LoadOptions): Promise<Measured> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-wrk-'));
  try {
    const file = path.join(dir, 'bodies.txt');
    fs.writeFileSync(file, `${(options.bodies ?? [options.body ?? '']).join('\n')}\n`);
    const connections = options.connections ?? 50;
    const args = [
      '-t1',
      `-c${connections}`,
      `-d${options.seconds ?? 5}s`,
      '--timeout',
      '10s',
      '-s',
      WRK_SCRIPT,
      options.url,
      '--',
      file,
      options.method ?? 'POST',
    ];
    const { stdout } = await execFileAsync('wrk', args, { maxBuffer: 1 << 20 });
    const line = stdout.trim().split('\n').at(-1)!;
    const r = JSON.parse(line) as {
      requests: number;
      micros: number;
      p50: number;
      p90: number;
      p99: number;
      non2xx: number;
      errors: number;
    };
    return {
      requestsPerSecond: r.requests / (r.micros / 1e6),
      total: r.requests,
      p50: r.p50,
      p90: r.p90,
      p99: r.p99,
      non2xx: r.non2xx,
      errors: r.errors,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
