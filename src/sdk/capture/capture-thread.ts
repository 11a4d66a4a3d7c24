import type { Logger } from 'pino';
import { RequestThread, siblingEntry } from '../../platform/request-thread.js';
import { captureRequestRows, type CaptureRequestInput, type CaptureRequestOutcome } from './capture-request.js';

/**
 * Bodies of at least this much JSON may be worked on the parse thread (INLINE_EVERY). Below it,
 * moving the body and the rows between threads costs about what the work itself does (a single
 * event is well under 2 KB; a batch of a hundred is tens of KB).
 */
export const OFFLOAD_MIN_BYTES = 4 * 1024;
/**
 * One large request in this many is worked where it arrives, the others on the thread: the
 * process's own thread also reads, commits and answers every request (about a third of a batch
 * request's cost), so the two are about equally busy when the parse thread takes three quarters
 * of the parsing (measured on /batch/ with 100 events, docs/benchmarks.md; sending every one to
 * it, or only one at a time, gained little or nothing).
 */
export const INLINE_EVERY = 4;
/** Requests the thread may have in hand at once; more are worked where they arrive. */
export const MAX_IN_HAND = 32;
/**
 * Bodies of at least this much text always go to the thread (unless it cannot start): parsing
 * one takes tens of milliseconds or more, which on the process's own thread every other request
 * would wait for.
 */
export const ALWAYS_OFFLOAD_BYTES = 1024 * 1024;

/**
 * About how much text a body holds: its length, or for a gzip body (posthog-js sends them with no
 * hint) the larger of that and the size its trailer gives (of the last member, modulo 4 GiB: an
 * estimate, never trusted beyond choosing a thread).
 */
export function workSize(body: Uint8Array): number {
  if (body.length < 18 || body[0] !== 0x1f || body[1] !== 0x8b) return body.length;
  const end = body.length;
  const trailer = (body[end - 4]! | (body[end - 3]! << 8) | (body[end - 2]! << 16) | (body[end - 1]! << 24)) >>> 0;
  return Math.max(body.length, trailer);
}

/**
 * Capture's parse thread: decoding and parsing a batch body and writing its queue rows is most of
 * what a capture request costs (the commit and the answer are the rest), and one process's own
 * thread does it for every request. Most large bodies are worked here instead, on the other core.
 * The same pure function does the work on either thread (capture-request.ts), so the answer is
 * the same; without a thread (or one that failed) every request is worked where it arrived.
 */
export class CaptureThread {
  private readonly thread: RequestThread<CaptureRequestInput, CaptureRequestOutcome>;
  /** Requests the thread answered (for logs and tests). */
  answeredOnThread = 0;
  /** Large requests seen, for INLINE_EVERY. */
  private large = 0;

  constructor(log: Logger) {
    this.thread = new RequestThread({ entry: siblingEntry(import.meta.url, 'capture-thread-entry'), log, name: 'capture parse thread' });
  }

  async rows(input: CaptureRequestInput): Promise<CaptureRequestOutcome> {
    const size = workSize(input.body);
    if (size < OFFLOAD_MIN_BYTES) return captureRequestRows(input);
    this.large++;
    const mayStay = size < ALWAYS_OFFLOAD_BYTES;
    if (mayStay && (this.large % INLINE_EVERY === 0 || this.thread.pending >= MAX_IN_HAND)) return captureRequestRows(input);
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
