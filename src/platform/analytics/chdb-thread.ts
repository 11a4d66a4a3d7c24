import { Worker } from 'node:worker_threads';
import { siblingEntry, threadSource } from '../request-thread.js';
import { AnalyticsError } from './engine.js';
import type { ThreadReply, ThreadRequest } from './chdb-thread-entry.js';

type Failure = { name: string; message: string; code?: number };
type Pending = { resolve: (text: string) => void; reject: (error: Error) => void };
type Outgoing = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** ClickHouse refused the statement: its message and code (named ChdbConnectionError when the folder is another process's). */
function failure(error: Failure): AnalyticsError {
  const failed = new AnalyticsError(error.message, error.code);
  failed.name = error.name === 'ChdbConnectionError' ? 'ChdbConnectionError' : 'AnalyticsError';
  return failed;
}

/**
 * The thread of this process that runs the embedded ClickHouse (chdb-thread-entry.ts). chdb's
 * library takes a third of a second to load and a folder a few tenths more to open, synchronously:
 * on the main thread that held every request the server had just started answering. One thread a
 * process, started with the first folder and kept (chdb is loaded once a process); it never keeps
 * the process running by itself.
 */
class ChdbThreadPort {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failed: Error | undefined;
  private readonly worker: Worker;

  constructor() {
    const { source, eval: isScript } = threadSource(siblingEntry(import.meta.url, 'chdb-thread-entry'));
    this.worker = new Worker(source, { eval: isScript });
    this.worker.unref();
    this.worker.on('message', (reply: ThreadReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(failure(reply.error));
      else waiting.resolve(reply.text);
    });
    const end = (error: Error) => {
      this.failed ??= error;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      if (thread === this) thread = undefined;
    };
    this.worker.on('error', (error) =>
      end(new AnalyticsError(`the ClickHouse thread failed: ${error.message}`, undefined, { cause: error })),
    );
    this.worker.on('exit', (code) => end(new AnalyticsError(`the ClickHouse thread stopped (exit code ${code})`)));
  }

  send(request: Outgoing): Promise<string> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }
}

let thread: ChdbThreadPort | undefined;

/** The folder open in this process's ClickHouse thread. */
export class ChdbThread {
  private closed = false;

  private constructor(private readonly port: ChdbThreadPort) {}

  /** Opens the folder; rejects with ClickHouse's error (named ChdbConnectionError when another process holds it). */
  static async start(path: string, args: string[]): Promise<ChdbThread> {
    const port = (thread ??= new ChdbThreadPort());
    await port.send({ op: 'open', path, args });
    return new ChdbThread(port);
  }

  /** A statement with `{name:Type}` parameters bound by ClickHouse; the answer in `format`. */
  query(sql: string, params: Record<string, unknown>, format: string): Promise<string> {
    if (this.closed) return Promise.reject(new AnalyticsError('the analytics engine is closed'));
    return this.port.send({ op: 'bind', sql, params, format });
  }

  /** A statement as it is (an insert carrying its rows). */
  run(sql: string, format: string): Promise<string> {
    if (this.closed) return Promise.reject(new AnalyticsError('the analytics engine is closed'));
    return this.port.send({ op: 'raw', sql, format });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.port.send({ op: 'close' }).catch(() => undefined);
  }
}
