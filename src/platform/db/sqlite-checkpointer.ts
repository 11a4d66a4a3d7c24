/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
 * crosses its threshold: it copies the whole WAL (64 MB here) into the database file and syncs it,
 * and with better-sqlite3 that commit is synchronous, so every request of the process waited
 * for it (capture's p99 under load was that stall; docs/benchmarks.md).
 *
 * A worker thread with its own connection does the copying instead:
 * - every INTERVAL_MS a PASSIVE checkpoint copies what was committed since the last one, while
 *   writers go on (PASSIVE never waits for anyone);
 * - once the WAL holds RESTART_FRAMES frames and a PASSIVE checkpoint just left only a few
 *   behind (under heavy writing, after a few more PASSIVE rounds), a RESTART checkpoint copies those few and makes the next writer start the WAL from its
 *   beginning, so the file stops growing. RESTART holds the write lock while it copies and while
 *   it waits for readers still using the WAL, so the thread gives it at most BUSY_TIMEOUT_MS:
 *   writers wait at most that long; when readers are still there it gives up and tries again at
 *   a later tick.
 *
 * The main connection keeps an automatic checkpoint as a safety net at a higher threshold, and
 * goes back to the usual one if the thread stops unasked.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

const RESTART_FRAMES = 16384;
const INTERVAL_MS = 250;
/** Frames a RESTART may still have to copy (a few MB) while writers wait. */
const RESTART_GAP_FRAMES = 1024;
const BUSY_TIMEOUT_MS = 25;
/** How long stop() waits for the thread to close its connection before terminating it. */
const STOP_TIMEOUT_MS = 5000;

export interface CheckpointReport {
  mode: 'RESTART';
  /** Frames the WAL held. */
  frames: number;
  ms: number;
}

// The thread runs plain JavaScript (no TypeScript loader in a worker started from a string).
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
let timer;
// The WAL length at the last restart: until a writer comes, the WAL stays as it is (a restart
// only lets the next writer start it over), and restarting it again would be for nothing.
let restartedAt = -1;
function checkpoint(mode) {
  const row = db.pragma('wal_checkpoint(' + mode + ')')[0];
  return { busy: row.busy, log: row.log, done: row.checkpointed };
}
function tick() {
  try {
    let passive = checkpoint('PASSIVE');
    // Under heavy writing more arrives while a PASSIVE round copies: a few more rounds, each
    // copying only what came during the last, bring the remainder down to what a RESTART may copy.
    for (let round = 0; round < 4 && passive.log >= workerData.restartFrames && passive.log - passive.done > workerData.restartGap; round++) {
      passive = checkpoint('PASSIVE');
    }
    const due = passive.log >= workerData.restartFrames && passive.log - passive.done <= workerData.restartGap;
    if (due && !(passive.log === passive.done && passive.log === restartedAt)) {
      const started = Date.now();
      const restart = checkpoint('RESTART');
      if (restart.busy === 0) {
        restartedAt = restart.log;
        parentPort.postMessage({ mode: 'RESTART', frames: restart.log, ms: Date.now() - started });
      }
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
  log: Pick<Logger, 'debug' | 'warn' | 'error'>;
  /** WAL size (in frames, a page each) from which the WAL is restarted; tests make it small. */
  restartFrames?: number;
  intervalMs?: number;
  /** The main connection's fallback threshold; default 4 × restartFrames. */
  fallbackFrames?: number;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

/** The main connection's own automatic checkpoint while the thread runs, should it fall behind. */
export function fallbackAutocheckpointFrames(options: CheckpointOptions): number {
  return options.fallbackFrames ?? 4 * (options.restartFrames ?? RESTART_FRAMES);
}

/**
 * Starts the checkpoint thread for a SQLite file in WAL mode. `onLost` runs if the thread ends
 * without being asked to (the caller then lets its own connection checkpoint as usual).
 */
export function startCheckpointer(file: string, options: CheckpointOptions, onLost: () => void): Checkpointer {
  const { log } = options;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const restartFrames = options.restartFrames ?? RESTART_FRAMES;
  const worker = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver,
      intervalMs: options.intervalMs ?? INTERVAL_MS,
      restartFrames,
      restartGap: Math.min(RESTART_GAP_FRAMES, restartFrames / 4),
      busyTimeoutMs: BUSY_TIMEOUT_MS,
    },
  });
  worker.unref();
  worker.on('message', (message: CheckpointReport | { error: string }) => {
    if ('error' in message) log.warn({ err: message.error }, 'sqlite background checkpoint failed');
    else log.debug({ checkpoint: message }, 'sqlite wal restarted');
  });
  worker.on('error', (error) => log.warn({ err: error }, 'sqlite checkpoint thread failed'));
  let stopping = false;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      if (!stopping) {
        log.error({ file }, 'sqlite checkpoint thread stopped; commits checkpoint the WAL themselves again');
        onLost();
      }
      resolve();
    }),
  );
  return {
    stop: () => {
      if (exited || stopping) return exit;
      stopping = true;
      // Held while stopping: otherwise an otherwise idle process would exit before the thread did.
      worker.ref();
      worker.postMessage('stop');
      const deadline = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      deadline.unref();
      return exit.finally(() => clearTimeout(deadline));
    },
  };
}
