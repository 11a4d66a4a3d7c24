import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartPng, chartSvg } from '../../src/subscriptions/chart.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createDashboard, createInsight, env, TRENDS_QUERY } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  const ph = new PostHog(server.bootstrap.team.apiToken, { host: server.url, flushAt: 1000, flushInterval: 0, fetchRetryCount: 0 });
  const now = Date.now();
  const sends: Array<[string, string, Record<string, unknown>, number]> = [
    ['u1', 'order placed', { plan: 'pro' }, now - 3_600_000],
    ['u1', 'order placed', { plan: 'pro' }, now - 2 * 3_600_000],
    ['u2', 'order placed', { plan: 'free' }, now - 86_400_000],
    ['u3', 'order placed', { plan: 'free' }, now - 2 * 86_400_000],
    ['u3', 'signed up', {}, now - 2 * 86_400_000],
    ['u4', 'order placed', { plan: 'pro' }, now - 30 * 86_400_000], // outside -7d
  ];
  for (const [distinctId, event, properties, t] of sends) ph.capture({ distinctId, event, properties, timestamp: new Date(t) });
  await ph.shutdown();
  await server.settle();
});
afterAll(async () => {
  await server?.close();
});

describe('insights', () => {
  it('creates a trends insight and returns its computed result', async () => {
    const insight = await createInsight(server, { name: 'Orders', description: 'all orders' });
    expect(insight).toMatchObject({ name: 'Orders', description: 'all orders', deleted: false, dashboards: [], query: TRENDS_QUERY });
    expect(insight.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(insight.created_by.id).toBe(server.bootstrap.user.id);
    const [series] = insight.result;
    expect(series.count).toBe(4);
    expect(series.data).toHaveLength(8);
    expect(series.labels).toHaveLength(8);
    expect(series.data.reduce((a: number, b: number) => a + b, 0)).toBe(4);

    const got = await server.request(`${env(server)}/insights/${insight.id}/`);
    expect(got.status).toBe(200);
    expect(got.body.result[0].count).toBe(4);

    // PostHog's short_id filter: the insight of a `/insights/:shortId` link, and nothing for another.
    const byShortId = await server.request(`${env(server)}/insights/?short_id=${insight.short_id}`);
    expect(byShortId.body.results.map((i: any) => i.id)).toEqual([insight.id]);
    const none = await server.request(`${env(server)}/insights/?short_id=nosuchid`);
    expect(none.body).toMatchObject({ count: 0, results: [] });
  });

  it('counts unique persons, filters and breaks down', async () => {
    const insight = await createInsight(server, {
      query: {
        kind: 'InsightVizNode',
        source: {
          kind: 'TrendsQuery',
          series: [
            { kind: 'EventsNode', event: 'order placed', math: 'dau' },
            { kind: 'EventsNode', event: 'order placed', math: 'total' },
          ],
          interval: 'week',
          dateRange: { date_from: '-7d' },
          properties: { type: 'AND', values: [{ key: 'plan', value: ['pro', 'free'], operator: 'exact', type: 'event' }] },
          breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' },
        },
      },
    });
    const summary = insight.result.map((r: any) => [r.action.math, r.breakdown_value, r.count]);
    // dau is per week bucket: u1 once in its bucket, u2/u3 once each.
    expect(summary).toEqual(
      expect.arrayContaining([
        ['total', 'pro', 2],
        ['total', 'free', 2],
      ]),
    );
    const dauPro = insight.result.find((r: any) => r.action.math === 'dau' && r.breakdown_value === 'pro');
    expect(dauPro.count).toBeGreaterThanOrEqual(1);
    expect(dauPro.count).toBeLessThanOrEqual(2);
  });

  it('updates, soft deletes, refuses DELETE and validates the query', async () => {
    const insight = await createInsight(server, { name: 'Temp' });
    const patched = await server.request(`${env(server)}/insights/${insight.id}/`, {
      method: 'PATCH',
      body: { name: 'Signups', query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed up' }] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Signups' });
    expect(patched.body.result[0].count).toBe(1);

    const del = await server.request(`${env(server)}/insights/${insight.id}/`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.text).toBe('');
    const soft = await server.request(`${env(server)}/insights/${insight.id}/`, { method: 'PATCH', body: { deleted: true } });
    expect(soft.body.deleted).toBe(true);
    const list = await server.request(`${env(server)}/insights/?limit=500`);
    expect(list.body.results.map((i: any) => i.id)).not.toContain(insight.id);
    expect((await server.request(`${env(server)}/insights/${insight.id}/`)).body.deleted).toBe(true);

    const bad = await server.request(`${env(server)}/insights/`, {
      method: 'POST',
      body: { query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }], interval: 'minute' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'query__interval' });
    const missing = await server.request(`${env(server)}/insights/`, { method: 'POST', body: { name: 'no query' } });
    expect(missing.body).toMatchObject({ code: 'required', attr: 'query' });
  });
});

describe('dashboards', () => {
  it('holds insight tiles with their results', async () => {
    const dashboard = await createDashboard(server, { name: 'Sales', description: 'weekly', pinned: true });
    expect(dashboard).toMatchObject({ name: 'Sales', description: 'weekly', pinned: true, deleted: false, tiles: [] });
    const a = await createInsight(server, { name: 'A', dashboards: [dashboard.id] });
    const b = await createInsight(server, { name: 'B' });
    const placed = await server.request(`${env(server)}/insights/${b.id}/`, { method: 'PATCH', body: { dashboards: [dashboard.id] } });
    expect(placed.body.dashboards).toEqual([dashboard.id]);
    expect(a.dashboards).toEqual([dashboard.id]);

    const got = await server.request(`/api/projects/${server.bootstrap.team.id}/dashboards/${dashboard.id}/`);
    expect(got.status).toBe(200);
    expect(got.body.tiles.map((t: any) => t.insight.name)).toEqual(['A', 'B']);
    expect(got.body.tiles[0].insight.result[0].count).toBe(4);

    await server.request(`${env(server)}/insights/${a.id}/`, { method: 'PATCH', body: { dashboards: [] } });
    const after = await server.request(`${env(server)}/dashboards/${dashboard.id}/`);
    expect(after.body.tiles.map((t: any) => t.insight.name)).toEqual(['B']);

    const list = await server.request(`${env(server)}/dashboards/`);
    expect(list.body.results.map((d: any) => d.id)).toContain(dashboard.id);
    expect(list.body.results[0]).not.toHaveProperty('tiles');

    expect((await server.request(`${env(server)}/dashboards/${dashboard.id}/`, { method: 'DELETE' })).status).toBe(405);
    const soft = await server.request(`${env(server)}/dashboards/${dashboard.id}/`, { method: 'PATCH', body: { deleted: true } });
    expect(soft.body.deleted).toBe(true);
    const hidden = await server.request(`${env(server)}/dashboards/`);
    expect(hidden.body.results.map((d: any) => d.id)).not.toContain(dashboard.id);

    const other = await server.request(`${env(server)}/insights/`, { method: 'POST', body: { query: TRENDS_QUERY, dashboards: [999999] } });
    expect(other.body).toMatchObject({ code: 'does_not_exist', attr: 'dashboards' });
  });

  it('logs insight and dashboard changes to the activity log', async () => {
    const dashboard = await createDashboard(server, { name: 'Logged' });
    await server.request(`${env(server)}/dashboards/${dashboard.id}/`, { method: 'PATCH', body: { name: 'Logged 2' } });
    const rows = await server.running.ctx.database.db
      .selectFrom('activity_log')
      .select(['activity', 'scope'])
      .where('item_id', '=', String(dashboard.id))
      .where('scope', '=', 'Dashboard')
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    expect(rows.map((r) => r.activity)).toEqual(['created', 'updated']);
  });
});

describe('chart image', () => {
  it('draws the series as a PNG', () => {
    const results = [
      { action: {}, label: 'order placed', count: 6, data: [1, 2, 3], labels: ['1-Nov-2026', '2-Nov-2026', '3-Nov-2026'], days: [] },
    ];
    const svg = chartSvg('Orders & more', results);
    expect(svg).toContain('Orders &amp; more');
    expect(svg).toContain('<polyline');
    const png = chartPng('Orders', results);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(1000);
  });
});
