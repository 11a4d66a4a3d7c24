import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WakeableSleep } from '../../src/platform/wakeable-sleep.js';

/**
 * Under a fake clock: a pause ends when woken or when its time is up, and at no other moment, so
 * "still sleeping" is a fact of the test, not a guess after waiting.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether the promise has settled once the callbacks queued so far have run (real setImmediate). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('WakeableSleep', () => {
  it('ends a pause when woken, before its time', async () => {
    const pause = new WakeableSleep();
    const sleeping = pause.sleep(60_000);
    vi.advanceTimersByTime(59_999);
    expect(await settled(sleeping)).toBe(false);
    pause.wake();
    expect(await settled(sleeping)).toBe(true);
  });

  it('ends a pause nobody wakes when its time is up', async () => {
    const pause = new WakeableSleep();
    const sleeping = pause.sleep(60_000);
    vi.advanceTimersByTime(59_999);
    expect(await settled(sleeping)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await settled(sleeping)).toBe(true);
  });

  it('keeps a wake that came between pauses, for the next pause only', async () => {
    const pause = new WakeableSleep();
    pause.wake(); // work arrived while the loop was busy, not sleeping
    pause.wake();
    expect(await settled(pause.sleep(60_000))).toBe(true);
    // Used up: the pause after it waits again.
    const next = pause.sleep(60_000);
    vi.advanceTimersByTime(59_999);
    expect(await settled(next)).toBe(false);
    pause.wake();
    expect(await settled(next)).toBe(true);
  });
});
