/**
 * The server's memory under hostile traffic: tens of thousands of fuzzed requests (bombs, huge
 * strings, broken encodings, bench/fuzz-requests.ts) against a server process, its resident size
 * before, at its peak, right after, and a minute later, beside the target (back within 50 MB of
 * where it was before). Printed, never asserted: the collector's timing is not the code's.
 *
 * `node --heap-growing-percent=50 --max-semi-space-size=8 --import tsx bench/fuzz-memory.ts [requests]` (30,000 by default).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { apiRequest, fuzzable, prepareKnown, publicRequest, type FuzzRequest, type SetupCall } from './fuzz-requests.js';
import { Random } from './fuzz-values.js';
import { fmt, noteUnlessServerNodeOptions, spawnHoglet } from './harness.js';

const KEY = 'phx_fuzzmemory0123456789abcdefghijklmnopqrstuvw';
const PARALLEL = 6;
const MB = 1024 * 1024;

/** A process's resident set size in bytes (Linux), NaN elsewhere. */
function residentBytes(pid: number): number {
  try {
    const line = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The /api routes the fuzz may call, read from a server built in this process (it is closed at once). */
async function apiRoutes(): Promise<Array<{ method: string; url: string }>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-routes-'));
  const app = await startApp(loadConfig({ DATA_DIR: dir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', INGESTION_WORKER: 'off' }), {
    log: pino({ level: 'silent' }),
  });
  try {
    return app.app.routeTable.filter(fuzzable).map(({ method, url }) => ({ method, url }));
  } finally {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function send(url: string, request: FuzzRequest): Promise<number> {
  const headers: Record<string, string> = { ...request.headers };
  if (!request.anonymous) headers.authorization = `Bearer ${KEY}`;
  try {
    const res = await fetch(url + request.path, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

export interface FuzzMemory {
  requests: number;
  seconds: number;
  statuses: Map<number, number>;
  before: number;
  peak: number;
  after: number;
  minuteLater: number;
  /** The server's error lines, as logged. */
  errors: string[];
}

export async function fuzzMemory(requests: number, settleMs = 60_000): Promise<FuzzMemory> {
  const routes = await apiRoutes();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-fuzz-memory-'));
  const server = await spawnHoglet([], {
    DATA_DIR: dir,
    DATABASE_URL: '',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
  });
  const pid = server.child.pid!;
  try {
    const call: SetupCall = async (p, options) => {
      const res = await fetch(server.url + p, {
        method: options.method ?? 'GET',
        headers: { 'content-type': 'application/json', ...(options.anonymous ? {} : { authorization: `Bearer ${KEY}` }) },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const project = (await call('/api/projects/', {})).body.results[0] as { id: number; api_token: string };
    const settle = async () => {
      while ((await call(`/api/projects/${project.id}/persons/?distinct_id=fuzz-person`, {})).body.results.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const known = await prepareKnown(call, project.id, project.api_token, settle);
    // Settled: what the server holds once started and used a little.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const before = residentBytes(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 100);
    const random = new Random(2025);
    const statuses = new Map<number, number>();
    let sent = 0;
    const started = Date.now();
    const lane = async () => {
      while (sent < requests) {
        const n = ++sent;
        const request = random.chance(0.5) ? publicRequest(random, known) : apiRequest(random, known, routes);
        const status = await send(server.url, request);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (n % 5000 === 0)
          process.stderr.write(`  ${fmt(n)} of ${fmt(requests)} requests, resident ${(residentBytes(pid) / MB).toFixed(0)} MB\n`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, lane));
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    const after = residentBytes(pid);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    // What the server logged as errors (an answer of 500 is logged with its cause).
    const errors = server
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    return { requests, seconds, statuses, before, peak, after, minuteLater: residentBytes(pid), errors };
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function fuzzMemoryText(figure: FuzzMemory): string {
  const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
  const statuses = [...figure.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${fmt(n)}`)
    .join(', ');
  return (
    `${'resident size under fuzzed requests'.padEnd(44)} before ${mb(figure.before)}, peak ${mb(figure.peak)}, right after ${mb(figure.after)}, a minute later ${mb(figure.minuteLater)}\n` +
    `${''.padEnd(44)} a minute later minus before: ${mb(figure.minuteLater - figure.before)} (target: within 50 MB)\n` +
    `${''.padEnd(44)} ${fmt(figure.requests)} requests in ${figure.seconds.toFixed(1)} s; answers ${statuses}\n` +
    figure.errors
      .slice(0, 5)
      .map((line) => `${''.padEnd(44)} server error: ${line.slice(0, 600)}\n`)
      .join('')
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  noteUnlessServerNodeOptions();
  process.stdout.write(fuzzMemoryText(await fuzzMemory(Number(process.argv[2] ?? 30_000))));
}
