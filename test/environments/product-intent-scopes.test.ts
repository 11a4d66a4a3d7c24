/**
 * The scope of the product-intent actions: project:read, as PostHog's TeamViewSet declares it
 * (posthog/api/team.py `add_product_intent`, `complete_product_onboarding`).
 */
import { describe, expect, it } from 'vitest';
import { createKey } from '../helpers/fixtures.js';
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

describe('product intent actions', () => {
  it('need project:read, as PostHog declares, not project:write', async () => {
    const env = await createEnv();
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['project:read']);
    const added = await server.request(`/api/environments/${env.id}/add_product_intent/`, {
      method: 'PATCH',
      key: reader,
      body: { product_type: 'session_replay' },
    });
    expect(added.status, added.text).toBe(201);
    expect(added.body.product_intents).toEqual([expect.objectContaining({ product_type: 'session_replay' })]);
    const done = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/${env.id}/complete_product_onboarding/`, {
      method: 'PATCH',
      key: reader,
      body: { product_type: 'session_replay' },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.product_intents[0].onboarding_completed_at).toMatch(/^\d{4}-/);
    // The environment itself still needs project:write.
    expect((await patch(env.id, { name: 'Renamed' }, reader)).status).toBe(403);
    const other = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['feature_flag:write']);
    const refused = await server.request(`/api/environments/${env.id}/add_product_intent/`, {
      method: 'PATCH',
      key: other,
      body: { product_type: 'x' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe("API key missing required scope 'project:read'");
  });
});
