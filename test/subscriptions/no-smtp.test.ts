import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deliverer } from '../../src/subscriptions/delivery/index.js';
import { SubscriptionScheduler } from '../../src/subscriptions/scheduler.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { LOOPBACK_TARGETS_ENV, loopbackTargets } from './receivers.js';
import { createInsight, env } from './helpers.js';

/** A server without SMTP_URL: e-mail subscriptions say they cannot be delivered, and their deliveries say why they failed. */
let server: TestServer;
let insight: any;

beforeAll(async () => {
  server = await startTestServer({ ...LOOPBACK_TARGETS_ENV, INGESTION_WORKER: 'off' });
  insight = await createInsight(server);
});
afterAll(async () => {
  await server?.close();
});

const base = () => `${env(server)}/subscriptions`;
const WARNING =
  '299 - "e-mail is not configured on this server: SMTP_URL is not set: the e-mails of this subscription will fail until it is"';
const NO_SMTP =
  'e-mail is not configured on this server: SMTP_URL is not set. To send e-mail, set SMTP_URL ' +
  '(smtp://user:password@host:587, or smtps:// for TLS) and EMAIL_FROM (the sender) where Hoglet and its workers run, then restart them';
const SUBSCRIPTION_KEYS = [
  'id',
  'dashboard',
  'insight',
  'target_type',
  'target_value',
  'frequency',
  'interval',
  'byweekday',
  'bysetpos',
  'count',
  'start_date',
  'until_date',
  'created_at',
  'created_by',
  'deleted',
  'title',
  'summary',
  'next_delivery_date',
  'invite_message',
];

async function create(targetType: string, targetValue: string) {
  return server.request(`${base()}/`, {
    method: 'POST',
    body: {
      insight: insight.id,
      target_type: targetType,
      target_value: targetValue,
      frequency: 'daily',
      start_date: '2030-01-01T08:00:00Z',
    },
  });
}

describe('e-mail subscriptions without SMTP', () => {
  it('warn in a header when created or updated, the body as PostHog’s', async () => {
    const email = await create('email', 'ada@example.com');
    expect(email.status).toBe(201);
    expect(email.headers.get('warning')).toBe(WARNING);
    expect(Object.keys(email.body)).toEqual(SUBSCRIPTION_KEYS);

    const hook = await create('webhook', 'http://127.0.0.1:9/hook');
    expect(hook.status).toBe(201);
    expect(hook.headers.get('warning')).toBeNull();

    const patched = await server.request(`${base()}/${email.body.id}/`, { method: 'PATCH', body: { title: 'Renamed' } });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('warning')).toBe(WARNING);
    const toEmail = await server.request(`${base()}/${hook.body.id}/`, {
      method: 'PATCH',
      body: { target_type: 'email', target_value: 'bob@example.com' },
    });
    expect(toEmail.headers.get('warning')).toBe(WARNING);
    const put = await server.request(`${base()}/${hook.body.id}/`, {
      method: 'PUT',
      body: { target_type: 'email', target_value: 'bob@example.com', frequency: 'weekly', start_date: '2030-01-01T08:00:00Z' },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.headers.get('warning')).toBe(WARNING);
    // Reading says nothing; a deleted subscription sends nothing, so it needs no warning.
    expect((await server.request(`${base()}/${email.body.id}/`)).headers.get('warning')).toBeNull();
    for (const id of [email.body.id, hook.body.id]) {
      const deleted = await server.request(`${base()}/${id}/`, { method: 'PATCH', body: { deleted: true } });
      expect(deleted.headers.get('warning')).toBeNull();
    }
  });

  it('record e-mail deliveries as failed with the reason', async () => {
    const s = (await create('email', 'cy@example.com')).body;
    const test = await server.request(`${base()}/${s.id}/test_delivery/`, { method: 'POST' });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({
      is_test: true,
      target_type: 'email',
      target_value: 'cy@example.com',
      status: 'failed',
      error: NO_SMTP,
      next_attempt_at: null,
    });
    expect(test.body.attempts.map((a: any) => [a.attempt, a.status, a.error])).toEqual([[1, 'failed', NO_SMTP]]);

    // The scheduler of a process without SMTP: the invite and the due occurrence fail at once, a
    // configuration error no retry mends (PostHog's ImproperlyConfigured), with the settings to set.
    const { database } = server.running.ctx;
    const scheduler = new SubscriptionScheduler(
      database,
      pino({ level: 'silent' }),
      new Deliverer(database, server.running.ctx.analytics, {
        allowedHosts: loopbackTargets,
        siteUrl: 'http://hoglet.test',
        smtpUrl: undefined,
        emailFrom: 'hoglet@localhost',
      }),
      { backoffMs: 60_000 },
    );
    const due = new Date(s.next_delivery_date);
    expect(await scheduler.runOnce(due)).toMatchObject({ sent: 0, failed: 2 });
    const { results } = (await server.request(`${base()}/${s.id}/deliveries/`)).body;
    expect(results.map((d: any) => [d.trigger_type, d.status, d.attempt, d.error, d.next_attempt_at])).toEqual([
      ['scheduled', 'failed', 1, NO_SMTP, null],
      ['target_change', 'failed', 1, NO_SMTP, null],
      ['manual', 'failed', 1, NO_SMTP, null],
    ]);
    expect(results[0].attempts).toEqual([expect.objectContaining({ attempt: 1, status: 'failed', error: NO_SMTP })]);

    // Nothing is tried again: not a minute later, when a transient failure would be, nor an hour
    // later. The schedule moved on to the next day's occurrence.
    expect(await scheduler.runOnce(new Date(due.getTime() + 61_000))).toEqual({ sent: 0, failed: 0, skipped: 0, invites: 0 });
    expect(await scheduler.runOnce(new Date(due.getTime() + 3_600_000))).toEqual({ sent: 0, failed: 0, skipped: 0, invites: 0 });
    expect((await server.request(`${base()}/${s.id}/deliveries/`)).body.count).toBe(3);
    expect((await server.request(`${base()}/${s.id}/`)).body.next_delivery_date).toBe('2030-01-02T08:00:00Z');
  });
});
