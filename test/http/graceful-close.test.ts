import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeWithGrace } from '../../src/http/graceful-close.js';

/**
 * closeWithGrace on a stand-in for fastify, under a fake clock: requests in flight get the whole
 * grace period, the connections still busy are cut when it ends, not before, and a close that
 * finishes in time cuts nothing. (The real server's close is tested in fast-lane-server.test.ts.)
 */
function standIn() {
  let finish!: () => void;
  const closing = new Promise<void>((resolve) => (finish = resolve));
  const closeAllConnections = vi.fn(() => finish());
  const app = { close: vi.fn(() => closing), server: { closeAllConnections } } as unknown as FastifyInstance;
  return { app, closeAllConnections, finish: () => finish() };
}

/** Whether the promise has settled, once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('closeWithGrace', () => {
  it('cuts the busy connections when the grace period ends, not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { app, closeAllConnections } = standIn();
    const closed = closeWithGrace(app, 300, pino({ level: 'silent' }));
    expect(app.close).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(299);
    expect(closeAllConnections).not.toHaveBeenCalled();
    expect(await settled(closed)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(closeAllConnections).toHaveBeenCalledTimes(1);
    expect(await settled(closed)).toBe(true);
  });

  it('cuts nothing when the requests in flight finish within the grace period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { app, closeAllConnections, finish } = standIn();
    const closed = closeWithGrace(app, 300, pino({ level: 'silent' }));
    vi.advanceTimersByTime(100);
    finish();
    await closed;
    vi.advanceTimersByTime(1_000);
    expect(closeAllConnections).not.toHaveBeenCalled();
  });
});
