/**
 * `GET /api/early_access_features/?token=`: what posthog-js's getEarlyAccessFeatures() reads, in
 * PostHog's MinimalEarlyAccessFeatureSerializer shape; beta only unless `stage` says otherwise;
 * PostHog's 401s for a missing or unknown token; CORS for any site; one project's features only.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createProject } from '../helpers/fixtures.js';

const server = useTestServer();

async function create(projectId: number, body: Record<string, unknown>) {
  const res = await server.request(`/api/projects/${projectId}/early_access_feature/`, { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const list = (query: string, headers: Record<string, string> = {}) =>
  server.request(`/api/early_access_features/?${query}`, { key: null, headers });

describe('the public list of early access features', () => {
  it('lists beta features by default, other stages on request, with CORS', async () => {
    const team = server.bootstrap.team;
    const beta = await create(team.id, {
      name: 'Sprocket',
      description: 'A fancy new sprocket.',
      stage: 'beta',
      documentation_url: 'https://example.com/docs',
      payload: { tier: 'pro' },
    });
    const alpha = await create(team.id, { name: 'Alpha gear', stage: 'alpha' });
    await create(team.id, { name: 'Drafty', stage: 'draft' });
    const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
    await create(other.team.id, { name: 'Elsewhere', stage: 'beta' });

    const res = await list(`token=${team.apiToken}`, { origin: 'https://customer.example' });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://customer.example');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.body).toEqual({
      earlyAccessFeatures: [
        {
          id: beta.id,
          name: 'Sprocket',
          description: 'A fancy new sprocket.',
          stage: 'beta',
          documentationUrl: 'https://example.com/docs',
          flagKey: 'sprocket',
          payload: { tier: 'pro' },
        },
      ],
    });

    const both = await list(`token=${team.apiToken}&stage=alpha&stage=beta`);
    expect(both.body.earlyAccessFeatures.map((f: any) => f.id)).toEqual([beta.id, alpha.id]);
    const none = await list(`token=${team.apiToken}&stage=nonsense`);
    expect(none.body).toEqual({ earlyAccessFeatures: [] });
    const preflight = await server.request('/api/early_access_features/', {
      method: 'OPTIONS',
      key: null,
      headers: { origin: 'https://customer.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-custom' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://customer.example');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('x-custom');
    const theirs = await list(`token=${other.team.apiToken}`);
    expect(theirs.body.earlyAccessFeatures.map((f: any) => f.name)).toEqual(['Elsewhere']);
  });

  it("answers PostHog's 401s for a missing or unknown token", async () => {
    const missing = await list('', { origin: 'https://customer.example' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('access-control-allow-origin')).toBe('https://customer.example');
    expect(missing.body).toEqual({
      type: 'authentication_error',
      code: 'missing_api_key',
      detail: 'Project token not provided. You can find your project token in PostHog project settings.',
      attr: null,
    });
    const unknown = await list('token=phc_nobody');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({
      type: 'authentication_error',
      code: 'invalid_api_key',
      detail: 'Project token invalid. You can find your project token in PostHog project settings.',
      attr: null,
    });
    expect((await list(`token=${'x'.repeat(5000)}`)).status).toBe(401);
  });

  it('matches only known stages: NUL, unknown and repeated values are no error', async () => {
    const team = server.bootstrap.team;
    const conceptual = await create(team.id, { name: 'Conceptual widget', stage: 'concept' });
    const names = async (query: string) => {
      const res = await list(`token=${team.apiToken}&${query}`);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      return res.body.earlyAccessFeatures.map((feature: { name: string }) => feature.name);
    };
    expect(await names('stage=%00')).toEqual([]);
    expect(await names('stage=concept%00')).toEqual([]);
    expect(await names(`stage=%00&stage=concept&stage=${'%FF'.repeat(3)}&stage=concept`)).toEqual([conceptual.name]);
    expect((await list('token=%00&stage=beta')).status).toBe(401);
  });
});
