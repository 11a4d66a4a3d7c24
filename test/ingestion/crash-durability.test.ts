import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { openAnalyticsStore } from '../../src/app.js';
import { openAndMigrate } from '../../src/platform/db/open-and-migrate.js';
import type { AnalyticsEngine } from '../../src/platform/analytics/engine.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/platform/db/database.js';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import { runHoglet, type HogletProcess } from '../helpers/process.js';
import { storedEvents } from '../helpers/stored-events.js';
import { waitFor } from '../helpers/wait.js';

const KEY = 'phx_crash0123456789abcdefghijklmnopqrstuvwxyzAB';
let storage: TestStorage | undefined;
let database: Database | undefined;
let analytics: AnalyticsEngine | undefined;
const processes: HogletProcess[] = [];

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await database?.close();
  await analytics?.close();
  await storage?.dispose();
});

describe('a crash right after a 200 loses nothing', () => {
  it('stores every acknowledged event exactly once after SIGKILL and restart', async () => {
    storage = await freshStorage();
    const env = { ...storage.env, LOG_LEVEL: 'info' };
    const first = runHoglet(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1', HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY });
    processes.push(first);
    const [, url] = await first.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
    const projects = (await (await fetch(`${url}/api/projects/`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as any;
    const token: string = projects.results[0].api_token;
    const teamId: number = projects.results[0].id;

    const acknowledged: string[] = [];
    let sent = 0;
    let stop = false;
    const sender = async (worker: number) => {
      for (let n = 0; !stop; n++) {
        const batch = Array.from({ length: 20 }, (_, i) => ({
          uuid: randomUUID(),
          event: 'durable',
          properties: { distinct_id: `sender-${worker}-${i % 3}`, n, $set: { last: n } },
        }));
        sent += batch.length;
        try {
          const res = await fetch(`${url}/batch/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_key: token, batch }),
          });
          if (res.status === 200) acknowledged.push(...batch.map((e) => e.uuid));
        } catch {
          return; // the server is gone
        }
      }
    };
    const senders = Array.from({ length: 4 }, (_, i) => sender(i));
    // Killed in the middle of the stream, once a good number of batches were acknowledged.
    await waitFor(() => acknowledged.length, { what: 'the server to acknowledge 300 events', until: (n) => n >= 300 });
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(senders);
    await first.exited;

    // Restart on the same storage: the worker finishes the queue.
    const second = runHoglet(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1' });
    processes.push(second);
    const [, secondUrl] = await second.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/);
    database = await openAndMigrate(loadConfig(storage.env), pino({ level: 'silent' }));
    const { db } = database;
    const left = async () =>
      Number(
        (
          await db
            .selectFrom('ingestion_queue')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await waitFor(left, { what: 'the restarted server to drain the queue (rows left)', until: (n) => n === 0 });
    const outbox = async () =>
      Number(
        (
          await db
            .selectFrom('analytics_outbox')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await waitFor(outbox, { what: 'the processed events to reach ClickHouse (outbox rows left)', until: (n) => n === 0 });
    // What the API counts: a trend's total and the events query's count, read from the restarted server.
    const ask = async (query: unknown) => {
      const res = await fetch(`${secondUrl}/api/environments/${teamId}/query/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as any;
    };
    const trend = await ask({
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'durable', math: 'total' }],
      dateRange: { date_from: '-1d' },
    });
    const trendTotal = trend.results[0].count as number;
    const counted = (await ask({ kind: 'EventsQuery', select: ['count()'], event: 'durable' })).results[0][0] as number;
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);

    // The server stopped, ClickHouse's folder is this process's to read.
    const engine = await openAnalyticsStore(loadConfig(storage.env), pino({ level: 'silent' }));
    analytics = engine;
    const stored = new Map<string, number>();
    const events = await storedEvents(engine, teamId);
    for (const e of events) stored.set(e.uuid, (stored.get(e.uuid) ?? 0) + 1);
    const missing = acknowledged.filter((u) => !stored.has(u));
    expect(missing, `${missing.length} acknowledged events lost`).toEqual([]);
    expect([...stored.values()].every((c) => c === 1)).toBe(true);
    expect(events.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(events.length).toBeLessThanOrEqual(sent);
    expect(trendTotal).toBe(events.length);
    expect(counted).toBe(events.length);
  });
});
