import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createKey } from '../helpers/fixtures.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('flag changes go to the activity log', () => {
  it('records create, field-level updates and soft delete', async () => {
    const base = `/api/projects/${server.bootstrap.project.id}/feature_flags/`;
    const created = await server.request(base, {
      method: 'POST',
      body: { key: 'logged', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } },
    });
    expect(created.status).toBe(201);
    await server.request(`${base}${created.body.id}/`, { method: 'PATCH', body: { name: 'Logged flag', active: false } });
    await server.request(`${base}${created.body.id}/`, { method: 'PATCH', body: { deleted: true } });
    const { db } = server.running.ctx.database;
    const rows = await db
      .selectFrom('activity_log')
      .selectAll()
      .where('scope', '=', 'FeatureFlag')
      .where('item_id', '=', String(created.body.id))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.activity)).toEqual(['created', 'updated', 'deleted']);
    const detail = (r: (typeof rows)[number]) => (typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail);
    expect(detail(rows[1]!).changes).toEqual(
      expect.arrayContaining([
        { type: 'FeatureFlag', action: 'changed', field: 'name', before: '', after: 'Logged flag' },
        { type: 'FeatureFlag', action: 'changed', field: 'active', before: true, after: false },
      ]),
    );
    expect(detail(rows[2]!).changes).toEqual([{ type: 'FeatureFlag', action: 'changed', field: 'deleted', before: false, after: true }]);
    expect(Number(rows[0]!.user_id)).toBe(server.bootstrap.user.id);
  });
});

describe("the flag's history through the API (FeatureFlagViewSet's activity actions)", () => {
  it('lists one flag’s entries newest first, with the author and the changes, paged', async () => {
    const base = `/api/projects/${server.bootstrap.project.id}/feature_flags/`;
    const created = await server.request(base, {
      method: 'POST',
      body: { key: 'history', filters: { groups: [{ properties: [], rollout_percentage: 5 }] } },
    });
    expect(created.status).toBe(201);
    const other = await server.request(base, { method: 'POST', body: { key: 'history-other' } });
    for (const rollout of [20, 60]) {
      const edited = await server.request(`${base}${created.body.id}/`, {
        method: 'PATCH',
        body: { filters: { groups: [{ properties: [], rollout_percentage: rollout }] } },
      });
      expect(edited.status).toBe(200);
    }
    const page = await server.request(`${base}${created.body.id}/activity/?limit=2`);
    expect(page.status, page.text).toBe(200);
    expect(page.body.total_count).toBe(3);
    expect(page.body.results.map((r: { activity: string }) => r.activity)).toEqual(['updated', 'updated']);
    expect(page.body.results[0].item_id).toBe(String(created.body.id));
    expect(page.body.results[0].user.email).toBe(server.bootstrap.user.email);
    expect(page.body.results[0].detail.changes).toEqual([
      {
        type: 'FeatureFlag',
        action: 'changed',
        field: 'filters',
        before: { groups: [{ properties: [], rollout_percentage: 20 }] },
        after: { groups: [{ properties: [], rollout_percentage: 60 }] },
      },
    ]);
    expect(page.body.next).toContain('page=2');
    const last = await server.request(`${base}${created.body.id}/activity/?limit=2&page=2`);
    expect(last.body.results.map((r: { activity: string }) => r.activity)).toEqual(['created']);
    expect(last.body.next).toBeNull();

    // The project's list holds both flags' entries.
    const all = await server.request(`${base}activity/?limit=100`);
    expect(all.status).toBe(200);
    const items = new Set(all.body.results.map((r: { item_id: string }) => r.item_id));
    expect(items.has(String(created.body.id)) && items.has(String(other.body.id))).toBe(true);
  });

  it('answers 404 for a flag of another project or no flag, and needs activity_log:read', async () => {
    const base = `/api/projects/${server.bootstrap.project.id}/feature_flags/`;
    expect((await server.request(`${base}999999/activity/`)).status).toBe(404);
    expect((await server.request(`${base}abc/activity/`)).status).toBe(404);
    const created = await server.request(base, { method: 'POST', body: { key: 'history-scoped' } });
    const flagOnly = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['feature_flag:read']);
    const refused = await server.request(`${base}${created.body.id}/activity/`, { key: flagOnly });
    expect(refused.status).toBe(403);
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['activity_log:read']);
    expect((await server.request(`${base}${created.body.id}/activity/`, { key: reader })).status).toBe(200);
  });
});
