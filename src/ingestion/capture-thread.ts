import type { Logger } from 'pino';
import { RequestThread, siblingEntry } from '../lib/request-thread.js';
import { captureRequestRows, type CaptureRequestInput, type CaptureRequestOutcome } from './core/capture-request.js';

/**
 * Bodies at least this large are worked on the parse thread when it is free. Below it, moving
 * the body and the rows between threads costs about what the work itself does (a single event is
 * well under 2 KB; posthog-node's batches of 100 are tens of KB).
 */
export const OFFLOAD_MIN_BYTES = 16 * 1024;
/**
 * Requests the thread may have in hand at once: when it is that busy, the next request is worked
 * where it arrived, so both threads keep working under load and none waits in a line.
 */
export const MAX_IN_HAND = 2;

/**
 * Capture's parse thread: decoding and parsing a batch body and writing its queue rows is most of
 * what a capture request costs (the commit and the answer are the rest), and one process's own
 * thread does it for every request. Large bodies are worked here instead when the thread has room,
 * on the other core. The same pure function does the work on either thread (capture-request.ts),
 * so the answer is the same; without a thread (or one that failed) every request is worked where
 * it arrived.
 */
export class CaptureThread {
  private readonly thread: RequestThread<CaptureRequestInput, CaptureRequestOutcome>;
  /** Requests the thread answered (for logs and tests). */
  answeredOnThread = 0;

  constructor(log: Logger) {
    this.thread = new RequestThread({ entry: siblingEntry(import.meta.url, 'capture-thread-entry'), log, name: 'capture parse thread' });
  }

  async rows(input: CaptureRequestInput): Promise<CaptureRequestOutcome> {
    if (input.body.length < OFFLOAD_MIN_BYTES || this.thread.pending >= MAX_IN_HAND) return captureRequestRows(input);
    // A copy the thread can own: the request's buffer may be a view of a larger one.
    const body = new Uint8Array(input.body);
    const answer = await this.thread.ask({ ...input, body }, [body.buffer]);
    if (!answer) return captureRequestRows(input);
    this.answeredOnThread++;
    return answer;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
