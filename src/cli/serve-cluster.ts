/**
 * `HTTP_PROCESSES=N hoglet serve`: N server processes share one port through node's cluster
 * module, so requests use every core. Node 20 has no `reusePort`; the cluster primary accepts
 * connections and hands each one to a server process in turn, and keep-alive connections then stay
 * with their process.
 *
 * The primary is only a supervisor: it serves nothing and opens no database. Slot 0 starts first
 * and alone, so migrations and the first-start bootstrap run once; it also runs the ingestion
 * worker and the subscription scheduler (when INGESTION_WORKER is `inline`). The other slots serve
 * HTTP only. Their capture commits wake slot 0's worker through the primary. Caches stay right
 * across the processes through the change bus, as they do for separate `hoglet serve` processes.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { RunningApp } from '../app.js';
import type { Config } from '../config.js';

type ClusterMessage = { hoglet: 'ready'; url: string } | { hoglet: 'queue-committed' };

const SLOT_VARIABLE = 'HOGLET_PROCESS_SLOT';
/** A server process that dies after it started is replaced after this pause (no tight crash loop). */
const RESTART_DELAY_MS = 1000;
/** Capture commits wake the worker at most this often from each process (plus one trailing wake). */
const WAKE_INTERVAL_MS = 20;
/**
 * A signal this soon after the first is the same one delivered twice, not an operator's second:
 * a terminal's Ctrl-C reaches every process of its group, and under `npm start` npm passes its
 * own on to the supervisor as well.
 */
const SAME_SIGNAL_MS = 1000;

function isClusterMessage(message: unknown): message is ClusterMessage {
  return typeof message === 'object' && message !== null && typeof (message as { hoglet?: unknown }).hoglet === 'string';
}

/** Which slot this server process fills, when it is one of a cluster's. */
function clusterSlot(): number | undefined {
  if (!cluster.isWorker) return undefined;
  return Number(process.env[SLOT_VARIABLE] ?? 0);
}

/** The supervisor: starts the server processes, replaces any that die, stops them all on a signal. */
export function runSupervisor(config: Config, log: Logger): Promise<number> {
  /** The server processes alive now. */
  const slots = new Set<Worker>();
  const workers: Array<Worker | undefined> = [];
  let started = false;
  let stopping = false;
  let exitCode = 0;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const worker of slots) worker.process.kill('SIGTERM');
    if (slots.size === 0) resolveDone(exitCode);
  };

  const relayWake = (message: ClusterMessage) => {
    // Slot 0 may be on its way out (its channel closes before its exit is seen): a wake for it
    // then has no one to wake, and sending on a closed channel would be an error.
    const first = workers[0];
    if (!stopping && first?.isConnected()) first.send(message, () => undefined);
  };

  const fork = (slot: number): Promise<string> => {
    // Only slot 0 runs the ingestion worker (with INGESTION_LEASE_MS from the environment, as every
    // slot's config): the others serve requests. More workers share the queue as `hoglet worker`.
    const env: Record<string, string> = { [SLOT_VARIABLE]: String(slot) };
    if (slot > 0) env.INGESTION_WORKER = 'off';
    const worker = cluster.fork(env);
    slots.add(worker);
    workers[slot] = worker;
    return new Promise<string>((resolve, reject) => {
      worker.on('error', (error) => log.warn({ err: error, slot }, 'server process channel error'));
      worker.on('message', (message: unknown) => {
        if (!isClusterMessage(message)) return;
        if (message.hoglet === 'ready') resolve(message.url);
        else if (message.hoglet === 'queue-committed') relayWake(message);
      });
      worker.on('exit', (code, signal) => {
        slots.delete(worker);
        if (workers[slot] === worker) workers[slot] = undefined;
        reject(new Error(`server process ${slot} exited (${signal ?? code}) before it was ready`));
        if (stopping) {
          if (slots.size === 0) resolveDone(exitCode);
          return;
        }
        if (!started) {
          // Any process lost while the cluster starts fails the start (slot 0 is the one that
          // runs the worker: a cluster without it must not report itself ready).
          log.error({ slot, code, signal }, 'server process exited while the cluster was starting');
          stopAll(1);
          return;
        }
        log.error({ slot, pid: worker.process.pid, code, signal }, 'server process died; starting another');
        setTimeout(() => {
          if (!stopping) fork(slot).catch((error: unknown) => log.error({ err: error, slot }, 'replacement server process failed'));
        }, RESTART_DELAY_MS).unref();
      });
    });
  };

  const start = async () => {
    const url = await fork(0);
    await Promise.all(Array.from({ length: config.httpProcesses - 1 }, (_, i) => fork(i + 1)));
    if (stopping) return;
    started = true;
    log.info({ url, processes: config.httpProcesses, pid: process.pid }, 'hoglet cluster ready');
  };
  start().catch((error: unknown) => {
    if (stopping) return;
    log.error({ err: error }, 'hoglet cluster could not start');
    stopAll(1);
  });

  let firstSignalAt: number | undefined;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (firstSignalAt === undefined) {
        firstSignalAt = performance.now();
        log.info({ signal }, 'shutting down the server processes');
        stopAll(0);
        return;
      }
      if (performance.now() - firstSignalAt < SAME_SIGNAL_MS) return;
      // A second signal: whoever is still finishing is killed (as an operator would, by hand).
      log.warn({ signal, remaining: slots.size }, 'second signal: killing the server processes still running');
      for (const worker of slots) worker.process.kill('SIGKILL');
    });
  }
  return done.then((code) => {
    log.info('shutdown complete');
    return code;
  });
}

/**
 * In a server process of a cluster: tells the supervisor it is ready, and passes capture's queue
 * commits to the ingestion worker in slot 0 (which wakes at once instead of at its next poll).
 */
export function joinCluster(running: RunningApp): void {
  const slot = clusterSlot() ?? 0;
  process.send?.({ hoglet: 'ready', url: running.url } satisfies ClusterMessage);
  if (running.worker) {
    const worker = running.worker;
    process.on('message', (message: unknown) => {
      if (isClusterMessage(message) && message.hoglet === 'queue-committed') worker.wake();
    });
  }
  if (slot === 0) return;
  let timer: NodeJS.Timeout | undefined;
  let pending = false;
  const announce = () => {
    if (timer) {
      pending = true;
      return;
    }
    // Not once the channel to the supervisor is closing (the process is on its way out then).
    if (process.connected) process.send?.({ hoglet: 'queue-committed' } satisfies ClusterMessage, undefined, undefined, () => undefined);
    timer = setTimeout(() => {
      timer = undefined;
      if (pending) {
        pending = false;
        announce();
      }
    }, WAKE_INTERVAL_MS);
    timer.unref();
  };
  running.ctx.ingestionQueue.events.on('committed', announce);
}
