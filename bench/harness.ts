import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOAD_CLIENT, loadWithAutocannon, loadWithWrk } from './closed-load.js';
import { environmentOf, nodeOptionsOf } from './node-options.js';
import { h2loadInstalled, h2loadOpenLoad } from './h2load.js';
import { openLoad } from './open-load.js';
import type { LoadOptions, LoadResult, Measured, OpenLoadClient } from './load-types.js';

/**
 * The benchmarks run compiled (`npm run bench`: dist/bench, built with the server by
 * scripts/build.mjs) or as TypeScript through tsx (`node --import tsx bench/…` by hand). Either
 * way they start the server the same way they run, so what runs is what is measured.
 */
const COMPILED = import.meta.url.endsWith('.js');

/** The checkout's root (compiled, this file is in dist/bench/). */
export const ROOT = fileURLToPath(new URL(COMPILED ? '../../' : '../', import.meta.url));

export interface Child {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * The node options `npm start` runs the server with (package.json's start script, before
 * `--import`), so that a benchmarked server runs as it is deployed. Bare baselines get them too:
 * a ratio compares the code, not the settings.
 */
const START_SCRIPT = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
export const SERVER_NODE_OPTIONS: readonly string[] = nodeOptionsOf(START_SCRIPT);
/** The environment `npm start` gives node (MALLOC_ARENA_MAX), for the same reason. */
export const SERVER_ENVIRONMENT: Readonly<Record<string, string>> = environmentOf(START_SCRIPT);

/**
 * Figures measured in this process (the worker's, decide's handler) run with this process's node
 * options: started without the server's (`node --import tsx bench/…` by hand), they measure
 * another setting than the deployed one. Says so on stderr.
 */
export function noteUnlessServerNodeOptions(): void {
  const given = [...(process.env.NODE_OPTIONS?.split(/\s+/) ?? []), ...process.execArgv];
  const missing = SERVER_NODE_OPTIONS.filter((option) => !given.includes(option));
  if (missing.length > 0)
    process.stderr.write(
      `note: this process runs without the server's node options (${missing.join(' ')}); its in-process figures differ from a deployed server's\n`,
    );
}

/**
 * How node runs `entry` (a TypeScript file of the checkout at `cwd`): its compiled file when this
 * benchmark runs compiled and the checkout has one (another checkout may not be built: it runs
 * through tsx then), else the TypeScript through tsx.
 */
export function entryArguments(entry: string, cwd: string): string[] {
  const compiled = path.join('dist', entry.replace(/\.ts$/, '.js'));
  return COMPILED && fs.existsSync(path.join(cwd, compiled)) ? [compiled] : ['--import', 'tsx', entry];
}

/**
 * Starts an entry point (a TypeScript path: see entryArguments) as a child process, with
 * SERVER_NODE_OPTIONS, `nodeArgs` and then `args`, and waits for the URL it prints. `cwd` runs
 * another checkout's code (bench/capture-only.ts compares against one).
 */
export async function spawnServer(
  entry: string,
  options: { env?: Record<string, string>; pattern: RegExp; nodeArgs?: string[]; args?: string[]; cwd?: string; cpus?: string },
): Promise<Child> {
  const { env = {}, pattern, nodeArgs = [], args = [], cwd = ROOT, cpus } = options;
  const command = [...SERVER_NODE_OPTIONS, ...nodeArgs, ...entryArguments(entry, cwd), ...args];
  // taskset execs node in place, so the child's pid (read for its CPU time) stays the server's.
  const [file, argv] = cpus === undefined ? [process.execPath, command] : ['taskset', ['-c', cpus, process.execPath, ...command]];
  const child = spawn(file, argv, {
    cwd,
    env: { ...process.env, ...SERVER_ENVIRONMENT, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      text += d.toString();
      const m = text.match(pattern);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${command.join(' ')} exited ${code}:\n${text}`)));
  });
  return {
    url,
    child,
    output: () => text,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Milliseconds until the child's output has `text` (a log line), or NaN when it has not after `timeoutMs`. */
export async function waitForOutput(child: Child, text: string, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!child.output().includes(text)) {
    if (performance.now() - started > timeoutMs) return NaN;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return performance.now() - started;
}

/**
 * Starts `hoglet serve` (args may add node options before the entry point) and waits until it
 * serves: with HTTP_PROCESSES > 1, until the cluster supervisor says all its processes are ready.
 */
export function spawnHoglet(nodeArgs: string[], env: Record<string, string>, cwd = ROOT, cpus?: string): Promise<Child> {
  const ready =
    (env.HTTP_PROCESSES ?? '1') === '1'
      ? /"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/
      : /"url":"(http:\/\/[^"]+)"[^\n]*hoglet cluster ready/;
  return spawnServer('src/cli/main.ts', { env, pattern: ready, nodeArgs, args: ['serve'], cwd, cpus });
}

/**
 * Separate cores for the servers and the load generator (BENCH_PIN=1, bench/decide-only.ts): on
 * a machine the two share, the generator's own stalls and their threads' contention end up in
 * the latencies measured, on both sides of a ratio but not alike. Servers get CPU 0; this process,
 * its threads (every one, the pacer's included: `-a`) and the clients it starts get the others.
 * Undefined (nothing pinned) on one core or without taskset.
 */
export function pinLoadGenerator(): { serverCpus: string } | undefined {
  const cores = os.availableParallelism();
  if (cores < 2) return undefined;
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', cores === 2 ? '1' : `1-${cores - 1}`, String(process.pid)], { stdio: 'ignore' });
  return pinned.error || pinned.status !== 0 ? undefined : { serverCpus: '0' };
}

function ownCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** The ids of a process's living children (Linux). */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU seconds (user + system) a process and its living children have used so far, from /proc
 * (Linux); NaN elsewhere. The children count for HTTP_PROCESSES > 1, where the server processes
 * are children of a supervisor.
 */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    return ownCpuSeconds(pid) + childrenOf(pid).reduce((sum, child) => sum + cpuSecondsOf(child), 0);
  } catch {
    return NaN;
  }
}

/**
 * The client of a set rate: h2load (bench/h2load.ts, C) when `h2load --version` runs
 * (`apt-get install nghttp2-client`), else bench/open-load.ts (JavaScript, whose own pauses reach
 * the tail it reads on a shared two-core machine); BENCH_OPEN_CLIENT=h2load|node chooses.
 */
export const OPEN_LOAD_CLIENT: OpenLoadClient = (() => {
  const chosen = process.env.BENCH_OPEN_CLIENT;
  if (chosen === 'h2load' || chosen === 'node') return chosen;
  return h2loadInstalled() ? 'h2load' : 'node';
})();

/**
 * Drives one URL: as fast as it answers with the load client, or at `rate` with independent
 * arrivals (OPEN_LOAD_CLIENT). Returns mean requests/s and latency percentiles in ms, to the
 * microsecond (a float: print with fmtMs).
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const cpuBefore = cpuSecondsOf(options.serverPid);
  const measured = options.rate
    ? await loadAtRate(options, options.rate)
    : LOAD_CLIENT === 'wrk'
      ? await loadWithWrk(options)
      : await loadWithAutocannon(options);
  const cpu = cpuSecondsOf(options.serverPid) - cpuBefore;
  return { ...measured, requestsPerCpuSecond: measured.total / cpu };
}

/** How many slices each side of an interleaved figure is measured in (BENCH_SLICES). */
export const SLICES = Math.max(1, Number(process.env.BENCH_SLICES ?? 3));

/** The length of one slice when a side is measured for `seconds` in all: whole seconds (wrk takes no fractions). */
export function sliceSeconds(seconds: number): number {
  return Math.max(1, Math.round(seconds / SLICES));
}

/**
 * A figure and its baseline measured in alternating slices (Hoglet, bare, Hoglet, bare, …), each
 * side about `seconds` in all. The machines are shared, and a neighbour's load comes and goes
 * over minutes: measured one after the other, the two sides of a ratio met different machines
 * (seen: a capture ratio of 1.35 when the load rose between them). Each side's slices are then
 * combined: requests/s and requests per CPU second over all its slices, p99 the median of the
 * slices' p99.
 */
export async function interleaved(
  seconds: number,
  measured: (seconds: number) => Promise<LoadResult>,
  baseline: (seconds: number) => Promise<LoadResult>,
): Promise<{ measured: LoadResult; baseline: LoadResult }> {
  const slice = sliceSeconds(seconds);
  const sides: [LoadResult[], LoadResult[]] = [[], []];
  for (let i = 0; i < SLICES; i++) {
    sides[0].push(await measured(slice));
    sides[1].push(await baseline(slice));
  }
  return { measured: combined(sides[0]), baseline: combined(sides[1]) };
}

/** Slices of equal length as one result (see interleaved). */
function combined(slices: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => slices.reduce((total, r) => total + pick(r), 0);
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const requestsPerSecond = sum((r) => r.requestsPerSecond) / slices.length;
  // Each slice's requests over its CPU seconds; a slice's requests are its rate times its (equal) length.
  const cpuPerRequestTotal = sum((r) => r.requestsPerSecond / r.requestsPerCpuSecond);
  return {
    requestsPerSecond,
    requestsPerCpuSecond: sum((r) => r.requestsPerSecond) / cpuPerRequestTotal,
    p50: median(slices.map((r) => r.p50)),
    p90: median(slices.map((r) => r.p90)),
    p99: median(slices.map((r) => r.p99)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    ...(slices.every((r) => r.lateSendP99 !== undefined) ? { lateSendP99: median(slices.map((r) => r.lateSendP99!)) } : {}),
    ...(slices.every((r) => r.p99FromDue !== undefined) ? { p99FromDue: median(slices.map((r) => r.p99FromDue!)) } : {}),
  };
}

async function loadAtRate(options: LoadOptions, rate: number): Promise<Measured> {
  const open = {
    url: options.url,
    method: options.method ?? 'POST',
    bodies: options.bodies ?? [options.body ?? ''],
    rate,
    seconds: options.seconds ?? 5,
    connections: options.connections ?? 50,
  } as const;
  if ((options.openClient ?? OPEN_LOAD_CLIENT) === 'h2load') {
    const { latencies: _, connections: __, ...measured } = await h2loadOpenLoad(open);
    return measured;
  }
  const { latencies: _, ...measured } = await openLoad(open);
  return measured;
}

export { LOAD_CLIENT, type LoadClient } from './closed-load.js';
export type { LoadOptions, LoadResult, Measured, OpenLoadClient } from './load-types.js';
export { fmtMs } from './latency-recorder.js';

export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** One line per figure: the measurement, its baseline from the same run, and the ratio. */
export function report(
  name: string,
  value: number,
  unit: string,
  baseline: { name: string; value: number; unit: string },
  target?: string,
) {
  const ratio = value / baseline.value;
  process.stdout.write(
    `${name.padEnd(44)} ${fmt(value).padStart(10)} ${unit.padEnd(10)} | ${baseline.name} ${fmt(baseline.value)} ${baseline.unit} | ratio ${ratio.toFixed(2)}${target ? ` | target ${target}` : ''}\n`,
  );
}
