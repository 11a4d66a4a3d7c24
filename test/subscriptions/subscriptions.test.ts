import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createProject } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { LOOPBACK_TARGETS_ENV } from './receivers.js';
import { createDashboard, createInsight, env, setSlackWebhook } from './helpers.js';

let server: TestServer;
let insight: any;
let dashboard: any;
let foreignInsight: any;
let foreignDashboard: any;

beforeAll(async () => {
  server = await startTestServer(LOOPBACK_TARGETS_ENV);
  insight = await createInsight(server);
  dashboard = await createDashboard(server);
  const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
  foreignInsight = await createInsight(server, {}, other.team.id);
  foreignDashboard = await createDashboard(server, {}, other.team.id);
});
afterAll(async () => {
  await server?.close();
});

const base = () => `${env(server)}/subscriptions`;
const FUTURE = '2030-01-01T10:00:00Z'; // a Tuesday

async function create(body: Record<string, unknown>) {
  return server.request(`${base()}/`, {
    method: 'POST',
    body: {
      insight: insight.id,
      target_type: 'webhook',
      target_value: 'http://127.0.0.1:9/hook',
      frequency: 'daily',
      start_date: FUTURE,
      ...body,
    },
  });
}

async function createOk(body: Record<string, unknown>) {
  const res = await create(body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('subscriptions API', () => {
  it('creates, retrieves, lists and patches a subscription in PostHog’s shape', async () => {
    const res = await server.request(`${base()}/`, {
      method: 'POST',
      body: {
        insight: insight.id,
        target_type: 'email',
        target_value: 'test@posthog.com',
        frequency: 'weekly',
        interval: 1,
        start_date: '2030-01-01T00:00:00',
        title: 'My Subscription',
        invite_message: 'hey there!',
      },
    });
    expect(res.status, res.text).toBe(201);
    const s = res.body;
    expect(Object.keys(s)).toEqual([
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
    ]);
    expect(s).toMatchObject({
      dashboard: null,
      insight: insight.id,
      target_type: 'email',
      target_value: 'test@posthog.com',
      frequency: 'weekly',
      interval: 1,
      byweekday: null,
      bysetpos: null,
      count: null,
      start_date: '2030-01-01T00:00:00Z',
      until_date: null,
      deleted: false,
      title: 'My Subscription',
      summary: 'sent every week',
      next_delivery_date: '2030-01-01T00:00:00Z',
      invite_message: null,
    });
    expect(s.created_by).toEqual({
      id: server.bootstrap.user.id,
      uuid: server.bootstrap.user.uuid,
      distinct_id: server.bootstrap.user.distinctId,
      first_name: server.bootstrap.user.firstName,
      last_name: server.bootstrap.user.lastName,
      email: server.bootstrap.user.email,
      is_email_verified: server.bootstrap.user.isEmailVerified,
      hedgehog_config: null,
      role_at_organization: server.bootstrap.user.roleAtOrganization,
    });

    const got = await server.request(`${base()}/${s.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(s);
    // The same resource under /api/projects/.
    const viaProject = await server.request(`/api/projects/${server.bootstrap.team.id}/subscriptions/${s.id}/`);
    expect(viaProject.body).toEqual(s);

    const patched = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { title: 'Renamed' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...s, title: 'Renamed' });

    const list = await server.request(`${base()}/`);
    expect(list.status).toBe(200);
    expect(list.body.results.map((r: any) => r.id)).toContain(s.id);
  });

  it('answers DELETE with 405 and an empty body, and soft deletes by PATCH', async () => {
    const s = await createOk({ title: 'to delete' });
    const del = await server.request(`${base()}/${s.id}/`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.text).toBe('');
    // The scope is checked first.
    const readOnly = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['subscription:read']);
    const denied = await server.request(`${base()}/${s.id}/`, { method: 'DELETE', key: readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'subscription:write'");

    const soft = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { deleted: true } });
    expect(soft.status).toBe(200);
    expect(soft.body.deleted).toBe(true);
    expect((await server.request(`${base()}/${s.id}/`)).body.deleted).toBe(true);

    const visible = await server.request(`${base()}/?limit=1000`);
    expect(visible.body.results.map((r: any) => r.id)).not.toContain(s.id);
    const deleted = await server.request(`${base()}/?deleted=true&limit=1000`);
    expect(deleted.body.results.map((r: any) => r.id)).toContain(s.id);
    expect(deleted.body.results.every((r: any) => r.deleted)).toBe(true);
    const notDeleted = await server.request(`${base()}/?deleted=false&limit=1000`);
    expect(notDeleted.body.results.every((r: any) => !r.deleted)).toBe(true);
  });

  it('filters by insight and dashboard and pages', async () => {
    const own = await createInsight(server, { name: 'filter target' });
    const a = await createOk({ insight: own.id });
    const b = await createOk({ insight: own.id });
    const d = await createOk({ insight: null, dashboard: dashboard.id });
    const byInsight = await server.request(`${base()}/?insight=${own.id}`);
    expect(byInsight.body.results.map((r: any) => r.id)).toEqual([a.id, b.id]);
    const byDashboard = await server.request(`${base()}/?dashboard=${dashboard.id}`);
    expect(byDashboard.body.results.map((r: any) => r.id)).toEqual([d.id]);
    const page = await server.request(`${base()}/?insight=${own.id}&limit=1`);
    expect(page.body.count).toBe(2);
    expect(page.body.results.map((r: any) => r.id)).toEqual([a.id]);
    expect(page.body.next).toBe(`${server.url}${base()}/?insight=${own.id}&limit=1&offset=1`);
    expect(page.body.previous).toBeNull();
  });

  it('answers 404 for another environment’s subscription and unknown ids', async () => {
    const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Third');
    const s = await createOk({});
    expect((await server.request(`${env(server, other.team.id)}/subscriptions/${s.id}/`)).status).toBe(404);
    expect((await server.request(`${base()}/999999/`)).status).toBe(404);
    expect((await server.request(`${base()}/abc/`)).status).toBe(404);
  });
});

describe('subscription validation', () => {
  const cases: Array<[string, Record<string, unknown>, { code: string; attr: string | null; detail?: string }]> = [
    ['target_type required', { target_type: undefined }, { code: 'required', attr: 'target_type', detail: 'This field is required.' }],
    [
      'target_type choice',
      { target_type: 'pigeon' },
      { code: 'invalid_choice', attr: 'target_type', detail: '"pigeon" is not a valid choice.' },
    ],
    [
      'frequency choice',
      { frequency: 'fortnightly' },
      { code: 'invalid_choice', attr: 'frequency', detail: '"fortnightly" is not a valid choice.' },
    ],
    ['byweekday entries', { byweekday: ['monday', 'funday'] }, { code: 'invalid_choice', attr: 'byweekday__1' }],
    [
      'interval positive',
      { interval: 0 },
      { code: 'min_value', attr: 'interval', detail: 'Ensure this value is greater than or equal to 1.' },
    ],
    [
      'interval 32-bit',
      { interval: 2147483648 },
      { code: 'max_value', attr: 'interval', detail: 'Ensure this value is less than or equal to 2147483647.' },
    ],
    ['count positive', { count: 0 }, { code: 'min_value', attr: 'count' }],
    ['count 32-bit', { count: 2147483648 }, { code: 'max_value', attr: 'count' }],
    ['bysetpos 32-bit', { bysetpos: -2147483649 }, { code: 'min_value', attr: 'bysetpos' }],
    ['bysetpos range', { byweekday: ['monday'], bysetpos: 0 }, { code: 'invalid_input', attr: 'bysetpos' }],
    ['start_date format', { start_date: 'tomorrow' }, { code: 'invalid_input', attr: 'start_date' }],
    [
      'neither resource',
      { insight: null },
      { code: 'invalid_input', attr: null, detail: 'Either dashboard or insight is required for an export.' },
    ],
    [
      'missing insight',
      { insight: 987654 },
      { code: 'does_not_exist', attr: 'insight', detail: 'Invalid pk "987654" - object does not exist.' },
    ],
    // Past what PostgreSQL's bigint holds (its lookup failed there with a 500); no id is that large.
    ['insight id past 2^63', { insight: 2 ** 63 }, { code: 'does_not_exist', attr: 'insight' }],
    ['dashboard id past 2^63', { insight: null, dashboard: 2 ** 64 }, { code: 'does_not_exist', attr: 'dashboard' }],
    ['insight id below -2^63', { insight: -(2 ** 63) - 4096 }, { code: 'does_not_exist', attr: 'insight' }],
    ['insight id past 2^53', { insight: 2 ** 53 + 2 }, { code: 'does_not_exist', attr: 'insight' }],
    [
      'email list',
      { target_type: 'email', target_value: 'a@example.com,not-an-address' },
      { code: 'invalid_input', attr: 'target_value', detail: 'Enter a valid email address.' },
    ],
    ['webhook scheme', { target_type: 'webhook', target_value: 'ftp://example.com/x' }, { code: 'invalid_input', attr: 'target_value' }],
    ['webhook garbage', { target_type: 'webhook', target_value: 'not a url' }, { code: 'invalid_input', attr: 'target_value' }],
    ['slack unconfigured', { target_type: 'slack', target_value: 'C123|#general' }, { code: 'invalid_input', attr: 'target_type' }],
  ];
  for (const [name, body, expected] of cases) {
    it(`rejects: ${name}`, async () => {
      const res = await create(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', code: expected.code, attr: expected.attr });
      if (expected.detail) expect(res.body.detail).toBe(expected.detail);
    });
  }

  it('rejects both a dashboard and an insight', async () => {
    const res = await create({ dashboard: dashboard.id });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_input', attr: null });
  });

  it('rejects resources of another environment', async () => {
    const d = await create({ insight: null, dashboard: foreignDashboard.id });
    expect(d.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'This dashboard does not belong to your team.',
      attr: 'dashboard',
    });
    const i = await create({ insight: foreignInsight.id });
    expect(i.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'This insight does not belong to your team.',
      attr: 'insight',
    });
  });

  it('accepts slack once the environment has an incoming webhook', async () => {
    await setSlackWebhook(server, 'http://127.0.0.1:9/slack');
    try {
      const s = await createOk({ target_type: 'slack', target_value: 'C123|#general' });
      expect(s.target_type).toBe('slack');
    } finally {
      await setSlackWebhook(server, null);
    }
  });

  it('normalises e-mail lists and validates PATCH against the stored record', async () => {
    const s = await createOk({ target_type: 'email', target_value: 'a@example.com, b@example.com' });
    expect(s.target_value).toBe('a@example.com,b@example.com');
    const bad = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { target_value: 'nope' } });
    expect(bad.body).toMatchObject({ code: 'invalid_input', attr: 'target_value' });
    const both = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { dashboard: dashboard.id } });
    expect(both.status).toBe(400);
    const switched = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { dashboard: dashboard.id, insight: null } });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ dashboard: dashboard.id, insight: null });
  });
});

describe('next_delivery_date and summary', () => {
  it('daily', async () => {
    const s = await createOk({ frequency: 'daily', start_date: FUTURE });
    expect(s).toMatchObject({ summary: 'sent every day', next_delivery_date: '2030-01-01T10:00:00Z' });
    const every3 = await createOk({ frequency: 'daily', interval: 3, start_date: FUTURE });
    expect(every3.summary).toBe('sent every 3 days');
  });

  it('daily from a start date in the past: the next occurrence after now + 15 minutes', async () => {
    const start = new Date(Date.now() - 10 * 86_400_000);
    start.setUTCHours(9, 30, 0, 0);
    const s = await createOk({ frequency: 'daily', start_date: start.toISOString() });
    const next = new Date(s.next_delivery_date).getTime();
    expect(next).toBeGreaterThan(Date.now() + 15 * 60_000);
    expect(next - Date.now()).toBeLessThanOrEqual(86_400_000 + 15 * 60_000);
    expect(s.next_delivery_date).toMatch(/T09:30:00Z$/);
  });

  it('weekly with weekdays', async () => {
    const s = await createOk({ frequency: 'weekly', byweekday: ['monday', 'wednesday'], start_date: FUTURE });
    expect(s).toMatchObject({ summary: 'sent every week', next_delivery_date: '2030-01-02T10:00:00Z' });
    const two = await createOk({ frequency: 'weekly', interval: 2, byweekday: ['friday'], start_date: FUTURE });
    expect(two).toMatchObject({ summary: 'sent every 2 weeks', next_delivery_date: '2030-01-04T10:00:00Z' });
  });

  it('monthly with bysetpos', async () => {
    const first = await createOk({ frequency: 'monthly', byweekday: ['monday'], bysetpos: 1, start_date: FUTURE });
    expect(first).toMatchObject({ summary: 'sent every month on the first Monday', next_delivery_date: '2030-01-07T10:00:00Z' });
    const last = await createOk({ frequency: 'monthly', byweekday: ['monday'], bysetpos: -1, start_date: FUTURE });
    expect(last).toMatchObject({ summary: 'sent every month on the last Monday', next_delivery_date: '2030-01-28T10:00:00Z' });
    const lastDay = await createOk({ frequency: 'monthly', byweekday: ['saturday', 'sunday'], bysetpos: -1, start_date: FUTURE });
    expect(lastDay).toMatchObject({ summary: 'sent every month on the last day', next_delivery_date: '2030-01-27T10:00:00Z' });
    const yearly = await createOk({ frequency: 'yearly', start_date: FUTURE });
    expect(yearly).toMatchObject({ summary: 'sent every year', next_delivery_date: '2030-01-01T10:00:00Z' });
  });

  it('count and until_date', async () => {
    const used = await createOk({ frequency: 'daily', count: 3, start_date: '2020-01-01T00:00:00Z' });
    expect(used.next_delivery_date).toBeNull();
    const counted = await createOk({ frequency: 'weekly', count: 2, start_date: FUTURE });
    expect(counted.next_delivery_date).toBe('2030-01-01T10:00:00Z');
    const ended = await createOk({ frequency: 'daily', start_date: '2020-01-01T00:00:00Z', until_date: '2021-01-01T00:00:00Z' });
    expect(ended).toMatchObject({ until_date: '2021-01-01T00:00:00Z', next_delivery_date: null });
    const bounded = await createOk({ frequency: 'daily', interval: 2, start_date: FUTURE, until_date: '2030-01-02T23:00:00Z' });
    expect(bounded.next_delivery_date).toBe('2030-01-01T10:00:00Z');
  });

  it('recomputes next_delivery_date only when the schedule changes', async () => {
    const s = await createOk({ frequency: 'daily', start_date: FUTURE });
    const { db } = server.running.ctx.database;
    const sentinel = '2031-05-05T05:05:05.000Z';
    await db.updateTable('subscriptions').set({ next_delivery_date: sentinel }).where('id', '=', s.id).execute();
    const renamed = await server.request(`${base()}/${s.id}/`, {
      method: 'PATCH',
      body: { title: 'x', target_value: 'http://127.0.0.1:9/other' },
    });
    expect(renamed.body.next_delivery_date).toBe('2031-05-05T05:05:05Z');
    const weekly = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { frequency: 'weekly', byweekday: ['thursday'] } });
    expect(weekly.body).toMatchObject({ summary: 'sent every week', next_delivery_date: '2030-01-03T10:00:00Z' });
    const moved = await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { start_date: '2030-02-01T08:00:00Z' } });
    expect(moved.body.next_delivery_date).toBe('2030-02-07T08:00:00Z');
  });
});

describe('activity log', () => {
  it('records creation, updates and soft deletion', async () => {
    const s = await createOk({ title: 'logged' });
    await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { title: 'logged 2' } });
    await server.request(`${base()}/${s.id}/`, { method: 'PATCH', body: { deleted: true } });
    const rows = await server.running.ctx.database.db
      .selectFrom('activity_log')
      .selectAll()
      .where('scope', '=', 'Subscription')
      .where('item_id', '=', String(s.id))
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    expect(rows.map((r) => r.activity)).toEqual(['created', 'updated', 'deleted']);
    const detail = (r: (typeof rows)[number]) => (typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail);
    expect(detail(rows[1]!).changes).toEqual([
      { type: 'Subscription', action: 'changed', field: 'title', before: 'logged', after: 'logged 2' },
    ]);
    expect(detail(rows[2]!).changes).toEqual([{ type: 'Subscription', action: 'changed', field: 'deleted', before: false, after: true }]);
    expect(Number(rows[0]!.user_id)).toBe(server.bootstrap.user.id);
  });
});
