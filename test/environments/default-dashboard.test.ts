/**
 * A new environment's primary dashboard and data theme, as PostHog's Team.objects.create_with_data
 * and TeamSerializer.to_representation give them (posthog/models/team/team.py, posthog/api/team.py).
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

async function createEnv(body: Record<string, unknown> = {}) {
  const res = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
    method: 'POST',
    body: { name: 'Parity', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const patch = (id: number, body: unknown, key?: string) =>
  server.request(`/api/environments/${id}/`, { method: 'PATCH', body, ...(key ? { key } : {}) });

describe('a new environment', () => {
  async function expectDefaultDashboard(envId: number, dashboardId: unknown) {
    expect(dashboardId).toEqual(expect.any(Number));
    const res = await server.request(`/api/environments/${envId}/dashboards/${dashboardId}/`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ name: 'My App Dashboard', pinned: true, deleted: false });
    expect(res.body.tiles.map((t: any) => t.insight.name)).toEqual([
      'Daily active users (DAUs)',
      'Weekly active users (WAUs)',
      'Referring domain (last 14 days)',
    ]);
    for (const tile of res.body.tiles) {
      expect(tile.insight.result, tile.insight.name).toEqual(expect.any(Array));
      expect(tile.layouts).toHaveProperty('sm');
    }
    const list = await server.request(`/api/environments/${envId}/dashboards/`);
    expect(list.body.results.map((d: any) => d.id)).toContain(dashboardId);
  }

  it("gets PostHog's default primary dashboard and data theme when created", async () => {
    const env = await createEnv();
    expect(env.default_data_theme).toBe(1);
    await expectDefaultDashboard(env.id, env.primary_dashboard);
    expect((await server.request(`/api/environments/${env.id}/`)).body.primary_dashboard).toBe(env.primary_dashboard);
    // Another environment's dashboard is its own.
    const other = await createEnv();
    expect(other.primary_dashboard).not.toBe(env.primary_dashboard);
    // A theme set is answered back.
    expect((await patch(env.id, { default_data_theme: 7 })).body.default_data_theme).toBe(7);
  });

  it('is also how the first start sets up the first environment', async () => {
    const first = await server.request(`/api/environments/${server.bootstrap.team.id}/`);
    expect(first.body.default_data_theme).toBe(1);
    expect(first.body.primary_dashboard).toBe(server.bootstrap.team.settings.primary_dashboard);
    await expectDefaultDashboard(server.bootstrap.team.id, first.body.primary_dashboard);
  });
});
