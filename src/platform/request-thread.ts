/**
 * A second thread that answers questions a process could answer itself, only on another core:
 * the worker's prepare thread (ingestion/worker/prepare-thread-client.ts) and capture's parse
 * thread (sdk/capture/capture-thread.ts). Nothing depends on the thread: when it is not there, has
 * failed, or does not answer in time, `ask` gives undefined and the caller does the work itself;
 * a new thread is tried a minute after a failure.
 *
 * The thread's entry calls `answerQuestions` with a pure function; both sides of the wire are here.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, Worker } from 'node:worker_threads';
import type { Logger } from 'pino';

/** How long after a failed or exited thread the next one is tried. */
const RETRY_AFTER_MS = 60_000;
/** Work a thread is given takes it well under a second; a question not answered by then is given up. */
const ANSWER_TIMEOUT_MS = 30_000;

interface Question<Q> {
  id: number;
  question: Q;
}

type Answer<A> = { id: number; answer: A } | { id: number; error: string };

/** What a thread's function gives back: the answer, and the buffers to move rather than copy. */
export interface Answered<A> {
  answer: A;
  transfer?: ArrayBuffer[];
}

/**
 * The thread's code: run as TypeScript (tsx) or compiled, the entry is the same kind of file as
 * the module that names it. As TypeScript, a script that registers tsx in the thread first (a
 * loader given to the parent with `--import` does not reach a thread on Node 20).
 */
function threadSource(entry: URL): { source: string | URL; eval: boolean } {
  if (!entry.pathname.endsWith('.ts')) return { source: entry, eval: false };
  // tsx's ESM API by its package's own exports map (its CommonJS build cannot register from here).
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = require(manifestPath) as { exports: Record<string, { import: { default: string } }> };
  const api = pathToFileURL(join(dirname(manifestPath), manifest.exports['./esm/api']!.import.default)).href;
  const source = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return { source, eval: true };
}

/** The entry next to `module` (its `import.meta.url`) named `name`, with the module's own extension. */
export function siblingEntry(module: string, name: string): URL {
  return new URL(`./${name}${module.endsWith('.ts') ? '.ts' : '.js'}`, module);
}

export interface RequestThreadOptions {
  /** The thread's entry module (siblingEntry). */
  entry: URL;
  workerData?: unknown;
  log: Logger;
  /** Named in the log lines. */
  name: string;
}

export class RequestThread<Q, A> {
  private thread: Worker | undefined;
  /** After a failure: no new thread before this time (ms). */
  private retryAt = 0;
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: A | undefined) => void>();

  constructor(private readonly options: RequestThreadOptions) {}

  /** Questions asked and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** The thread's answer, or undefined when it has none (no thread, a failure, no answer in time). */
  ask(question: Q, transfer: ArrayBuffer[] = []): Promise<A | undefined> {
    const thread = this.started();
    if (!thread) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Kept alive only while it owes an answer (an idle thread must not hold the process open).
      if (this.waiting.size === 0) thread.ref();
      // A thread that stops answering must not hold the caller up: it is replaced.
      const deadline = setTimeout(
        () => this.stopUsing(thread, new Error(`${this.options.name} did not answer in ${ANSWER_TIMEOUT_MS} ms`)),
        ANSWER_TIMEOUT_MS,
      );
      deadline.unref();
      const answered = (answer: A | undefined) => {
        clearTimeout(deadline);
        resolve(answer);
      };
      this.waiting.set(id, answered);
      try {
        thread.postMessage({ id, question } satisfies Question<Q>, transfer);
      } catch (error) {
        // A question that cannot be sent (not cloneable) is worked by the caller; the thread is fine.
        this.waiting.delete(id);
        if (this.waiting.size === 0) thread.unref();
        this.options.log.warn({ err: error }, `${this.options.name} could not be asked; the work is done without it`);
        answered(undefined);
      }
    });
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
      const { source, eval: isScript } = threadSource(this.options.entry);
      const thread = new Worker(source, { eval: isScript, workerData: this.options.workerData });
      thread.unref();
      thread.on('message', (reply: Answer<A>) => {
        const resolve = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (this.waiting.size === 0) thread.unref();
        if ('error' in reply) {
          this.options.log.warn({ error: reply.error }, `${this.options.name} could not answer; the work is done without it`);
          resolve?.(undefined);
        } else resolve?.(reply.answer);
      });
      thread.on('error', (error) => this.stopUsing(thread, error));
      thread.on('exit', (code) => this.stopUsing(thread, new Error(`${this.options.name} exited with code ${code}`)));
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
    this.options.log.warn({ err: error }, `${this.options.name} unavailable; the work is done without it`);
    this.answerAll();
    void thread?.terminate();
  }

  /** Questions still waiting get no answer: their callers do the work. */
  private answerAll(): void {
    for (const resolve of this.waiting.values()) resolve(undefined);
    this.waiting.clear();
  }
}

/**
 * In a thread's entry: answers each question with `answer`. A question it cannot answer (it
 * throws) is reported as such, and the thread stays up for the next.
 */
export function answerQuestions<Q, A>(answer: (question: Q) => Answered<A>): void {
  parentPort!.on('message', ({ id, question }: Question<Q>) => {
    let reply: Answered<A>;
    try {
      reply = answer(question);
    } catch (error) {
      parentPort!.postMessage({ id, error: String(error) } satisfies Answer<A>);
      return;
    }
    parentPort!.postMessage({ id, answer: reply.answer } satisfies Answer<A>, reply.transfer ?? []);
  });
}
