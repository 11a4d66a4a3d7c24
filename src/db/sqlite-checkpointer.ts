/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
 * crosses its threshold: it copies the whole WAL (64 MB here) into the database file and syncs it,
 * and with better-sqlite3 that commit is synchronous, so every request of the process waited
 * ~50-100 ms for it (capture's p99 under load was that stall).
 *
 * A worker thread with its own connection does the copying instead:
 * - every INTERVAL_MS a PASSIVE checkpoint copies what was committed since the last one, while
 *   writers go on;
 * - once the WAL holds RESTART_FRAMES frames and the PASSIVE checkpoint left only a few behind, a
 *   RESTART checkpoint copies those few and makes the next writer start the WAL from its
 *   beginning, so the file stops growing. Writers wait only for that remainder (milliseconds).
 *
 * The main connection keeps an automatic checkpoint as a safety net at a higher threshold, for
 * when this thread cannot keep up or is gone.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

const RESTART_FRAMES = 16384;
const INTERVAL_MS = 250;
/** Frames a RESTART may still have to copy (a few MB) while writers wait. */
const RESTART_GAP_FRAMES = 1024;

export interface CheckpointReport {
  mode: 'RESTART';
  frames: number;
  ms: number;
}

// The thread runs plain JavaScript (no TypeScript loader in a worker started from a string).
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 2000');
let timer;
function checkpoint(mode) {
  const row = db.pragma('wal_checkpoint(' + mode + ')')[0];
  return { busy: row.busy, log: row.log, done: row.checkpointed };
}
function tick() {
  try {
    const passive = checkpoint('PASSIVE');
    if (passive.log >= workerData.restartFrames && passive.log - passive.done <= workerData.restartGap) {
      const started = Date.now();
      const restart = checkpoint('RESTART');
      parentPort.postMessage({ mode: 'RESTART', frames: restart.log, ms: Date.now() - started });
    }
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
  timer = setTimeout(tick, workerData.intervalMs);
}
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
timer = setTimeout(tick, workerData.intervalMs);
`;

export interface CheckpointOptions {
  log: Pick<Logger, 'debug' | 'warn'>;
  /** WAL size (in frames, a page each) from which the WAL is restarted; tests make it small. */
  restartFrames?: number;
  intervalMs?: number;
  /** The main connection's fallback threshold; default 4 × restartFrames. */
  fallbackFrames?: number;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

/** The main connection's own automatic checkpoint, should the thread fall behind. */
export function fallbackAutocheckpointFrames(options: CheckpointOptions): number {
  return options.fallbackFrames ?? 4 * (options.restartFrames ?? RESTART_FRAMES);
}

/** Starts the checkpoint thread for a SQLite file in WAL mode. */
export function startCheckpointer(file: string, options: CheckpointOptions): Checkpointer {
  const { log } = options;
  const onReport = (report: CheckpointReport) => log.debug({ checkpoint: report }, 'sqlite wal restarted');
  const onError = (message: string) => log.warn({ err: message }, 'sqlite background checkpoint failed');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const restartFrames = options.restartFrames ?? RESTART_FRAMES;
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { file, driver, intervalMs: options.intervalMs ?? INTERVAL_MS, restartFrames, restartGap: Math.min(RESTART_GAP_FRAMES, restartFrames / 4) },
  });
  worker.unref();
  worker.on('message', (message: CheckpointReport | { error: string }) => {
    if ('error' in message) onError(message.error);
    else onReport(message);
  });
  worker.on('error', (error) => onError(error.message));
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => ((exited = true), resolve())));
  return {
    stop: () => {
      if (exited) return exit;
      // Held while stopping: otherwise an otherwise idle process would exit before the thread did.
      worker.ref();
      worker.postMessage('stop');
      return exit;
    },
  };
}
