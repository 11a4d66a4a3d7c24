/**
 * Capture's latency while the inline worker drains a large backlog (what a server meets after a
 * crash, or after its worker was stopped a while), beside the same server's latency at the same
 * offered rate once the backlog is gone. On SQLite the worker shares the server's thread: this is
 * what its pauses between batches (worker.ts, batch-sizer.ts) are for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pino from 'pino';
import { openAndMigrate } from '../src/platform/db/open-and-migrate.js';
import { loadConfig } from '../src/config.js';
import { IngestionQueueWriter } from '../src/ingestion/queue.js';
import { bootstrapIfEmpty } from '../src/environments/bootstrap.js';
import { captureBody } from './bodies.js';
import { fmt, fmtMs, load, noteUnlessServerNodeOptions, spawnHoglet, type LoadResult } from './harness.js';
import { captureWorkload } from './workload.js';

export interface DrainLatency {
  backlog: number;
  /** Capture at the offered rate while the backlog drains. */
  during: LoadResult;
  /** Events still queued when that measurement ended (it must not be 0 for `during` to mean anything). */
  leftAfter: number;
  /** Capture at the same rate on the same server with nothing queued. */
  idle: LoadResult;
  /** From the server's start until its queue was empty. */
  drainSeconds: number;
}

/** Queues `events` of capture's shape (bench/workload.ts) into a fresh data folder; returns its token. */
async function queueBacklog(dataDir: string, events: number): Promise<string> {
  const log = pino({ level: 'silent' });
  const database = await openAndMigrate(loadConfig({ DATA_DIR: dataDir, DATABASE_URL: '' }), log);
  try {
    const boot = await bootstrapIfEmpty(database, { email: 'bench@hoglet.local', personalApiKey: undefined });
    const queue = new IngestionQueueWriter(database, log, 0);
    // A slice at a time: a million queued rows built at once would hold a gigabyte.
    for (let queued = 0; queued < events; queued += 100_000) {
      const requests = captureWorkload(boot!.team.id, Math.min(100_000, events - queued));
      for (let i = 0; i < requests.length; i += 100)
        await Promise.all(requests.slice(i, i + 100).map((request) => queue.enqueueRequest(request)));
    }
    await queue.drain();
    return boot!.team.apiToken;
  } finally {
    await database.close();
  }
}

function queuedEvents(file: string): number {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return Number((db.prepare('select coalesce(sum(event_count), 0) as n from ingestion_queue').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

export async function captureDuringDrain(options: {
  events: number;
  seconds: number;
  rate: number;
  connections: number;
}): Promise<DrainLatency> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoglet-drain-'));
  const dataDir = path.join(dir, 'hoglet');
  try {
    const token = await queueBacklog(dataDir, options.events);
    const file = path.join(dataDir, 'hoglet.db');
    const backlog = queuedEvents(file);
    const started = Date.now();
    // The default server: its inline worker finds the backlog at start.
    const server = await spawnHoglet([], { DATA_DIR: dataDir, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    try {
      const capture = (seconds: number) =>
        load({
          url: `${server.url}/capture/`,
          body: captureBody(token),
          connections: options.connections,
          seconds,
          serverPid: server.child.pid,
          rate: options.rate,
        });
      const during = await capture(options.seconds);
      const leftAfter = queuedEvents(file);
      while (queuedEvents(file) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const drainSeconds = (Date.now() - started) / 1000;
      const idle = await capture(options.seconds);
      return { backlog, during, leftAfter, idle, drainSeconds };
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function drainLatencyText(figure: DrainLatency, rate: number): string {
  const { during, idle } = figure;
  return (
    `${'capture during a backlog drain'.padEnd(44)} p99 ${fmtMs(during.p99)} ms, p50 ${fmtMs(during.p50)} ms at ${fmt(rate)} req/s offered (${fmt(during.requestsPerSecond)} served, non-2xx ${during.non2xx})\n` +
    `${''.padEnd(44)} the same server with nothing queued: p99 ${fmtMs(idle.p99)} ms, p50 ${fmtMs(idle.p50)} ms (${fmt(idle.requestsPerSecond)} served); ratio of p99s ${(during.p99 / Math.max(idle.p99, 0.001)).toFixed(2)}\n` +
    `${''.padEnd(44)} backlog ${fmt(figure.backlog)} events, ${fmt(figure.leftAfter)} still queued when the measurement ended, drained ${figure.drainSeconds.toFixed(1)} s after the start\n`
  );
}

// `node --heap-growing-percent=50 --max-semi-space-size=8 --import tsx bench/drain-latency.ts [events]`: this figure alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  noteUnlessServerNodeOptions();
  const rate = Number(process.env.BENCH_DRAIN_RATE ?? 1000);
  const figure = await captureDuringDrain({
    events: Number(process.argv[2] ?? 1_000_000),
    seconds: Number(process.env.BENCH_SECONDS ?? 5),
    rate,
    connections: 10,
  });
  process.stdout.write(drainLatencyText(figure, rate));
}
