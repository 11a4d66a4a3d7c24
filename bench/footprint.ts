/**
 * How fast the server starts and how much memory it holds, each beside its target (docs/
 * benchmarks.md): the time from starting `npm start`'s command on an empty data dir (dist/ up to date,
 * so nothing is built) until /_health answers; the resident memory of its process tree once the
 * start settled (GeoIP loaded); and the same under sustained capture load. Run by
 * `npm run bench`, or alone: `npm run build && node dist/bench/footprint.js`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { batchBody } from './bodies.js';
import { cpuSecondsOf, fmt, load, ROOT } from './harness.js';
import { environmentOf } from './node-options.js';

const KEY = 'phx_footprint0123456789abcdefghijklmnopqrstuvw';
const START_RUNS = Math.max(1, Number(process.env.BENCH_START_RUNS ?? 5));

/** `npm start`'s script (package.json). */
function startScript(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
}

/** `npm start`'s command line (package.json), as npm's shell runs it: node's arguments. */
function startCommand(): string[] {
  const words = startScript().trim().split(/\s+/);
  const node = words.indexOf('node');
  if (node === -1) throw new Error(`npm start does not run node: ${startScript()}`);
  return words.slice(node + 1);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resident memory of a process and its living descendants, in bytes (Linux; NaN elsewhere). */
export function treeRss(pid: number): number {
  let total: number;
  try {
    total = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  } catch {
    return process.platform === 'linux' ? 0 : NaN; // gone meanwhile, or no /proc
  }
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // gone meanwhile
  }
  for (const child of children) total += treeRss(child);
  return total;
}

interface Started {
  child: ChildProcess;
  url: string;
  /** From spawning the command to the first answer of /_health, in ms. */
  servingAfterMs: number;
  /** CPU the server used until then, in ms: steadier than the time on a shared machine. */
  servingCpuMs: number;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `npm start`'s command on an empty data dir and polls /_health until it answers. */
async function startServer(env: Record<string, string>): Promise<Started> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-footprint-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, startCommand(), {
    cwd: ROOT,
    env: {
      ...process.env,
      ...environmentOf(startScript()),
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`the server exited before it served:\n${text}`);
    }
    const healthy = await fetch(`${url}/_health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const servingAfterMs = performance.now() - started;
  return { child, url, servingAfterMs, servingCpuMs: cpuSecondsOf(child.pid) * 1000, output: () => text, stop };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Samples a process tree's RSS every `everyMs` while `during` runs; the samples in bytes. */
async function sampleRss<T>(pid: number, everyMs: number, during: () => Promise<T>): Promise<{ result: T; samples: number[] }> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(treeRss(pid)), everyMs);
  try {
    return { result: await during(), samples };
  } finally {
    clearInterval(timer);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
};
const mb = (bytes: number) => `${fmt(bytes / 1048576)} MB`;

function line(name: string, value: string, target: string, detail = ''): string {
  return `${name.padEnd(44)} ${value.padStart(10)} | target ${target}${detail ? ` | ${detail}` : ''}\n`;
}

export interface Footprint {
  startMs: number[];
  startCpuMs: number[];
  idleRss: number;
  loadRss: { peak: number; median: number; eventsPerSecond: number; seconds: number };
}

/** The three figures; `loadSeconds` of capture load (batches of 100 events, 50 connections). */
export async function footprint(loadSeconds: number): Promise<Footprint> {
  // Nothing may be left to build: what is measured is a start with dist/ and web/dist/ up to date.
  const build = (await import(pathToFileURL(path.join(ROOT, 'scripts/build.mjs')).href)) as { buildIfStale(): Promise<boolean> };
  await build.buildIfStale();
  const buildWeb = (await import(pathToFileURL(path.join(ROOT, 'scripts/build-web.mjs')).href)) as { buildWebIfStale(): Promise<boolean> };
  await buildWeb.buildWebIfStale();

  const startMs: number[] = [];
  const startCpuMs: number[] = [];
  for (let i = 0; i < START_RUNS - 1; i++) {
    const server = await startServer({});
    startMs.push(server.servingAfterMs);
    startCpuMs.push(server.servingCpuMs);
    await server.stop();
  }
  const server = await startServer({});
  startMs.push(server.servingAfterMs);
  startCpuMs.push(server.servingCpuMs);
  try {
    // Settled: GeoIP loaded, then a few seconds for what the start left to the collector.
    await until(() => /geoip ready|geoip off|GeoIP database unavailable/.test(server.output()), 60_000);
    const { samples: idle } = await sampleRss(server.child.pid!, 250, () => new Promise((resolve) => setTimeout(resolve, 4000)));
    const idleRss = median(idle.slice(idle.length >> 1));

    const headers = { authorization: `Bearer ${KEY}` };
    const projects = (await (await fetch(`${server.url}/api/projects/`, { headers })).json()) as { results: Array<{ api_token: string }> };
    const token = projects.results[0]!.api_token;
    const { result, samples } = await sampleRss(server.child.pid!, 250, () =>
      load({ url: `${server.url}/batch/`, body: batchBody(token), connections: 50, seconds: loadSeconds, serverPid: server.child.pid }),
    );
    return {
      startMs,
      startCpuMs,
      idleRss,
      loadRss: {
        peak: Math.max(...samples),
        median: median(samples.slice(samples.length >> 1)),
        eventsPerSecond: result.requestsPerSecond * 100,
        seconds: loadSeconds,
      },
    };
  } finally {
    await server.stop();
  }
}

export function footprintText(figure: Footprint): string {
  const runs = figure.startMs.map((ms) => fmt(ms)).join(', ');
  return (
    line(
      "start to serving (npm start's command)",
      `${fmt(median(figure.startMs))} ms`,
      '< 1,000 ms',
      `median of ${figure.startMs.length} starts on an empty data dir, dist/ up to date: ${runs} ms`,
    ) +
    `${''.padEnd(44)} CPU the server used until it served: median ${fmt(median(figure.startCpuMs))} ms (${figure.startCpuMs.map((ms) => fmt(ms)).join(', ')})\n` +
    line('idle RSS, process tree', mb(figure.idleRss), '< 200 MB', 'GeoIP loaded, start settled') +
    line(
      'RSS under capture load, process tree',
      mb(figure.loadRss.peak),
      '< 300 MB',
      `peak; median of the second half ${mb(figure.loadRss.median)}; /batch/ at ${fmt(figure.loadRss.eventsPerSecond)} events/s for ${figure.loadRss.seconds} s, inline worker`,
    )
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(footprintText(await footprint(Number(process.env.BENCH_SECONDS ?? 10))));
}
