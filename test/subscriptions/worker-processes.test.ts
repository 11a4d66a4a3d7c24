import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHoglet, type HogletProcess } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createInsight, env } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { LOOPBACK_TARGETS_ENV, startReceiver, startSmtp } from './receivers.js';

/**
 * Two real `hoglet worker` processes on the same database: every due subscription is delivered
 * exactly once, invites included, however the two interleave.
 */
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const workers: HogletProcess[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  receiver = await startReceiver();
  // No scheduler in the server: only the two worker processes deliver.
  server = await startTestServer({ ...LOOPBACK_TARGETS_ENV, INGESTION_WORKER: 'off', SMTP_URL: smtp.url });
});

afterAll(async () => {
  for (const w of workers) {
    w.child.kill('SIGTERM');
    await w.exited;
  }
  await server?.close();
  await smtp?.close();
  await receiver?.close();
});

describe('two worker processes', () => {
  it('deliver each due occurrence once', async () => {
    const insight = await createInsight(server);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      for (const [type, value] of [
        ['email', `person-${i}@example.com`],
        ['webhook', `${receiver.url}/proc-${i}`],
      ] as const) {
        const res = await server.request(`${env(server)}/subscriptions/`, {
          method: 'POST',
          body: { insight: insight.id, target_type: type, target_value: value, frequency: 'daily', start_date: '2026-01-01T06:00:00Z' },
        });
        expect(res.status, res.text).toBe(201);
        ids.push(res.body.id);
      }
    }
    // Missed while no worker ran: due three days ago.
    await server.running.ctx.database.db
      .updateTable('subscriptions')
      .set({ next_delivery_date: new Date(Date.now() - 3 * 86_400_000).toISOString() })
      .where('id', 'in', ids)
      .execute();

    const env2 = { ...server.storage.env, ...LOOPBACK_TARGETS_ENV, SMTP_URL: smtp.url, SUBSCRIPTION_POLL_MS: '100', PORT: '0' };
    workers.push(runHoglet(['worker'], env2), runHoglet(['worker'], env2));
    await Promise.all(workers.map((w) => w.waitFor(/subscription scheduler started/)));

    const isReport = (m: { subject: string }) => m.subject.startsWith('Hoglet Insight report');
    await waitFor(() => smtp.messages.filter(isReport).length >= 4 && smtp.messages.length >= 8 && receiver.posts.length >= 4, {
      what: 'all deliveries',
    });
    // Past the point where a duplicate could still come: no claim is held (a process sends only
    // while it holds its claim, and the receivers record a message before acknowledging it), no
    // invite is owed and no delivery is due any more, so every message sent is in by now.
    const { db } = server.running.ctx.database;
    await waitFor(
      () =>
        db
          .selectFrom('subscriptions')
          .select(['id', 'claim_token', 'pending_invite', 'next_delivery_date'])
          .where('id', 'in', ids)
          .execute(),
      {
        what: 'every subscription delivered, released and due next in the future',
        until: (rows) =>
          rows.every((r) => r.claim_token === null && r.pending_invite === null && new Date(r.next_delivery_date!).getTime() > Date.now()),
      },
    );
    for (let i = 0; i < 4; i++) {
      const to = `person-${i}@example.com`;
      expect(
        smtp.messages.filter((m) => m.to.includes(to) && isReport(m)),
        to,
      ).toHaveLength(1);
      expect(
        smtp.messages.filter((m) => m.to.includes(to) && !isReport(m)),
        to,
      ).toHaveLength(1);
      expect(receiver.posts.filter((p) => p.path === `/proc-${i}`)).toHaveLength(1);
    }
    const rows = await server.running.ctx.database.db
      .selectFrom('subscriptions')
      .select(['next_delivery_date'])
      .where('id', 'in', ids)
      .execute();
    for (const row of rows) expect(new Date(row.next_delivery_date!).getTime()).toBeGreaterThan(Date.now());
  });
});
