import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { chunkPayloads } from '../../src/ingestion/core/queue-rows.js';
import type { QueuedEvent } from '../../src/ingestion/queue.js';
import { BACKEND, freshStorage, type TestStorage } from '../helpers/backend.js';

/**
 * The default deployment after a crash: a server starts on a database whose queue holds a large
 * backlog, and its inline worker drains it while the server goes on answering. The worker must
 * let requests in between its batches (better-sqlite3 is synchronous, and the prepare thread's
 * answers arrive in a message handler that drains up to 1000 of them in one go: without explicit
 * turns the drain held the event loop for seconds).
 */
const BACKLOG = BACKEND === 'sqlite' ? 200_000 : 50_000;
const HEALTH_BOUND_MS = 200;

let storage: TestStorage | undefined;
const apps: RunningApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  await storage?.dispose();
});

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

function backlogEvents(now: string): QueuedEvent[] {
  const events: QueuedEvent[] = [];
  for (let n = 0; n < BACKLOG; n++) {
    events.push({
      uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      event: n % 10 === 0 ? '$identify' : '$pageview',
      distinct_id: `visitor-${n % 5000}`,
      properties: { $current_url: `https://shop.test/p/${n % 50}`, $browser: 'Chrome', n, $set: { plan: n % 3 === 0 ? 'pro' : 'free' } },
      timestamp: now,
      sent_at: null,
      now,
      ip: null,
    });
  }
  return events;
}

/** Queued as capture queues them: chunks of 100 events. */
async function queueBacklog(app: RunningApp): Promise<void> {
  const teamId = app.bootstrap!.team.id;
  const now = new Date().toISOString();
  const chunks = chunkPayloads(backlogEvents(now));
  for (let i = 0; i < chunks.length; i += 200) {
    await app.ctx.ingestionQueue.enqueueChunks(teamId, 'realtime', now, chunks.slice(i, i + 200));
  }
}

async function queued(app: RunningApp): Promise<number> {
  const row = await app.ctx.database.db
    .selectFrom('ingestion_queue')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('the inline worker draining a backlog', () => {
  it(`lets /_health answer within ${HEALTH_BOUND_MS} ms throughout`, async () => {
    storage = await freshStorage();
    const base = { ...storage.env, PORT: '0', HOST: '127.0.0.1' };
    // A server without a worker accepts the events (as one whose worker died would have).
    const first = await startApp(loadConfig({ ...base, INGESTION_WORKER: 'off' }), { log });
    await queueBacklog(first);
    await first.close();

    // The default server on the same storage: its inline worker finds the backlog at start.
    const second = await startApp(loadConfig(base), { log });
    apps.push(second);
    expect(second.worker).toBeDefined();
    const waits: number[] = [];
    let left = await queued(second);
    expect(left).toBeGreaterThan(0);
    while (left > 0) {
      const started = performance.now();
      const health = await fetch(`${second.url}/_health`);
      waits.push(performance.now() - started);
      expect(health.status).toBe(200);
      left = await queued(second);
    }
    const stored = await second.ctx.database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(BACKLOG);
    // Answered many times during the drain, never after a long wait.
    expect(waits.length).toBeGreaterThan(10);
    expect(Math.max(...waits)).toBeLessThan(HEALTH_BOUND_MS);
  }, 180_000);
});
