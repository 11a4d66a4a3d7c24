import { TestRunner } from 'vitest';

/**
 * The one way tests wait: for a condition, never for a clock. Tests order their steps by what the
 * system did (a response, a log line, a row, an event), and assert a negative only after a later
 * positive proves the system got past the point where the negative would have shown.
 */

export interface WaitOptions<T> {
  /** What is awaited, in words: the failure names it, with the last value seen. */
  what: string;
  /** The condition on the value read; without it, a truthy value. */
  until?: (value: T) => boolean;
  /**
   * How long to try before failing. By default until shortly before the running test's own
   * timeout (so the failure names `what` instead of a bare "test timed out"); 30 s in hooks.
   */
  timeoutMs?: number;
  /** Pause between reads (not a clock the test depends on: only how often it looks). */
  intervalMs?: number;
}

const MARGIN_MS = 1_000;
const OUTSIDE_A_TEST_MS = 30_000;

function deadline(timeoutMs: number | undefined): number {
  if (timeoutMs !== undefined) return Date.now() + timeoutMs;
  const test = TestRunner.getCurrentTest();
  const started = test?.result?.startTime;
  if (test && started !== undefined && test.timeout > 0) return Math.max(started + test.timeout - MARGIN_MS, Date.now() + MARGIN_MS);
  return Date.now() + OUTSIDE_A_TEST_MS;
}

function show(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === 'string') return JSON.stringify(value.length > 600 ? `${value.slice(0, 600)}…` : value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 600 ? `${text.slice(0, 600)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Reads `read` until its value holds (`until`, or truthy), and returns that value. A read that
 * throws counts as "not yet" (a server still starting, an `expect` not yet met) and is the last
 * value seen. Fails with `what` and the last value once the time is up.
 */
export async function waitFor<T>(read: () => T | Promise<T>, options: WaitOptions<T>): Promise<T> {
  const end = deadline(options.timeoutMs);
  const holds = options.until ?? ((value: T) => Boolean(value));
  const interval = options.intervalMs ?? 20;
  let last: unknown;
  for (;;) {
    try {
      const value = await read();
      if (holds(value)) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= end) throw new Error(`timed out waiting for ${options.what}; last seen: ${show(last)}`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * Waits until `Date.now()` has moved past `after` (by default: now): so that a timestamp taken
 * next differs from one taken before, or a time-to-live that the code under test measures on the
 * wall clock (a lease) has run out. A condition on the clock's value, not a fixed pause.
 */
export async function clockPast(after = Date.now()): Promise<void> {
  for (let left = after - Date.now(); left >= 0; left = after - Date.now()) {
    await new Promise((resolve) => (left > 1 ? setTimeout(resolve, left) : setImmediate(resolve)));
  }
}
