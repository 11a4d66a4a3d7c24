import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LatencyRecorder } from './latency-recorder.js';
import type { OpenLoadOptions, OpenLoadResult } from './open-load.js';

/**
 * The native client of a set rate (harness.ts `load` with `rate`, BENCH_OPEN_CLIENT=h2load):
 * h2load of nghttp2 (`apt-get install nghttp2-client`), C on libev, speaking HTTP/1.1 (`--h1`).
 * bench/open-load.ts paces and times requests from JavaScript, and on two cores its own pauses
 * end up in the tail it reads (docs/benchmarks.md, 2026-11-30).
 *
 * h2load's pacing, as its source has it (src/h2load.cc, 1.52):
 * - `--rps=R` paces each client (connection) by a libev timer of period 1/R (10 ms at least),
 *   started when the client connects; each tick adds the sends due by the clock since the start
 *   (so the schedule keeps its count whatever the lateness). With HTTP/1.1 a connection has one
 *   request in flight (`-d` sets that too): a send due while the previous answer is awaited is
 *   sent when it arrives, and timed from then. The log's start time is the actual send, not the
 *   due time: coordinated omission, for a request that found its connection busy.
 * - All clients of one process connect in the same loop iteration, so their timers fire in the
 *   same instant: `-c50 --rps=50` sent 98% of 5,000 requests within 100 µs of the previous one,
 *   bursts of 50 every 20 ms. `--timing-script-file` is the same script for every client, and
 *   paces each line from the previous actual send, so a late send delays the rest: 50 Poisson
 *   scripts of 214/s each ran 1.4× as long as scripted (7,600 requests/s instead of 10,700).
 * - Timers wait in epoll by whole milliseconds, rounded up: a send leaves up to ~1 ms late.
 *
 * So: several h2load processes of CLIENTS_PER_PROCESS connections each (`-c4 --rps`), each
 * connection at most ~95 requests/s (so that a tick sends one request), as many processes as
 * `max(connections, rate / 95) / 4`; their rates spread ±5% around the mean, so that their phases
 * slide past one another within a second: the superposed arrivals are, within a few milliseconds,
 * about as independent as a Poisson process's (many periodic streams of unrelated phases), over a
 * period more even, and a process's four connections send at the same instant. Why four:
 * against bare fastify at 10,800 requests/s for 2 s, 114 processes of one connection took 2.2 CPU
 * seconds and sent late (the server's p50 read 3.5 ms), 29 of four 0.9 (p50 0.27 ms), 12 of ten
 * 0.55 (p50 0.51 ms: bursts of ten queue). Each process sends the requests of the time left until
 * the common end, so they all stop together; they start as they are spawned (~2 ms apart).
 * `lateSendP99` is the 99th percentile of how late a request left after its due time (a process's
 * first send plus a period for every four): what the latency does not hold; `p99FromDue` the
 * 99th percentile of the latency from the due time, which holds it (and the timer's ~1 ms). `-d` sends one body
 * file for every request of a process; each process gets its own (`bodies[i % bodies.length]`).
 */

/** Whether `h2load --version` runs here. */
export function h2loadInstalled(): boolean {
  const run = spawnSync('h2load', ['--version'], { stdio: 'ignore' });
  return !run.error && run.status === 0;
}

/** The most requests per second one connection is given: a tick of its 10 ms timer sends one. */
const MAX_CONNECTION_RATE = 95;
/** Connections (h2load clients) of one h2load process, paced in step. */
const CLIENTS_PER_PROCESS = 4;
/** The processes' rates spread this much either side of their mean. */
const RATE_SPREAD = 0.05;

/**
 * Each process's requests per second: `processes` rates spread evenly ±RATE_SPREAD around
 * rate / processes, adding up to `rate`.
 */
export function processRates(rate: number, processes: number): number[] {
  const mean = rate / processes;
  return Array.from({ length: processes }, (_, i) =>
    processes === 1 ? mean : mean * (1 - RATE_SPREAD + (2 * RATE_SPREAD * i) / (processes - 1)),
  );
}

/** What one process's log held. */
export interface H2loadLogReading {
  answered: number;
  non2xx: number;
  /** Requests h2load logged as failed (status -1). */
  errors: number;
  /** The first send and the last answer's end, µs since the epoch (NaN without rows). */
  firstStartMicros: number;
  lastEndMicros: number;
}

/**
 * Reads one h2load `--log-file`: a row a request, tab-separated, the start in µs since the epoch,
 * the HTTP status (-1: failed) and the µs until the answer's end. Each answered request's latency
 * goes into `latencies` (ms, a float: the same nearest-rank percentiles as open-load.ts). With
 * the process's pacing (`--rps` of each of its `clients`), how late each request left after its
 * due time goes into `lateness`: the k-th send by start time is due k / clients periods after the
 * first; and each answered request's latency from its due time (its lateness plus its logged
 * latency, as wrk2 reads it: a send held back by a busy connection counts its wait) into
 * `fromDue`.
 */
export function readH2loadLog(
  text: string,
  latencies: LatencyRecorder,
  paced?: { rate: number; clients: number; lateness: LatencyRecorder; fromDue: LatencyRecorder },
): H2loadLogReading {
  const reading: H2loadLogReading = { answered: 0, non2xx: 0, errors: 0, firstStartMicros: NaN, lastEndMicros: NaN };
  const sends: Array<{ start: number; ms: number | undefined }> = [];
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .forEach((line, k) => {
      const [start, status, micros] = line.split('\t').map(Number);
      if (!Number.isFinite(start) || !Number.isInteger(status) || !Number.isFinite(micros) || micros! < 0)
        throw new Error(`not an h2load log row: ${JSON.stringify(line)}`);
      reading.firstStartMicros = k === 0 ? start! : Math.min(reading.firstStartMicros, start!);
      reading.lastEndMicros = Number.isNaN(reading.lastEndMicros) ? start! + micros! : Math.max(reading.lastEndMicros, start! + micros!);
      const ms = status === -1 ? undefined : micros! / 1e3;
      if (ms === undefined) reading.errors++;
      else {
        latencies.record(ms);
        reading.answered++;
        if (status! < 200 || status! >= 300) reading.non2xx++;
      }
      sends.push({ start: start!, ms });
    });
  if (paced) {
    // Each period every client sends one, all in step: the k-th send (by its start) is due after k / clients periods.
    sends.sort((a, b) => a.start - b.start);
    sends.forEach(({ start, ms }, k) => {
      const late = Math.max(0, start - sends[0]!.start - (Math.floor(k / paced.clients) * 1e6) / paced.rate) / 1e3;
      paced.lateness.record(late);
      if (ms !== undefined) paced.fromDue.record(late + ms);
    });
  }
  return reading;
}

/** Runs one h2load process; rejects when it cannot start or exits non-zero. */
function runH2load(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('h2load', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`h2load ${args.join(' ')} exited ${code}: ${stderr.trim()}`))));
  });
}

/** Drives `url` at `rate` for `seconds` through h2load processes; see the module's comment. */
export async function h2loadOpenLoad(
  options: OpenLoadOptions,
): Promise<OpenLoadResult & { lateSendP99: number; p99FromDue: number; connections: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-h2load-'));
  try {
    const timeoutSeconds = Math.max(1, Math.ceil((options.timeoutMs ?? 10_000) / 1e3));
    const connections = Math.max(options.connections, Math.ceil(options.rate / MAX_CONNECTION_RATE));
    const rates = processRates(options.rate, Math.ceil(connections / CLIENTS_PER_PROCESS));
    const processes = rates.map((rate, i) => ({ rate, requests: 0, log: path.join(dir, `${i}.log`), body: path.join(dir, `${i}.body`) }));
    if (options.method === 'POST')
      processes.forEach((process, i) => fs.writeFileSync(process.body, options.bodies[i % options.bodies.length] ?? ''));
    const started = performance.now();
    const runs = processes.map((process) => {
      // The requests of the time left, so that every process stops at `seconds` from the first one's start.
      process.requests = Math.max(CLIENTS_PER_PROCESS, Math.round(process.rate * (options.seconds - (performance.now() - started) / 1e3)));
      return runH2load([
        '--h1',
        `-c${CLIENTS_PER_PROCESS}`,
        `--rps=${process.rate / CLIENTS_PER_PROCESS}`,
        `-n${process.requests}`,
        ...(options.method === 'POST' ? ['-d', process.body, '-H', 'content-type: application/json'] : []),
        '-N',
        `${timeoutSeconds}s`,
        `--log-file=${process.log}`,
        options.url,
      ]);
    });
    await Promise.all(runs);
    const latencies = new LatencyRecorder();
    const lateness = new LatencyRecorder();
    const fromDue = new LatencyRecorder();
    let answered = 0;
    let non2xx = 0;
    let errors = 0;
    let first = Infinity;
    let last = -Infinity;
    for (const process of processes) {
      const reading = readH2loadLog(fs.readFileSync(process.log, 'utf8'), latencies, {
        rate: process.rate / CLIENTS_PER_PROCESS,
        clients: CLIENTS_PER_PROCESS,
        lateness,
        fromDue,
      });
      answered += reading.answered;
      non2xx += reading.non2xx;
      // A request never logged was never sent: its connection failed before.
      errors += reading.errors + Math.max(0, process.requests - reading.answered - reading.errors);
      if (!Number.isNaN(reading.firstStartMicros)) first = Math.min(first, reading.firstStartMicros);
      if (!Number.isNaN(reading.lastEndMicros)) last = Math.max(last, reading.lastEndMicros);
    }
    return {
      // Over the time the processes ran, from the first send to the last answer.
      requestsPerSecond: answered / ((last - first) / 1e6),
      total: answered,
      p50: latencies.percentile(50),
      p90: latencies.percentile(90),
      p99: latencies.percentile(99),
      non2xx,
      errors,
      lateSendP99: lateness.percentile(99),
      p99FromDue: fromDue.percentile(99),
      connections: processes.length * CLIENTS_PER_PROCESS,
      latencies,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
