import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

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
