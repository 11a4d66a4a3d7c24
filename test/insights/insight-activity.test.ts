/**
 * The insights' and dashboards' change history through their `activity/` actions (PostHog's
 * InsightViewSet.activity and all_activity): the entries the services record, paged, newest first.
 */
import { describe, expect, it } from 'vitest';
import { createKey } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'buy' }] } };

describe("an insight's history", () => {
  it('lists created, updated with its changed fields, and deleted, newest first, under both bases', async () => {
    const env = `/api/environments/${server.bootstrap.team.id}/insights/`;
    const created = await server.request(env, { method: 'POST', body: { name: 'Buys', query: trends } });
    expect(created.status, created.text).toBe(201);
    const other = await server.request(env, { method: 'POST', body: { name: 'Other', query: trends } });
    expect(
      (await server.request(`${env}${created.body.id}/`, { method: 'PATCH', body: { name: 'Buys per day', tags: ['x'] } })).status,
    ).toBe(200);
    expect((await server.request(`${env}${created.body.id}/`, { method: 'PATCH', body: { deleted: true } })).status).toBe(200);

    const page = await server.request(`${env}${created.body.id}/activity/`);
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ total_count: 3, next: null, previous: null });
    expect(page.body.results.map((r: { activity: string }) => r.activity)).toEqual(['deleted', 'updated', 'created']);
    const [deleted, updated, first] = page.body.results;
    const me = (await server.request('/api/users/@me/')).body;
    expect(first).toMatchObject({
      scope: 'Insight',
      item_id: String(created.body.id),
      user: { first_name: me.first_name, email: me.email },
      detail: { name: 'Buys', short_id: created.body.short_id, changes: null },
    });
    expect(typeof first.id).toBe('string');
    expect(typeof first.created_at).toBe('string');
    expect(updated.detail.name).toBe('Buys per day');
    expect(updated.detail.changes).toEqual([
      { type: 'Insight', action: 'changed', field: 'name', before: 'Buys', after: 'Buys per day' },
      { type: 'Insight', action: 'changed', field: 'tags', before: [], after: ['x'] },
    ]);
    expect(deleted.detail.changes).toEqual([{ type: 'Insight', action: 'changed', field: 'deleted', before: false, after: true }]);

    // The project base answers the same; pages of one name the next.
    const project = `/api/projects/${server.bootstrap.project.id}/insights/`;
    const paged = await server.request(`${project}${created.body.id}/activity/?limit=1&page=2`);
    expect(paged.body.results.map((r: { activity: string }) => r.activity)).toEqual(['updated']);
    expect(paged.body.next).toContain('page=3');
    expect(paged.body.previous).toContain('page=1');

    // The collection's history holds both insights'.
    const all = await server.request(`${env}activity/?limit=100`);
    expect(all.status).toBe(200);
    const items = new Set(all.body.results.map((r: { item_id: string }) => r.item_id));
    expect(items).toEqual(new Set([String(created.body.id), String(other.body.id)]));
    expect(all.body.total_count).toBe(4);
  });

  it('records the dashboards it is added to and removed from, as PostHog: {id, name} before and after', async () => {
    const env = `/api/environments/${server.bootstrap.team.id}/insights/`;
    const boards = `/api/environments/${server.bootstrap.team.id}/dashboards/`;
    const sales = (await server.request(boards, { method: 'POST', body: { name: 'Sales' } })).body;
    const growth = (await server.request(boards, { method: 'POST', body: { name: 'Growth' } })).body;
    const created = await server.request(env, { method: 'POST', body: { name: 'Signups', query: trends } });
    const patch = async (body: Record<string, unknown>) => {
      const res = await server.request(`${env}${created.body.id}/`, { method: 'PATCH', body });
      expect(res.status, res.text).toBe(200);
    };
    await patch({ dashboards: [sales.id] });
    await patch({ dashboards: [growth.id, sales.id] });
    await patch({ dashboards: [sales.id, growth.id] }); // the same dashboards: no dashboards change
    await patch({ dashboards: [growth.id], name: 'Signups per day' });
    await patch({ dashboards: [] });

    const page = await server.request(`${env}${created.body.id}/activity/`);
    const changes = page.body.results.map((r: any) => r.detail.changes);
    const S = { id: sales.id, name: 'Sales' };
    const G = { id: growth.id, name: 'Growth' };
    const change = (before: unknown[], after: unknown[]) => ({ type: 'Insight', action: 'changed', field: 'dashboards', before, after });
    expect(page.body.results.map((r: any) => r.activity)).toEqual(['updated', 'updated', 'updated', 'updated', 'updated', 'created']);
    expect(changes).toEqual([
      [change([G], [])],
      [{ type: 'Insight', action: 'changed', field: 'name', before: 'Signups', after: 'Signups per day' }, change([S, G], [G])],
      [],
      [change([S], [G, S])],
      [change([], [S])],
      null,
    ]);
  });

  it('answers 404 for no such insight, 400 for a bad page, and needs activity_log:read', async () => {
    const env = `/api/environments/${server.bootstrap.team.id}/insights/`;
    expect((await server.request(`${env}999999/activity/`)).status).toBe(404);
    expect((await server.request(`${env}abc/activity/`)).status).toBe(404);
    const bad = await server.request(`${env}activity/?page=0`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'page' });
    const created = await server.request(env, { method: 'POST', body: { query: trends } });
    const insightOnly = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['insight:read']);
    expect((await server.request(`${env}${created.body.id}/activity/`, { key: insightOnly })).status).toBe(403);
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['activity_log:read']);
    expect((await server.request(`${env}${created.body.id}/activity/`, { key: reader })).status).toBe(200);
  });
});

describe("a dashboard's history", () => {
  it('lists its entries the same way', async () => {
    const base = `/api/projects/${server.bootstrap.project.id}/dashboards/`;
    const created = await server.request(base, { method: 'POST', body: { name: 'Sales' } });
    expect(created.status, created.text).toBe(201);
    await server.request(`${base}${created.body.id}/`, { method: 'PATCH', body: { pinned: true } });
    const page = await server.request(`${base}${created.body.id}/activity/`);
    expect(page.status, page.text).toBe(200);
    expect(page.body.results.map((r: { activity: string }) => r.activity)).toEqual(['updated', 'created']);
    expect(page.body.results[0].detail.changes).toEqual([
      { type: 'Dashboard', action: 'changed', field: 'pinned', before: false, after: true },
    ]);
    expect((await server.request(`${base}activity/`)).body.results.every((r: { scope: string }) => r.scope === 'Dashboard')).toBe(true);
    expect((await server.request(`${base}999999/activity/`)).status).toBe(404);
  });
});
