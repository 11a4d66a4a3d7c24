import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDrfDateTime } from '../../src/posthog/drf-datetime.js';
import { Deliverer } from '../../src/subscriptions/delivery/index.js';
import { SubscriptionScheduler } from '../../src/subscriptions/scheduler.js';
import { createKey, createProject } from '../helpers/fixtures.js';
import { runHoglet } from '../helpers/process.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createInsight, env } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { LOOPBACK_TARGETS_ENV, loopbackTargets, startReceiver, startSmtp } from './receivers.js';

/**
 * The delivery log through the API and the CLI, after real deliveries: a scheduler runs on its
 * polling loop (fast, with a short backoff) against a real SMTP sink and a real HTTP receiver.
 */
const DAY = 86_400_000;
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let scheduler: SubscriptionScheduler;
let insight: any;
const logLines: any[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  receiver = await startReceiver();
  // No scheduler in the server: the test's own, whose log lines it reads, is the only one.
  server = await startTestServer({
    ...LOOPBACK_TARGETS_ENV,
    SMTP_URL: smtp.url,
    INGESTION_WORKER: 'off',
    EMAIL_FROM: 'reports@hoglet.test',
  });
  const log = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  const { database } = server.running.ctx;
  const deliverer = new Deliverer(database, server.running.ctx.analytics, {
    allowedHosts: loopbackTargets,
    siteUrl: 'http://hoglet.test',
    smtpUrl: smtp.url,
    emailFrom: 'reports@hoglet.test',
  });
  scheduler = new SubscriptionScheduler(database, log, deliverer, { pollMs: 50, backoffMs: 50, changes: server.running.ctx.changes });
  scheduler.start();
  insight = await createInsight(server, { name: 'Orders' });
});

afterAll(async () => {
  await scheduler?.stop();
  await server?.close();
  await smtp?.close();
  await receiver?.close();
});

const base = (teamId?: number) => `${env(server, teamId)}/subscriptions`;

/** Yesterday at 08:00 UTC: an occurrence of a daily schedule started ten days ago at 08:00. */
function yesterdayAtEight(): Date {
  const d = new Date(Date.now() - DAY);
  d.setUTCHours(8, 0, 0, 0);
  return d;
}

async function subscribe(body: Record<string, unknown>, teamId?: number) {
  const start = new Date(yesterdayAtEight().getTime() - 9 * DAY);
  const res = await server.request(`${base(teamId)}/`, {
    method: 'POST',
    body: { insight: insight.id, frequency: 'daily', start_date: start.toISOString(), ...body },
  });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

/** The occurrence of yesterday 08:00 falls due (as if the time had come), and the scheduler is told. */
async function makeDue(id: number): Promise<Date> {
  const due = yesterdayAtEight();
  await server.running.ctx.database.db
    .updateTable('subscriptions')
    .set({ next_delivery_date: due.toISOString() })
    .where('id', '=', id)
    .execute();
  await server.running.ctx.changes.publish({ topic: 'subscriptions', id }).catch(() => undefined);
  return due;
}

async function deliveries(id: number, query = '') {
  const res = await server.request(`${base()}/${id}/deliveries/${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Polls the deliveries endpoint until `check` holds for its first page. */
async function waitForDeliveries(id: number, check: (results: any[]) => boolean, what: string) {
  return waitFor(async () => (await deliveries(id)).results as any[], { what, until: check });
}

const DELIVERY_KEYS = [
  'id',
  'subscription',
  'trigger_type',
  'is_test',
  'scheduled_at',
  'skipped_occurrences',
  'target_type',
  'target_value',
  'webhook_url',
  'status',
  'attempt',
  'error',
  'created_at',
  'last_attempt_at',
  'next_attempt_at',
  'delivered_at',
  'attempts',
];
const DRF_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/;

describe('subscription deliveries', () => {
  it('lists an e-mail subscription’s invite and its scheduled delivery to a real SMTP server, with their attempts', async () => {
    const s = await subscribe({ target_type: 'email', target_value: 'ada@example.com' });
    const [invite] = await waitForDeliveries(s.id, (r) => r[0]?.status === 'delivered', 'the invite');
    expect(invite).toMatchObject({
      subscription: s.id,
      trigger_type: 'target_change',
      is_test: false,
      scheduled_at: null,
      target_type: 'email',
      target_value: 'ada@example.com',
    });

    const due = await makeDue(s.id);
    const results = await waitForDeliveries(s.id, (r) => r.length === 2 && r[0].status === 'delivered', 'the scheduled delivery');
    const reports = smtp.messages.filter((m) => m.to.includes('ada@example.com') && m.subject === 'Hoglet Insight report - Orders');
    expect(reports).toHaveLength(1);

    // Newest first: the scheduled delivery, then the invite.
    const [scheduled] = results;
    expect(Object.keys(scheduled)).toEqual(DELIVERY_KEYS);
    expect(scheduled).toMatchObject({
      subscription: s.id,
      trigger_type: 'scheduled',
      is_test: false,
      scheduled_at: formatDrfDateTime(due),
      target_type: 'email',
      target_value: 'ada@example.com',
      webhook_url: null,
      status: 'delivered',
      attempt: 1,
      error: null,
      next_attempt_at: null,
    });
    for (const key of ['created_at', 'last_attempt_at', 'delivered_at']) expect(scheduled[key], key).toMatch(DRF_DATE);
    expect(scheduled.attempts).toEqual([
      { attempt: 1, status: 'delivered', error: null, started_at: scheduled.last_attempt_at, finished_at: expect.stringMatching(DRF_DATE) },
    ]);
    expect(results[1]).toMatchObject({ id: invite.id, trigger_type: 'target_change', status: 'delivered', attempt: 1 });
    expect(scheduled.id).toBeGreaterThan(invite.id);

    // The same under /api/projects/.
    const viaProject = await server.request(`/api/projects/${server.bootstrap.team.id}/subscriptions/${s.id}/deliveries/`);
    expect(viaProject.body.results).toEqual(results);

    // One structured line per successful delivery.
    const lines = logLines.filter((l) => l.msg === 'subscription delivered' && l.subscription === s.id);
    expect(lines.map((l) => [l.level, l.trigger, l.targetType, l.occurrence, l.attempt])).toEqual([
      [30, 'invite', 'email', null, 1],
      [30, 'scheduled', 'email', due.toISOString(), 1],
    ]);
  });

  it('lists both attempts of a webhook delivery that failed once, then went out', async () => {
    const path = '/flaky?token=s3cr3t-value';
    receiver.failures.set(path, 1);
    const s = await subscribe({ target_type: 'webhook', target_value: `${receiver.url}${path}` });
    const due = await makeDue(s.id);
    const [delivery] = await waitForDeliveries(s.id, (r) => r[0]?.status === 'delivered', 'the retried delivery');
    expect(receiver.posts.filter((p) => p.path === path)).toHaveLength(1);
    const masked = `${receiver.url}/flaky?token=****`;
    expect(delivery).toMatchObject({
      trigger_type: 'scheduled',
      scheduled_at: formatDrfDateTime(due),
      target_type: 'webhook',
      target_value: masked,
      webhook_url: masked,
      status: 'delivered',
      attempt: 2,
      error: null,
    });
    expect(delivery.attempts.map((a: any) => [a.attempt, a.status, a.error])).toEqual([
      [1, 'failed', `${masked} answered 500: boom`],
      [2, 'delivered', null],
    ]);
    expect(JSON.stringify(await deliveries(s.id))).not.toContain('s3cr3t');

    const failed = logLines.filter((l) => l.msg === 'subscription delivery attempt failed' && l.subscription === s.id);
    expect(failed.map((l) => [l.level, l.targetType, l.occurrence, l.attempt, l.error])).toEqual([
      [40, 'webhook', due.toISOString(), 1, `${masked} answered 500: boom`],
    ]);
    expect(failed[0].stack).toBeUndefined();
    expect(logLines.filter((l) => l.msg === 'subscription delivered' && l.subscription === s.id).map((l) => l.attempt)).toEqual([2]);
  });

  it('sends a test delivery on request, recorded as a test and never retried', async () => {
    const path = '/test-hook';
    const s = await subscribe({ target_type: 'webhook', target_value: `${receiver.url}${path}` });
    const before = receiver.posts.length;
    const sent = await server.request(`${base()}/${s.id}/test_delivery/`, { method: 'POST' });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body).toMatchObject({
      subscription: s.id,
      trigger_type: 'manual',
      is_test: true,
      scheduled_at: null,
      status: 'delivered',
      attempt: 1,
    });
    expect(
      receiver.posts
        .slice(before)
        .filter((p) => p.path === path)
        .map((p) => p.body.occurrence),
    ).toEqual([null]);

    // PostHog's path for the action.
    receiver.failures.set(path, 1);
    const failed = await server.request(`${base()}/${s.id}/test-delivery/`, { method: 'POST', body: {} });
    expect(failed.status, failed.text).toBe(202);
    expect(failed.body).toMatchObject({
      is_test: true,
      status: 'failed',
      attempt: 1,
      next_attempt_at: null,
      error: `${receiver.url}${path} answered 500: boom`,
    });

    const listed = (await deliveries(s.id)).results;
    expect(listed.map((d: any) => [d.id, d.status])).toEqual([
      [failed.body.id, 'failed'],
      [sent.body.id, 'delivered'],
    ]);
    expect(listed[0]).toEqual(failed.body);
    // The schedule is untouched.
    expect((await server.request(`${base()}/${s.id}/`)).body.next_delivery_date).toBe(s.next_delivery_date);

    // An e-mail test goes to every recipient.
    const mail = await subscribe({ target_type: 'email', target_value: 'tess@example.com,tom@example.com' });
    const mailed = await server.request(`${base()}/${mail.id}/test_delivery/`, { method: 'POST' });
    expect(mailed.body).toMatchObject({ status: 'delivered', target_value: 'tess@example.com,tom@example.com' });
    for (const to of ['tess@example.com', 'tom@example.com']) {
      expect(smtp.messages.filter((m) => m.to.includes(to) && m.subject === 'Hoglet Insight report - Orders')).toHaveLength(1);
    }

    expect((await server.request(`${base()}/${s.id}/test_delivery/`)).status).toBe(405);
    await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { deleted: true } });
    expect((await server.request(`${base()}/${s.id}/test_delivery/`, { method: 'POST' })).status).toBe(404);
  });

  it('pages deliveries newest first', async () => {
    const s = await subscribe({ target_type: 'webhook', target_value: `${receiver.url}/paged` });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await server.request(`${base()}/${s.id}/test_delivery/`, { method: 'POST' })).body.id);
    const url = `${server.url}${base()}/${s.id}/deliveries/`;
    const first = await deliveries(s.id, '?limit=2');
    expect(first).toMatchObject({ count: 5, next: `${url}?limit=2&offset=2`, previous: null });
    expect(first.results.map((d: any) => d.id)).toEqual([ids[4], ids[3]]);
    const second = await deliveries(s.id, '?limit=2&offset=2');
    expect(second).toMatchObject({ count: 5, next: `${url}?limit=2&offset=4`, previous: `${url}?limit=2` });
    expect(second.results.map((d: any) => d.id)).toEqual([ids[2], ids[1]]);
    const last = await deliveries(s.id, '?limit=2&offset=4');
    expect(last).toMatchObject({ count: 5, next: null, previous: `${url}?limit=2&offset=2` });
    expect(last.results.map((d: any) => d.id)).toEqual([ids[0]]);
  });

  it('takes subscription:read to list and subscription:write to test', async () => {
    const s = await subscribe({ target_type: 'webhook', target_value: `${receiver.url}/scoped` });
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['subscription:read']);
    const other = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['insight:read']);
    expect((await server.request(`${base()}/${s.id}/deliveries/`, { key: reader })).status).toBe(200);
    const denied = await server.request(`${base()}/${s.id}/deliveries/`, { key: other });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'subscription:read'",
      attr: null,
    });
    const test = await server.request(`${base()}/${s.id}/test_delivery/`, { method: 'POST', key: reader });
    expect(test.status).toBe(403);
    expect(test.body.detail).toBe("API key missing required scope 'subscription:write'");
    expect((await deliveries(s.id)).count).toBe(0);
  });

  it('does not reach another project’s subscription', async () => {
    const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Elsewhere');
    const theirInsight = await createInsight(server, {}, other.team.id);
    const theirs = await subscribe(
      { insight: theirInsight.id, target_type: 'webhook', target_value: `${receiver.url}/theirs` },
      other.team.id,
    );
    await server.request(`${base(other.team.id)}/${theirs.id}/test_delivery/`, { method: 'POST' });
    expect((await server.request(`${base(other.team.id)}/${theirs.id}/deliveries/`)).body.count).toBe(1);
    for (const prefix of [base(), `/api/projects/${server.bootstrap.team.id}/subscriptions`]) {
      const list = await server.request(`${prefix}/${theirs.id}/deliveries/`);
      expect(list.status).toBe(404);
      expect(list.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
      expect((await server.request(`${prefix}/${theirs.id}/test_delivery/`, { method: 'POST' })).status).toBe(404);
    }
    expect((await server.request(`${base()}/999999/deliveries/`)).status).toBe(404);
  });

  it('prints deliveries with their attempts from the command line', async () => {
    const path = '/cli-hook?key=abc123';
    receiver.failures.set(path, 1);
    const s = await subscribe({ target_type: 'webhook', target_value: `${receiver.url}${path}` });
    const due = await makeDue(s.id);
    await waitForDeliveries(s.id, (r) => r[0]?.status === 'delivered', 'the delivery');
    const test = (await server.request(`${base()}/${s.id}/test_delivery/`, { method: 'POST' })).body;
    const [scheduled] = (await deliveries(s.id)).results.slice(1);

    const run = async (...args: string[]) => {
      const child = runHoglet(['subscriptions', 'deliveries', ...args], { ...server.storage.env, LOG_LEVEL: 'warn' });
      const { code } = await child.exited;
      return { code, output: child.output() };
    };
    const masked = `${receiver.url}/cli-hook?key=****`;
    const { db } = server.running.ctx.database;
    const row = (id: number) => db.selectFrom('subscription_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const attempts = (id: number) =>
      db.selectFrom('subscription_delivery_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt').execute();
    const testRow = await row(test.id);
    const scheduledRow = await row(scheduled.id);
    const [testAttempt] = await attempts(test.id);
    const [failedAttempt, deliveredAttempt] = await attempts(scheduled.id);

    const [listed, newest, none, badLimit] = await Promise.all([
      run('--id', String(s.id)),
      run('--limit', '1'),
      run('--id', '999999'),
      run('--limit', '0'),
    ]);
    expect(listed.code, listed.output).toBe(0);
    expect(listed.output).toBe(
      `${test.id}  subscription=${s.id}  project=${server.bootstrap.team.id}  trigger=test  scheduled_at=-  target="webhook:${masked}"  ` +
        `status=delivered  attempt=1  created=${testRow.created_at}  last_attempt=${testRow.last_attempt_at}  delivered=${testRow.delivered_at}  error=-\n` +
        `    attempt 1  delivered  started=${testAttempt!.started_at}  finished=${testAttempt!.finished_at}  error=-\n` +
        `${scheduled.id}  subscription=${s.id}  project=${server.bootstrap.team.id}  trigger=scheduled  scheduled_at=${due.toISOString()}  target="webhook:${masked}"  ` +
        `status=delivered  attempt=2  created=${scheduledRow.created_at}  last_attempt=${scheduledRow.last_attempt_at}  delivered=${scheduledRow.delivered_at}  error=-\n` +
        `    attempt 1  failed  started=${failedAttempt!.started_at}  finished=${failedAttempt!.finished_at}  error=${JSON.stringify(`${masked} answered 500: boom`)}\n` +
        `    attempt 2  delivered  started=${deliveredAttempt!.started_at}  finished=${deliveredAttempt!.finished_at}  error=-\n`,
    );
    expect(listed.output).not.toContain('abc123');

    // Across subscriptions, the newest first, as many as --limit says.
    expect(newest.output.split('\n')[0]).toMatch(new RegExp(`^${test.id} {2}subscription=${s.id} `));
    expect(newest.output.split('\n').filter((l) => /^\d/.test(l))).toHaveLength(1);

    expect(none).toEqual({ code: 0, output: 'no deliveries of subscription 999999\n' });
    expect(badLimit).toMatchObject({ code: 1, output: 'hoglet: --limit takes a positive integer, got "0"\n' });
  });
});
