import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { GeoipService } from '../../geoip/geoip-service.js';
import type { QueueRecord } from './batch.js';
import type { PreparedRow } from './prepare.js';
import { isPrepareFailure, unpackReply, type PrepareReply, type PrepareRequest } from './prepare-messages.js';

/** Run as TypeScript (tsx) or compiled: the thread's entry is the same kind of file as this one. */
const RUNNING_TYPESCRIPT = import.meta.url.endsWith('.ts');
const ENTRY = new URL(RUNNING_TYPESCRIPT ? './prepare-thread.ts' : './prepare-thread.js', import.meta.url);

/**
 * The thread's code. Compiled, the entry itself; as TypeScript, a script that registers tsx in the
 * thread first (a loader given to the parent with `--import` does not reach a thread on Node 20).
 */
function threadSource(): { source: string | URL; eval: boolean } {
  if (!RUNNING_TYPESCRIPT) return { source: ENTRY, eval: false };
  // tsx's ESM API by its package's own exports map (its CommonJS build cannot register from here).
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = require(manifestPath) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(manifestPath), manifest.exports['./esm/api']!.import.default)).href;
  const source = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ENTRY.href)}); });`;
  return { source, eval: true };
}

/** How long after a failed or exited thread the next one is tried. */
const RETRY_AFTER_MS = 60_000;
/** A batch takes the thread well under a second; one not answered by then is given up. */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * The worker's second thread: prepares the next batch (prepare.ts, no database) while the worker
 * writes the current one, so a backlog is worked on both cores. Started on first use. If it
 * fails or exits, batches are prepared in the worker's own thread, as they are when nothing is
 * prepared ahead (no event depends on the thread), and a new thread is tried a minute later.
 */
export class PrepareThread {
  private thread: Worker | undefined;
  /** After a failure: no new thread before this time (ms). */
  private retryAt = 0;
  private nextId = 1;
  private readonly waiting = new Map<number, (prepared: PreparedRow[] | undefined) => void>();

  constructor(
    private readonly geoip: GeoipService | undefined,
    private readonly log: Logger,
  ) {}

  /**
   * The rows prepared on the thread (in order), or undefined when the thread is unavailable.
   * `anonymized`: the teams whose environment has `anonymize_ips` now.
   */
  prepare(rows: QueueRecord[], anonymized: number[]): Promise<PreparedRow[] | undefined> {
    const thread = this.started();
    if (!thread) return Promise.resolve(undefined);
    const id = this.nextId++;
    const request: PrepareRequest = { id, rows: rows.map((row) => [Number(row.team_id), row.payload]), anonymized };
    return new Promise((resolve) => {
      // Kept alive only while it owes an answer (an idle thread must not hold the process open).
      if (this.waiting.size === 0) thread.ref();
      // A thread that stops answering must not hold the worker up: it is replaced.
      const deadline = setTimeout(() => this.stopUsing(thread, new Error(`prepare thread did not answer in ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
      deadline.unref();
      this.waiting.set(id, (prepared) => {
        clearTimeout(deadline);
        resolve(prepared);
      });
      thread.postMessage(request);
    });
  }

  /**
   * Starts the thread (if it is not running) and waits until it answers: loading its code takes
   * a while (~150 ms as TypeScript), which the first batch prepared ahead would otherwise wait.
   * False when no thread could be started.
   */
  async warmUp(): Promise<boolean> {
    return (await this.prepare([], [])) !== undefined;
  }

  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = undefined;
    this.answerAll();
    if (thread) await thread.terminate();
  }

  private started(): Worker | undefined {
    if (this.thread || performance.now() < this.retryAt) return this.thread;
    try {
      const { source, eval: isScript } = threadSource();
      const thread = new Worker(source, { eval: isScript, workerData: { geoip: this.geoip?.shared } });
      thread.unref();
      thread.on('message', (reply: PrepareReply) => {
        const resolve = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (this.waiting.size === 0) thread.unref();
        if (isPrepareFailure(reply)) {
          this.log.warn({ error: reply.error }, 'prepare thread could not prepare a batch; the worker prepares it');
          resolve?.(undefined);
        } else resolve?.(unpackReply(reply, this.geoip));
      });
      thread.on('error', (error) => this.stopUsing(thread, error));
      thread.on('exit', (code) => this.stopUsing(thread, new Error(`prepare thread exited with code ${code}`)));
      this.thread = thread;
    } catch (error) {
      this.stopUsing(undefined, error);
    }
    return this.thread;
  }

  private stopUsing(thread: Worker | undefined, error: unknown): void {
    if (thread !== this.thread) return; // closed on purpose
    this.retryAt = performance.now() + RETRY_AFTER_MS;
    this.thread = undefined;
    this.log.warn({ err: error }, 'prepare thread unavailable; the worker prepares batches itself');
    this.answerAll();
    void thread?.terminate();
  }

  /** Requests still waiting get no rows: their batches are prepared by the worker. */
  private answerAll(): void {
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }
}
