import pino from 'pino';
import path from 'node:path';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { Deliverer } from '../../src/subscriptions/delivery/index.js';
import { SubscriptionScheduler } from '../../src/subscriptions/scheduler.js';
import { listDeliveries as listDeliveryLog } from '../../src/subscriptions/deliveries-store.js';
import { TEST_DATABASE_URL } from '../helpers/backend.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createDashboard, createInsight, env, setSlackWebhook } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { LOOPBACK_TARGETS_ENV, loopbackTargets, startReceiver, startSmtp } from './receivers.js';

const SITE = 'http://hoglet.test';
const log = pino({ level: 'silent' });
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let insight: any;
let dashboard: any;
let scheduler: SubscriptionScheduler;

const DAY = 86_400_000;

function newScheduler(database: Database, options: ConstructorParameters<typeof SubscriptionScheduler>[3] = {}) {
  const deliverer = new Deliverer(database, server.running.ctx.analytics, {
    allowedHosts: loopbackTargets,
    siteUrl: SITE,
    smtpUrl: smtp.url,
    emailFrom: 'Hoglet <reports@hoglet.test>',
  });
  return new SubscriptionScheduler(database, log, deliverer, options);
}

/** A start date ten days ago at 08:00 UTC: every day at 08:00 is an occurrence. */
function pastStart(): string {
  const d = new Date(Date.now() - 10 * DAY);
  d.setUTCHours(8, 0, 0, 0);
  return d.toISOString();
}

async function subscribe(body: Record<string, unknown>) {
  const res = await server.request(`${env(server)}/subscriptions/`, {
    method: 'POST',
    body: { frequency: 'daily', start_date: pastStart(), ...body },
  });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

async function stored(id: number) {
  return server.running.ctx.database.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Waits until no process holds a claim and no invite is owed. The test schedulers run at future
 * times, where the in-process scheduler's real-time lease would look lapsed: they must not meet it.
 */
async function idle() {
  const { db } = server.running.ctx.database;
  const busy = () =>
    db
      .selectFrom('subscriptions')
      .select('id')
      .where('deleted', '=', false)
      .where((eb) => eb.or([eb('claim_token', 'is not', null), eb('pending_invite', 'is not', null)]))
      .execute();
  await waitFor(busy, { what: 'no subscription claimed or owing an invite (busy ones)', until: (rows) => rows.length === 0 });
}

/** The subscription's deliveries, oldest first. */
async function listDeliveries(db: Database['db'], subscriptionId: number) {
  return (await listDeliveryLog(db, { subscriptionId }, { limit: 100, offset: 0 })).deliveries.reverse();
}

const reports = (to: string) => smtp.messages.filter((m) => m.to.includes(to) && m.subject.startsWith('Hoglet Insight report'));
const invites = (to: string) => smtp.messages.filter((m) => m.to.includes(to) && /subscribed/.test(m.subject));

beforeAll(async () => {
  smtp = await startSmtp();
  receiver = await startReceiver();
  // The in-process scheduler runs too (on changes, and hourly here): claims keep it from doubling up.
  server = await startTestServer({
    ...LOOPBACK_TARGETS_ENV,
    SMTP_URL: smtp.url,
    SUBSCRIPTION_POLL_MS: '3600000',
    EMAIL_FROM: 'reports@hoglet.test',
  });
  const ph = new PostHog(server.bootstrap.team.apiToken, { host: server.url, flushAt: 1000, flushInterval: 0, fetchRetryCount: 0 });
  // Yesterday from 08:00 to 12:00 UTC: one day, so "Buyers" (daily unique users) counts 2 whatever
  // the time the test runs (hours back from now crossed midnight when run before 04:00 UTC).
  const noonYesterday = new Date();
  noonYesterday.setUTCHours(0, 0, 0, 0);
  noonYesterday.setTime(noonYesterday.getTime() - 12 * 3_600_000);
  for (let i = 0; i < 5; i++) {
    ph.capture({
      distinctId: `user-${i % 2}`,
      event: 'order placed',
      properties: { plan: i % 2 ? 'pro' : 'free' },
      timestamp: new Date(noonYesterday.getTime() - i * 3_600_000),
    });
  }
  await ph.shutdown();
  await server.settle();
  dashboard = await createDashboard(server, { name: 'Sales' });
  insight = await createInsight(server, { name: 'Orders', dashboards: [dashboard.id] });
  await createInsight(server, {
    name: 'Buyers',
    dashboards: [dashboard.id],
    query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'order placed', math: 'dau' }], dateRange: { date_from: '-7d' } },
  });
  await setSlackWebhook(server, `${receiver.url}/slack`);
  scheduler = newScheduler(server.running.ctx.database);
});

afterAll(async () => {
  await server?.close();
  await smtp?.close();
  await receiver?.close();
});

/** The URL with a user and password in it (the password's space percent-encoded, as a URL carries it). */
const withCredentials = (url: string) => url.replace('://', '://ops:s3cr3t%20pass@');

describe('delivery to real receivers', () => {
  it('delivers each kind exactly once per occurrence, after the invites', async () => {
    const email = await subscribe({
      insight: insight.id,
      target_type: 'email',
      target_value: 'ada@example.com',
      invite_message: 'Numbers for you',
    });
    const slack = await subscribe({ insight: insight.id, target_type: 'slack', target_value: 'C42|#sales' });
    const hook = await subscribe({
      dashboard: dashboard.id,
      target_type: 'webhook',
      target_value: withCredentials(`${receiver.url}/hook`),
    });

    // Invites: the e-mail recipient and the slack channel, once each (whichever process sends them).
    await scheduler.runOnce();
    await waitFor(() => invites('ada@example.com').length === 1 && receiver.posts.some((p) => p.path === '/slack'), {
      what: 'the invites',
    });
    await idle();
    const invite = invites('ada@example.com')[0]!;
    expect(invite.subject).toBe(`${server.bootstrap.user.firstName || 'Someone'} subscribed you to a Hoglet insight`);
    expect(invite.decoded).toContain('Numbers for you');
    expect(invite.decoded).toContain('This subscription is sent every day. The next subscription will be sent on');
    const slackInvite = receiver.posts.find((p) => p.path === '/slack')!.body;
    expect(slackInvite.channel).toBe('C42');
    expect(slackInvite.text).toBe('This channel has been subscribed to the insight Orders on Hoglet! 🎉');
    expect(receiver.posts.filter((p) => p.path === '/hook')).toHaveLength(0); // webhooks get no invite

    const due = new Date(email.next_delivery_date);
    expect(slack.next_delivery_date).toBe(email.next_delivery_date);
    expect(hook.next_delivery_date).toBe(email.next_delivery_date);
    // Nothing is due before the 15-minute lead.
    expect((await scheduler.runOnce(new Date(due.getTime() - 16 * 60_000))).sent).toBe(0);

    const first = await scheduler.runOnce(due);
    expect(first).toMatchObject({ sent: 3, failed: 0 });
    await scheduler.runOnce(due); // the same occurrence again: nothing
    expect(reports('ada@example.com')).toHaveLength(1);
    expect(receiver.posts.filter((p) => p.path === '/hook')).toHaveLength(1);
    // A URL's user:password is sent as Basic auth, as PostHog's requests library sends it.
    expect(receiver.posts.find((p) => p.path === '/hook')!.authorization).toBe(
      `Basic ${Buffer.from('ops:s3cr3t pass').toString('base64')}`,
    );
    expect(receiver.posts.find((p) => p.path === '/slack')!.authorization).toBeUndefined();
    expect(receiver.posts.filter((p) => p.path === '/slack')).toHaveLength(2); // invite + report

    // E-mail: HTML and text, the results table, the chart image and the link.
    const mail = reports('ada@example.com')[0]!;
    expect(mail.subject).toBe('Hoglet Insight report - Orders');
    expect(mail.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    expect(mail.raw).toMatch(/Content-Type: image\/png/);
    expect(mail.raw).toMatch(/Content-ID: <chart-0@hoglet>/);
    expect(mail.decoded).toContain('<img src="cid:chart-0@hoglet"');
    expect(mail.decoded).toContain(`${SITE}/project/${server.bootstrap.team.id}/insights/${insight.short_id}`);
    expect(mail.decoded).toMatch(/Series \| Total \|/);
    expect(mail.decoded).toMatch(/order placed \| 5 \|/);

    // Webhook: the dashboard's insights with their results.
    const body = receiver.posts.find((p) => p.path === '/hook')!.body;
    expect(body).toMatchObject({
      type: 'subscription_report',
      occurrence: due.toISOString(),
      resource: {
        type: 'dashboard',
        id: dashboard.id,
        name: 'Sales',
        url: `${SITE}/project/${server.bootstrap.team.id}/dashboard/${dashboard.id}`,
      },
      subscription: { id: hook.id, summary: 'sent every day' },
    });
    expect(body.insights.map((i: any) => i.name)).toEqual(['Orders', 'Buyers']);
    expect(body.insights[0].result[0].count).toBe(5);
    expect(body.insights[1].result[0].count).toBe(2);

    // Slack: the report with the table.
    const slackReport = receiver.posts.filter((p) => p.path === '/slack')[1]!.body;
    expect(slackReport.text).toBe('Your subscription to the insight Orders is ready! 🎉');
    expect(JSON.stringify(slackReport.blocks)).toContain('order placed');

    // Each schedule moved on by one day; the next occurrence is delivered once too.
    for (const s of [email, slack, hook]) {
      expect((await stored(s.id)).next_delivery_date).toBe(new Date(due.getTime() + DAY).toISOString());
    }
    const second = await scheduler.runOnce(new Date(due.getTime() + DAY));
    expect(second.sent).toBe(3);
    expect(reports('ada@example.com')).toHaveLength(2);
    expect(receiver.posts.filter((p) => p.path === '/hook')).toHaveLength(2);
    const deliveries = await listDeliveries(server.running.ctx.database.db, email.id);
    expect(
      deliveries.map((d) => [d.kind, d.status]),
      JSON.stringify(deliveries),
    ).toEqual([
      ['invite', 'delivered'],
      ['scheduled', 'delivered'],
      ['scheduled', 'delivered'],
    ]);

    // Soft-deleted: never delivered again.
    for (const s of [email, slack, hook]) {
      await server.request(`${env(server)}/subscriptions/${s.id}/`, { method: 'PATCH', body: { deleted: true } });
    }
    expect((await scheduler.runOnce(new Date(due.getTime() + 5 * DAY))).sent).toBe(0);
    expect(reports('ada@example.com')).toHaveLength(2);
  });

  it('delivers runs missed while down once, not once per missed occurrence', async () => {
    const s = await subscribe({ insight: insight.id, target_type: 'webhook', target_value: `${receiver.url}/missed` });
    const { db } = server.running.ctx.database;
    await db
      .updateTable('subscriptions')
      .set({ next_delivery_date: new Date(Date.now() - 3 * DAY - 3_600_000).toISOString() })
      .where('id', '=', s.id)
      .execute();
    // Due now, in real time: the in-process scheduler may take it before this one does.
    await scheduler.runOnce();
    const missed = () => receiver.posts.filter((p) => p.path === '/missed');
    await waitFor(missed, { what: 'the missed runs delivered', until: (posts) => posts.length > 0 });
    await idle();
    await scheduler.runOnce();
    expect(missed()).toHaveLength(1);
    const row = await stored(s.id);
    expect(new Date(row.next_delivery_date!).getTime()).toBeGreaterThan(Date.now() + 15 * 60_000);
    const [delivery] = await listDeliveries(db, s.id);
    expect(delivery).toMatchObject({ status: 'delivered' });
    expect(delivery!.skippedOccurrences).toBeGreaterThanOrEqual(3);
  });

  it('retries failures with backoff and records them', async () => {
    const retrying = newScheduler(server.running.ctx.database, { backoffMs: 60_000 });
    const s = await subscribe({ insight: insight.id, target_type: 'webhook', target_value: `${receiver.url}/flaky` });
    receiver.failures.set('/flaky', 2);
    const due = new Date(s.next_delivery_date);
    expect((await retrying.runOnce(due)).failed).toBe(1);
    let row = await stored(s.id);
    expect(row).toMatchObject({ attempts: 1, next_delivery_date: due.toISOString() });
    expect(row.last_error).toContain('answered 500');
    expect(new Date(row.retry_at!).getTime()).toBe(due.getTime() + 60_000);
    // Within the backoff: no attempt.
    expect(await retrying.runOnce(new Date(due.getTime() + 30_000))).toMatchObject({ sent: 0, failed: 0 });
    expect((await retrying.runOnce(new Date(due.getTime() + 61_000))).failed).toBe(1);
    row = await stored(s.id);
    expect(new Date(row.retry_at!).getTime()).toBe(due.getTime() + 61_000 + 120_000);
    expect((await retrying.runOnce(new Date(due.getTime() + 200_000))).sent).toBe(1);
    expect(receiver.posts.filter((p) => p.path === '/flaky')).toHaveLength(1);
    row = await stored(s.id);
    expect(row).toMatchObject({
      attempts: 0,
      retry_at: null,
      last_error: null,
      next_delivery_date: new Date(due.getTime() + DAY).toISOString(),
    });
    const history = await listDeliveries(server.running.ctx.database.db, s.id);
    expect(history.map((d) => [d.status, d.attempt])).toEqual([['delivered', 3]]);
    expect(history[0]!.attempts.map((a) => [a.status, a.attempt])).toEqual([
      ['failed', 1],
      ['failed', 2],
      ['delivered', 3],
    ]);
  });

  it('cancels a delivery waiting for a retry when the subscription is deleted', async () => {
    const retrying = newScheduler(server.running.ctx.database, { backoffMs: 60_000 });
    const s = await subscribe({ insight: insight.id, target_type: 'webhook', target_value: `${receiver.url}/doomed` });
    receiver.failures.set('/doomed', 100);
    expect((await retrying.runOnce(new Date(s.next_delivery_date))).failed).toBe(1);
    const deliveries = async () => (await server.request(`${env(server)}/subscriptions/${s.id}/deliveries/`)).body.results;
    expect((await deliveries()).map((d: any) => d.status)).toEqual(['retrying']);
    await server.request(`${env(server)}/subscriptions/${s.id}/`, { method: 'PATCH', body: { deleted: true } });
    expect((await deliveries()).map((d: any) => [d.status, d.next_attempt_at, d.error])).toEqual([
      ['cancelled', null, 'cancelled: the subscription was deleted'],
    ]);
  });

  it('retries only the e-mail recipients a failed attempt did not reach', async () => {
    const retrying = newScheduler(server.running.ctx.database, { backoffMs: 1000 });
    const s = await subscribe({ insight: insight.id, target_type: 'email', target_value: 'first@example.com,second@example.com' });
    await waitFor(() => invites('second@example.com').length === 1, { what: 'the invite' });
    await idle();
    smtp.rejectOnce.add('second@example.com');
    const due = new Date(s.next_delivery_date);
    expect((await retrying.runOnce(due)).failed).toBe(1);
    expect(reports('first@example.com')).toHaveLength(1);
    expect(reports('second@example.com')).toHaveLength(0);
    expect((await retrying.runOnce(new Date(due.getTime() + 2000))).sent).toBe(1);
    expect(reports('first@example.com')).toHaveLength(1);
    expect(reports('second@example.com')).toHaveLength(1);
    expect((await stored(s.id)).sent_to).toBeNull();
  });

  it('gives up an occurrence after the last attempt and moves on', async () => {
    const stubborn = newScheduler(server.running.ctx.database, { backoffMs: 1, maxAttempts: 2 });
    const s = await subscribe({ insight: insight.id, target_type: 'webhook', target_value: `${receiver.url}/down` });
    receiver.failures.set('/down', 100);
    const due = new Date(s.next_delivery_date);
    await stubborn.runOnce(due);
    await stubborn.runOnce(new Date(due.getTime() + 1000));
    const row = await stored(s.id);
    expect(row.next_delivery_date).toBe(new Date(due.getTime() + DAY).toISOString());
    const history = await listDeliveries(server.running.ctx.database.db, s.id);
    expect(history.map((d) => d.status)).toEqual(['failed']);
    expect(history[0]!.attempts.map((a) => a.status)).toEqual(['failed', 'failed']);
    receiver.failures.delete('/down');
  });

  it('never delivers one occurrence twice with two schedulers on separate connections', async () => {
    const second: Database = await openDatabase({
      databaseUrl: TEST_DATABASE_URL,
      sqliteFile: path.join(server.storage.dataDir, 'hoglet.db'),
      ...(server.storage.schema ? { pgSchema: server.storage.schema } : {}),
    });
    try {
      const a = newScheduler(server.running.ctx.database);
      const b = newScheduler(second);
      const subs = [];
      for (let i = 0; i < 6; i++) {
        subs.push(await subscribe({ insight: insight.id, target_type: 'webhook', target_value: `${receiver.url}/pair-${i}` }));
      }
      subs.push(await subscribe({ insight: insight.id, target_type: 'email', target_value: 'pair@example.com' }));
      await waitFor(() => invites('pair@example.com').length === 1, { what: 'the invite' });
      await idle();
      const due = new Date(subs[0].next_delivery_date);
      const runs = await Promise.all([a.runOnce(due), b.runOnce(due), a.runOnce(due), b.runOnce(due)]);
      expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(7);
      for (let i = 0; i < 6; i++) expect(receiver.posts.filter((p) => p.path === `/pair-${i}`)).toHaveLength(1);
      expect(reports('pair@example.com')).toHaveLength(1);
      expect(invites('pair@example.com')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
