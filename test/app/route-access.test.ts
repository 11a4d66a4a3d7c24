import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allScopes, keyGrantsScope } from '../../src/auth/scopes.js';
import type { ApiRouteAccess } from '../../src/auth/guard.js';
import { createKey, createProject } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Walks every registered /api route and checks the five credential cases. A route added later is
 * covered without editing this file: the list comes from the running server.
 */
let server: TestServer;
let otherProjectKey: string;
let otherProjectId: number;

const apiRoutes = () =>
  server.running.app.routeTable
    .filter((r) => r.url.startsWith('/api/') && !r.config?.methodNotAllowed)
    .map((r) => ({ method: r.method, url: r.url, access: r.config!.access as ApiRouteAccess }));
/** The routes that need credentials: all but the few that start a session (PUBLIC_ROUTES). */
const routes = () => apiRoutes().filter((r) => !r.access.public);

/**
 * What may be called without credentials: signing in, setting a password from a link, accepting an
 * invite; and posthog-js's early access list, whose one credential is the project token in its
 * query (checked by the route itself; the public surveys list is the fast lane's, not fastify's).
 */
const PUBLIC_ROUTES = [
  'GET /api/early_access_features',
  'GET /api/reset/:user_uuid/',
  'GET /api/signup/:invite_id/',
  'OPTIONS /api/early_access_features',
  'POST /api/login/',
  'POST /api/logout/',
  'POST /api/reset/',
  'POST /api/reset/:user_uuid/',
  'POST /api/signup/:invite_id/',
];

function concretePath(url: string, access: ApiRouteAccess, teamId: number): string {
  return url.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    if (access.team?.param === name) return String(teamId);
    // The server's own organization: the guard checks the scope before membership, as for projects.
    if (access.organization?.param === name) return server.bootstrap.organization.id;
    return name.endsWith('uuid') ? '01890000-0000-7000-8000-000000000000' : '1';
  });
}

function withBody(method: string) {
  return method === 'POST' || method === 'PATCH' || method === 'PUT' ? { body: {} } : {};
}

/** A scope the route's own scope does not grant, nor is granted by. */
function unrelatedScope(required: readonly string[]): string {
  return allScopes().find((s) => required.every((r) => !keyGrantsScope([s], r) && s.split(':')[0] !== r.split(':')[0]))!;
}

/** A route's scopes as a list (most need one; some, as PostHog's `required_scopes`, several). */
const scopesOf = (scope: string | readonly string[]): readonly string[] => (typeof scope === 'string' ? [scope] : scope);

beforeAll(async () => {
  server = await startTestServer();
  const { database } = server.running.ctx;
  const other = await createProject(database, server.bootstrap.organization.id);
  otherProjectId = other.team.id;
  otherProjectKey = await createKey(database, server.bootstrap.user.id, ['*'], [otherProjectId]);
});

afterAll(async () => {
  await server?.close();
});

describe('every /api route checks credentials, scope and project', () => {
  it('has routes to walk, each declaring its access', () => {
    expect(routes().length).toBeGreaterThanOrEqual(3);
    for (const route of routes()) expect(route.access, `${route.method} ${route.url}`).toBeDefined();
  });

  it('lets only the routes that start a session go without credentials', () => {
    const open = apiRoutes()
      .filter((r) => r.access.public)
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    expect(open).toEqual(PUBLIC_ROUTES);
  });

  it('answers 401 without credentials', async () => {
    for (const route of routes()) {
      const path = concretePath(route.url, route.access, server.bootstrap.team.id);
      const res = await server.request(path, { method: route.method, key: null, ...withBody(route.method) });
      expect(res.status, `${route.method} ${path}`).toBe(401);
      expect(res.body).toEqual({
        type: 'authentication_error',
        code: 'not_authenticated',
        detail: 'Authentication credentials were not provided.',
        attr: null,
      });
    }
  });

  it('answers 401 to an invalid key', async () => {
    for (const route of routes()) {
      const path = concretePath(route.url, route.access, server.bootstrap.team.id);
      const res = await server.request(path, { method: route.method, key: 'phx_not_a_real_key', ...withBody(route.method) });
      expect(res.status, `${route.method} ${path}`).toBe(401);
      expect(res.body.code).toBe('authentication_failed');
      expect(res.body.detail).toBe('Personal API key found in request Authorization header is invalid.');
    }
  });

  it('answers 403 naming the scope to a key without it', async () => {
    for (const route of routes()) {
      const path = concretePath(route.url, route.access, server.bootstrap.team.id);
      if (route.access.personalApiKeys) {
        // Key management checks no scope: a key without `*` manages no keys and may read only
        // itself (docs/decisions/0001-personal-key-management.md), so another id is not found.
        const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['project:read']);
        const res = await server.request(path, { method: route.method, key, ...withBody(route.method) });
        expect({ status: res.status, detail: res.body.detail }, `${route.method} ${path}`).toEqual(
          route.access.personalApiKeys === 'manage'
            ? { status: 403, detail: 'This action does not support Personal API Key access' }
            : { status: 404, detail: 'Not found.' },
        );
        continue;
      }
      const required = route.access.scope === null ? null : scopesOf(route.access.scope);
      const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, [required ? unrelatedScope(required) : '*']);
      const res = await server.request(path, { method: route.method, key, ...withBody(route.method) });
      expect(res.status, `${route.method} ${path}`).toBe(403);
      expect(res.body.detail).toBe(
        required ? `API key missing required scope '${required[0]}'` : 'This action does not support personal API key access',
      );
    }
  });

  it('needs every scope of a route that names several, naming the first one missing', async () => {
    const several = routes().filter((route) => route.access.scope !== null && typeof route.access.scope !== 'string');
    expect(several.length).toBeGreaterThan(0);
    for (const route of several) {
      const path = concretePath(route.url, route.access, server.bootstrap.team.id);
      const [first, ...rest] = scopesOf(route.access.scope!);
      const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, [first!]);
      const res = await server.request(path, { method: route.method, key, ...withBody(route.method) });
      expect({ status: res.status, detail: res.body.detail }, `${route.method} ${path}`).toEqual({
        status: 403,
        detail: `API key missing required scope '${rest[0]}'`,
      });
    }
  });

  it("keeps a key limited to another project out of this project's routes", async () => {
    for (const route of routes()) {
      const path = concretePath(route.url, route.access, server.bootstrap.team.id);
      const res = await server.request(path, { method: route.method, key: otherProjectKey, ...withBody(route.method) });
      if (route.access.team) {
        expect(res.status, `${route.method} ${path}`).toBe(403);
        expect(res.body.detail).toBe(`API key does not have access to the requested project: ID ${server.bootstrap.team.id}.`);
      } else {
        // Routes that are not about one project answer, but show nothing of the other project.
        expect(res.status, `${route.method} ${path}`).not.toBe(401);
        expect(res.text).not.toContain(server.bootstrap.team.apiToken);
      }
    }
  });

  it('lets a valid key through', async () => {
    for (const route of routes()) {
      // Destructive routes get a project of their own, so the walk does not delete what it stands on.
      const teamId =
        route.method === 'DELETE'
          ? (await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Throwaway')).team.id
          : server.bootstrap.team.id;
      const path = concretePath(route.url, route.access, teamId).replace(
        /\/projects\/\d+\/environments\/\d+\//,
        `/projects/${teamId}/environments/${teamId}/`,
      );
      const res = await server.request(path, { method: route.method, ...withBody(route.method) });
      expect([401, 403], `${route.method} ${path} answered ${res.status}: ${res.text}`).not.toContain(res.status);
      expect(res.status, `${route.method} ${path}`).toBeLessThan(500);
    }
  });
});
