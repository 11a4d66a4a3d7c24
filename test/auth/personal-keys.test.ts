import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyGrantsScope, isValidScope } from '../../src/auth/scopes.js';
import { generatePersonalApiKey, generateProjectApiToken, maskKey } from '../../src/auth/tokens.js';
import { createForeignOrganization, createKey } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('personal API keys', () => {
  it('are stored only as a SHA-256 hash', async () => {
    const { db } = server.running.ctx.database;
    const rows = await db.selectFrom('personal_api_keys').selectAll().execute();
    expect(rows.length).toBe(1);
    const row = rows[0]!;
    expect(JSON.stringify(rows)).not.toContain(server.key);
    expect(row.secure_value).toBe('sha256$' + createHash('sha256').update(server.key).digest('hex'));
    expect(row.mask_value).toBe(`${server.key.slice(0, 4)}...${server.key.slice(-4)}`);
  });

  it('have PostHog formats', () => {
    for (let i = 0; i < 50; i++) {
      expect(generatePersonalApiKey()).toMatch(/^phx_[0-9A-Za-z]{40,48}$/);
      expect(generateProjectApiToken()).toMatch(/^phc_[0-9A-Za-z]{35,43}$/);
    }
    expect(server.bootstrap.team.apiToken).toMatch(/^phc_/);
    expect(server.key).toMatch(/^phx_/);
    expect(maskKey('short')).toBe('********');
  });

  it('are accepted from the header, the query string and the JSON or form body', async () => {
    const viaQuery = await server.request(`/api/projects/?personal_api_key=${server.key}`, { key: null });
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body.results[0].id).toBe(server.bootstrap.team.id);
    const viaBody = await server.request('/api/projects/', { method: 'PUT', key: null, body: { personal_api_key: server.key } });
    expect(viaBody.status).toBe(405);
    const viaForm = await server.request('/api/projects/', {
      method: 'PUT',
      key: null,
      rawBody: `personal_api_key=${encodeURIComponent(server.key)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(viaForm.status).toBe(405);
  });

  it('name where an invalid key was found', async () => {
    const viaQuery = await server.request('/api/projects/?personal_api_key=phx_nope', { key: null });
    expect(viaQuery.status).toBe(401);
    expect(viaQuery.body.detail).toBe('Personal API key found in request query string is invalid.');
    const viaBody = await server.request('/api/projects/', { method: 'PUT', key: null, body: { personal_api_key: 'phx_nope' } });
    expect(viaBody.body.detail).toBe('Personal API key found in request body is invalid.');
    expect(viaBody.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('try only the header when one is given, as PostHog does', async () => {
    const res = await server.request(`/api/projects/?personal_api_key=${server.key}`, { key: 'phx_wrong' });
    expect(res.status).toBe(401);
    expect(res.body.detail).toBe('Personal API key found in request Authorization header is invalid.');
  });

  it('imply read from write, never write from read', async () => {
    expect(keyGrantsScope(['project:write'], 'project:read')).toBe(true);
    expect(keyGrantsScope(['project:read'], 'project:write')).toBe(false);
    expect(keyGrantsScope(['*'], 'subscription:write')).toBe(true);
    expect(keyGrantsScope(['feature_flag:write'], 'project:read')).toBe(false);
    const { database } = server.running.ctx;
    const writeKey = await createKey(database, server.bootstrap.user.id, ['project:write']);
    expect((await server.request('/api/projects/', { key: writeKey })).status).toBe(200);
    const readKey = await createKey(database, server.bootstrap.user.id, ['user:read']);
    const denied = await server.request('/api/projects/', { key: readKey });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'project:read'",
      attr: null,
    });
  });

  it('validate scopes as PostHog does', () => {
    expect(isValidScope('*')).toBe(true);
    expect(isValidScope('feature_flag:read')).toBe(true);
    expect(isValidScope('feature_flag:admin')).toBe(false);
    expect(isValidScope('nothing:read')).toBe(false);
    expect(isValidScope('project:read:extra')).toBe(false);
  });

  it('never reach an organization the user is not a member of', async () => {
    const foreign = await createForeignOrganization(server.running.ctx.database);
    const res = await server.request(`/api/projects/${foreign.team.id}/`);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe("You don't have access to the project.");
    const list = await server.request('/api/projects/');
    expect(list.body.results.map((p: { id: number }) => p.id)).not.toContain(foreign.team.id);
    expect(list.text).not.toContain(foreign.team.apiToken);
  });

  it('stop working when their user is deactivated', async () => {
    const { database } = server.running.ctx;
    const key = await createKey(database, server.bootstrap.user.id, ['*']);
    await database.db.updateTable('users').set({ is_active: false }).where('id', '=', server.bootstrap.user.id).execute();
    try {
      const res = await server.request('/api/projects/', { key });
      expect(res.status).toBe(401);
    } finally {
      await database.db.updateTable('users').set({ is_active: true }).where('id', '=', server.bootstrap.user.id).execute();
    }
    expect((await server.request('/api/projects/', { key })).status).toBe(200);
  });

  it('record when they were last used', async () => {
    const { db } = server.running.ctx.database;
    const row = await db
      .selectFrom('personal_api_keys')
      .select(['created_at', 'last_used_at'])
      .where('label', '=', 'Bootstrap key')
      .executeTakeFirstOrThrow();
    expect(row.last_used_at).not.toBeNull();
    // Set by a use: after the key was made, not after now.
    expect(Date.parse(row.last_used_at!)).toBeGreaterThanOrEqual(Date.parse(row.created_at));
    expect(Date.parse(row.last_used_at!)).toBeLessThanOrEqual(Date.now());
  });
});
