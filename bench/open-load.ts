import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { LatencyRecorder } from './latency-recorder.js';

/**
 * The rate-driven load generator (harness.ts `load` with `rate`): an open model, requests arriving
 * as from many independent users (a Poisson process: exponential gaps of mean 1 / rate), whether
 * or not earlier ones were answered. Each arrival is sent on an idle keep-alive connection (one
 * request at a time on each, at most `connections`; an arrival that finds none waits for one, and
 * that wait counts in its latency). Latency runs from the arrival's dispatch to the answer's last
 * byte, by process.hrtime, kept to the microsecond (latency-recorder.ts).
 *
 * Why not autocannon's `overallRate`: it gives each connection a quota per second, sent back to
 * back from the start of each second, so "half the rate" is the saturated load for half of each
 * second, and its p99 is the queue's. wrk's `delay` think times are whole milliseconds, which
 * line the connections up on millisecond ticks.
 *
 * Node's timers have a millisecond's resolution, so arrivals are paced from a worker thread that
 * sleeps between them in Atomics.wait (fractional milliseconds, a futex: ~0.1–0.2 ms late on
 * Linux) and tells this thread how many arrivals are due; the schedule itself never drifts.
 */
export interface OpenLoadOptions {
  url: string;
  method: 'POST' | 'GET';
  /** Request bodies, sent in turn (JSON). */
  bodies: readonly string[];
  /** Arrivals per second, on average. */
  rate: number;
  seconds: number;
  /** At most this many connections (50 in the bench): more than the arrivals ever need at half rate. */
  connections: number;
  /** A request unanswered for this long counts as an error and its connection is dropped. */
  timeoutMs?: number;
}

export interface OpenLoadResult {
  requestsPerSecond: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Every answered request's latency (the recorder p50 and p99 were read from). */
  latencies: LatencyRecorder;
}

/**
 * The gap to the next arrival of a Poisson process of `rate` per second, in microseconds: an
 * exponential draw of mean 1 / rate. The pacer thread runs this very function (its source).
 */
export function nextArrivalGapMicros(rate: number, random: () => number): number {
  return (-Math.log(1 - random()) * 1e6) / rate;
}

/** The pacer's code (a worker thread): posts the count of arrivals due, until `seconds` have passed. */
const PACER = `
const nextArrivalGapMicros = ${nextArrivalGapMicros.toString()};
const { parentPort, workerData } = require('node:worker_threads');
const { rate, seconds } = workerData;
const slot = new Int32Array(new SharedArrayBuffer(4));
const start = process.hrtime.bigint();
const end = seconds * 1e6;
let next = 0; // the next arrival, in microseconds since start
const now = () => Number(process.hrtime.bigint() - start) / 1e3;
for (;;) {
  let due = 0;
  const t = now();
  while (next <= t && next < end) {
    due++;
    next += nextArrivalGapMicros(rate, Math.random);
  }
  if (due > 0) parentPort.postMessage(due);
  if (next >= end) break;
  // Atomics.wait wakes ~50 µs after it was asked to (the kernel's timer slack): ask that much earlier.
  const wait = (next - now() - 50) / 1e3;
  if (wait > 0) Atomics.wait(slot, 0, 0, wait);
}
parentPort.postMessage(0);
`;

interface Connection {
  socket: net.Socket;
  buffer: Buffer;
  startNs: bigint;
  busy: boolean;
  closed: boolean;
  timer?: NodeJS.Timeout;
}

/** The end of an HTTP/1.1 response in `buffer`, or -1 when it is not all there yet; its status in `status`. */
export function responseEnd(buffer: Buffer): { end: number; status: number } {
  const head = buffer.indexOf('\r\n\r\n');
  if (head < 0) return { end: -1, status: 0 };
  const headers = buffer.toString('latin1', 0, head);
  const status = Number(headers.slice(9, 12));
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(headers);
  if (length) {
    const end = head + 4 + Number(length[1]);
    return { end: buffer.length >= end ? end : -1, status };
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(headers)) {
    const last = buffer.indexOf('\r\n0\r\n\r\n', head);
    return { end: last < 0 ? -1 : last + 7, status };
  }
  return { end: head + 4, status }; // no body (204, 304)
}

/** Drives `url` with independent arrivals at `rate` for `seconds`; see the module's comment. */
export async function openLoad(options: OpenLoadOptions): Promise<OpenLoadResult> {
  const url = new URL(options.url);
  const port = Number(url.port || 80);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const requests = options.bodies.map((body) =>
    Buffer.from(
      `${options.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    ),
  );
  const latencies = new LatencyRecorder();
  const idle: Connection[] = [];
  const waiting: bigint[] = []; // dispatch times of arrivals that found no idle connection
  let open = 0;
  let nextBody = 0;
  let inFlight = 0;
  let non2xx = 0;
  let errors = 0;
  let pacing = true;
  let settle: (() => void) | undefined;

  const settleIfDone = () => {
    if (!pacing && inFlight === 0 && waiting.length === 0) settle?.();
  };
  const send = (connection: Connection, startNs: bigint) => {
    connection.busy = true;
    connection.startNs = startNs;
    inFlight++;
    connection.timer = setTimeout(() => close(connection, true), timeoutMs);
    connection.socket.write(requests[nextBody++ % requests.length]!);
  };
  const release = (connection: Connection) => {
    connection.busy = false;
    inFlight--;
    clearTimeout(connection.timer);
    const queued = waiting.shift();
    if (queued !== undefined) send(connection, queued);
    else idle.push(connection);
    settleIfDone();
  };
  /** A connection closed (by the server, an error or a timeout): its request, if any, failed. */
  const close = (connection: Connection, failed: boolean) => {
    if (connection.closed) return;
    connection.closed = true;
    connection.socket.destroy();
    open--;
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
    if (connection.busy) {
      errors++;
      inFlight--;
      clearTimeout(connection.timer);
    } else if (failed) errors++;
    const queued = waiting.shift();
    if (queued !== undefined) connect(queued);
    settleIfDone();
  };
  const connect = (startNs: bigint) => {
    open++;
    const socket = net.connect(port, url.hostname);
    const connection: Connection = { socket, buffer: Buffer.alloc(0), startNs, busy: false, closed: false };
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
      const { end, status } = responseEnd(connection.buffer);
      if (end < 0) return;
      latencies.recordSince(connection.startNs);
      if (status < 200 || status >= 300) non2xx++;
      connection.buffer = connection.buffer.subarray(end);
      release(connection);
    });
    socket.on('error', () => close(connection, true));
    socket.on('close', () => close(connection, false));
    send(connection, startNs);
  };
  const arrive = () => {
    const now = process.hrtime.bigint();
    const connection = idle.pop();
    if (connection) send(connection, now);
    else if (open < options.connections) connect(now);
    else waiting.push(now);
  };

  const pacer = new Worker(PACER, { eval: true, workerData: { rate: options.rate, seconds: options.seconds } });
  await new Promise<void>((resolve, reject) => {
    pacer.on('message', (due: number) => {
      if (due === 0) return resolve();
      for (let i = 0; i < due; i++) arrive();
    });
    pacer.on('error', reject);
  });
  pacing = false;
  if (inFlight > 0 || waiting.length > 0) await new Promise<void>((resolve) => (settle = resolve));
  for (const connection of [...idle]) close(connection, false);
  await pacer.terminate();
  return {
    // Arrivals fall in the pacer's `seconds` (its thread's start is not in them); each is answered.
    requestsPerSecond: latencies.count / options.seconds,
    total: latencies.count,
    p50: latencies.percentile(50),
    p90: latencies.percentile(90),
    p99: latencies.percentile(99),
    non2xx,
    errors,
    latencies,
  };
}
