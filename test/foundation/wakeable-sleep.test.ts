import { describe, expect, it } from 'vitest';
import { WakeableSleep } from '../../src/platform/wakeable-sleep.js';

/** Resolves with whether `promise` settled before a timer of `ms` fired. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([promise.then(() => true as const), timeout]);
  clearTimeout(timer);
  return settled;
}

describe('WakeableSleep', () => {
  it('ends a pause when woken', async () => {
    const pause = new WakeableSleep();
    const sleeping = pause.sleep(60_000);
    pause.wake();
    expect(await settlesWithin(sleeping, 1000)).toBe(true);
  });

  it('keeps a wake that came between pauses, for the next pause only', async () => {
    const pause = new WakeableSleep();
    pause.wake(); // work arrived while the loop was busy, not sleeping
    pause.wake();
    expect(await settlesWithin(pause.sleep(60_000), 1000)).toBe(true);
    // Used up: the pause after it waits again (here for its own short time).
    const next = pause.sleep(60_000);
    expect(await settlesWithin(next, 200)).toBe(false);
    pause.wake();
    expect(await settlesWithin(next, 1000)).toBe(true);
  });
});
