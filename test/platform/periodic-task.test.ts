import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import { PeriodicTask, type PeriodicTaskOptions, type RoundWait } from '../../src/platform/periodic-task.js';

/**
 * Under a fake clock (setTimeout only; setImmediate stays real): a wait between rounds ends when
 * its time is up or the task is woken, and at no other moment, so "no round yet" is a fact of the
 * test, not a guess after waiting.
 */
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

const tasks: PeriodicTask[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(tasks.splice(0).map((task) => task.stop()));
});

/** Lets every callback queued so far run (a round's awaits, the loop's next step). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether the promise has settled once the callbacks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await settle();
  return done;
}

/** The rounds run once the clock has moved on by `ms` and what that let run has run. */
async function roundsAfter(t: { rounds: number }, ms: number): Promise<number> {
  vi.advanceTimersByTime(ms);
  await settle();
  return t.rounds;
}

interface Logged {
  level: number;
  msg: string;
  err?: { message: string };
}

/** A task whose rounds run `round` (counted), and the lines it logs. */
function task(options: Partial<PeriodicTaskOptions>, round: (n: number) => Promise<RoundWait> = async () => undefined) {
  const lines: Logged[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Logged) });
  const state = { rounds: 0, lines };
  const periodic = new PeriodicTask(log, () => round(++state.rounds), { name: 'test task', intervalMs: 60_000, ...options });
  tasks.push(periodic);
  return Object.assign(state, { task: periodic });
}

const unavailable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('PeriodicTask', () => {
  it('runs a round at start, then one every interval; wake runs the next one at once', async () => {
    const t = task({});
    t.task.start();
    expect(t.rounds).toBe(1);
    await settle();
    expect(await roundsAfter(t, 59_999)).toBe(1);
    expect(await roundsAfter(t, 1)).toBe(2);
    t.task.wake();
    await settle();
    expect(t.rounds).toBe(3);
    expect(t.task.running).toBe(true);
  });

  it('waits an interval before the first round when asked to', async () => {
    const t = task({ waitFirst: true });
    t.task.start();
    expect(await roundsAfter(t, 59_999)).toBe(0);
    expect(await roundsAfter(t, 1)).toBe(1);
  });

  it('waits what a round returns: 0 for none, a number of milliseconds, nothing for the interval', async () => {
    const t = task({}, async (n) => (n < 3 ? 0 : n === 3 ? 500 : undefined));
    t.task.start();
    await settle();
    expect(t.rounds).toBe(3);
    expect(await roundsAfter(t, 500)).toBe(4);
    expect(await roundsAfter(t, 59_999)).toBe(4);
    expect(await roundsAfter(t, 1)).toBe(5);
  });

  it('stops after the round in progress, and runs no round after it', async () => {
    let finish!: () => void;
    const t = task({}, () => new Promise<undefined>((resolve) => (finish = () => resolve(undefined))));
    t.task.start();
    expect(t.rounds).toBe(1);
    const stopping = t.task.stop();
    expect(t.task.running).toBe(false);
    expect(t.task.stopping).toBe(true); // a long round looks at this to end early
    expect(await settled(stopping)).toBe(false);
    finish();
    expect(await settled(stopping)).toBe(true);
    expect(t.task.stopping).toBe(false);
    expect(await roundsAfter(t, 120_000)).toBe(1);
    // Started again, it runs again, and waits its interval after the round (the stop's wake is spent).
    t.task.start();
    expect(t.rounds).toBe(2);
    finish();
    await settle();
    expect(t.rounds).toBe(2);
    expect(await roundsAfter(t, 60_000)).toBe(3);
    finish();
  });

  it('stops while waiting for the next round at once', async () => {
    const t = task({ waitFirst: true });
    t.task.start();
    expect(await settled(t.task.stop())).toBe(true);
    expect(t.rounds).toBe(0);
  });

  it('logs a failed round once, with its message and level, and tries again after the interval and the failure pause', async () => {
    const t = task(
      { intervalMs: 1000, failureMessage: 'merging failed; retrying later', failureLevel: 'warn', failurePauseMs: 5000 },
      async (n) => {
        if (n === 1) throw new Error('merge refused');
        return undefined;
      },
    );
    t.task.start();
    await settle();
    expect(t.lines).toMatchObject([{ level: 40, msg: 'merging failed; retrying later', err: { message: 'merge refused' } }]);
    expect(await roundsAfter(t, 5999)).toBe(1);
    expect(await roundsAfter(t, 1)).toBe(2);
    // A round that succeeds waits the interval alone, and logs nothing.
    expect(await roundsAfter(t, 1000)).toBe(3);
    expect(t.lines).toHaveLength(1);
  });

  it("logs a failed round at error level with the task's name when it has no message", async () => {
    const t = task({}, async () => {
      throw new Error('broken');
    });
    t.task.start();
    await settle();
    expect(t.lines).toMatchObject([{ level: 50, msg: 'test task failed; retrying later', err: { message: 'broken' } }]);
  });

  it('does not log a round failed by an unreachable database, and tries again after the interval alone', async () => {
    const t = task({ intervalMs: 1000, failurePauseMs: 60_000 }, async (n) => {
      if (n <= 2) throw unavailable();
      return undefined;
    });
    t.task.start();
    await settle();
    expect(await roundsAfter(t, 1000)).toBe(2);
    expect(await roundsAfter(t, 1000)).toBe(3);
    expect(t.lines).toEqual([]);
  });
});
