/**
 * An environment's project secret API key through the environment and project APIs, as PostHog's
 * TeamViewSet / ProjectViewSet actions `rotate_secret_token` and `delete_secret_token_backup`
 * (posthog/api/team.py, posthog/models/team/team.py) answer them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMembership, insertUser } from '../../src/environments/tenancy-store.js';
import { createKey } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let projectId: number;

beforeAll(async () => {
  server = await startTestServer();
  projectId = server.bootstrap.project.id;
});
afterAll(async () => {
  await server?.close();
});

/** 35 random bytes in base62 after `phs_`, as a personal API key. */
const SECRET_KEY = /^phs_[0-9A-Za-z]{40,48}$/;
const mask = (key: string) => `${key.slice(0, 4)}...${key.slice(-4)}`;

async function createEnv(name: string) {
  const res = await server.request(`/api/projects/${projectId}/environments/`, { method: 'POST', body: { name } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const rotate = (envId: number) => server.request(`/api/environments/${envId}/rotate_secret_token/`, { method: 'PATCH', body: {} });
const deleteBackup = (envId: number) =>
  server.request(`/api/environments/${envId}/delete_secret_token_backup/`, { method: 'PATCH', body: {} });
const latestChange = async (envId: number) =>
  (await server.request(`/api/environments/${envId}/activity/`)).body.results[0]?.detail.changes[0];

describe('rotate_secret_token', () => {
  it('gives a new environment no key until the first rotation, then a phs_ key without a backup', async () => {
    const env = await createEnv('Keys');
    expect(env).toMatchObject({ secret_api_token: null, secret_api_token_backup: null });

    const first = await rotate(env.id);
    expect(first.status, first.text).toBe(200);
    expect(first.body.id).toBe(env.id);
    expect(first.body.secret_api_token).toMatch(SECRET_KEY);
    expect(first.body.secret_api_token_backup).toBeNull();
    expect(await latestChange(env.id)).toEqual({
      type: 'Team',
      action: 'created',
      field: 'secret_api_token',
      before: { secret_api_token: null },
      after: { secret_api_token: mask(first.body.secret_api_token) },
    });

    const stored = await server.request(`/api/environments/${env.id}/`);
    expect(stored.body).toMatchObject({ secret_api_token: first.body.secret_api_token, secret_api_token_backup: null });
  });

  it('keeps one key current and the other the backup when two rotations run at once', async () => {
    const env = await createEnv('Concurrent rotations');
    const answers = await Promise.all([rotate(env.id), rotate(env.id), rotate(env.id)]);
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    const minted = answers.map((a) => a.body.secret_api_token as string);
    const stored = (await server.request(`/api/environments/${env.id}/`)).body;
    // Each rotation read the keys as the one before it left them: the last minted is current,
    // the one minted before it the backup, whatever order they ran in.
    expect(minted).toContain(stored.secret_api_token);
    expect(minted).toContain(stored.secret_api_token_backup);
    const chain = answers.map((a) => a.body.secret_api_token_backup as string | null);
    expect(chain.filter((backup) => backup === null)).toHaveLength(1);
    expect(new Set(chain).size).toBe(3);
  });

  it('moves the current key to the backup on every rotation, dropping the older backup', async () => {
    const env = await createEnv('Rotations');
    const first = (await rotate(env.id)).body.secret_api_token;
    const second = await rotate(env.id);
    expect(second.status).toBe(200);
    expect(second.body.secret_api_token).toMatch(SECRET_KEY);
    expect(second.body.secret_api_token).not.toBe(first);
    expect(second.body.secret_api_token_backup).toBe(first);
    expect(await latestChange(env.id)).toEqual({
      type: 'Team',
      action: 'changed',
      field: 'secret_api_token',
      before: { secret_api_token: mask(first), secret_api_token_backup: null },
      after: { secret_api_token: mask(second.body.secret_api_token), secret_api_token_backup: mask(first) },
    });

    const third = await rotate(env.id);
    expect(third.body.secret_api_token_backup).toBe(second.body.secret_api_token);
    expect(await latestChange(env.id)).toMatchObject({
      action: 'changed',
      before: { secret_api_token: mask(second.body.secret_api_token), secret_api_token_backup: mask(first) },
    });
    // The nested address acts on the same environment.
    const nested = await server.request(`/api/projects/${projectId}/environments/${env.id}/rotate_secret_token/`, {
      method: 'PATCH',
      body: {},
    });
    expect(nested.body.secret_api_token_backup).toBe(third.body.secret_api_token);
  });

  it('is also a project action, on the project’s first environment, answered like GET /api/projects/:id/', async () => {
    const res = await server.request(`/api/projects/${projectId}/rotate_secret_token/`, { method: 'PATCH', body: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(projectId);
    expect(res.body.secret_api_token).toMatch(SECRET_KEY);
    const project = await server.request(`/api/projects/${projectId}/`);
    expect(project.body).toEqual(res.body);
    // The lists show the basic fields only, never the key.
    const list = await server.request('/api/projects/');
    expect(list.body.results[0]).not.toHaveProperty('secret_api_token');
  });
});

describe('delete_secret_token_backup', () => {
  it('retires the backup and keeps the current key; without a backup it changes nothing', async () => {
    const env = await createEnv('Backup');
    const first = (await rotate(env.id)).body.secret_api_token;
    const current = (await rotate(env.id)).body.secret_api_token;

    const res = await deleteBackup(env.id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: env.id, secret_api_token: current, secret_api_token_backup: null });
    expect(await latestChange(env.id)).toEqual({
      type: 'Team',
      action: 'deleted',
      field: 'secret_api_token_backup',
      before: mask(first),
      after: null,
    });
    const entries = (await server.request(`/api/environments/${env.id}/activity/`)).body.total_count;

    const again = await deleteBackup(env.id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ secret_api_token: current, secret_api_token_backup: null });
    expect((await server.request(`/api/environments/${env.id}/activity/`)).body.total_count).toBe(entries);

    const project = await server.request(`/api/projects/${projectId}/delete_secret_token_backup/`, { method: 'PATCH', body: {} });
    expect(project.status).toBe(200);
    expect(project.body.secret_api_token_backup).toBeNull();
  });
});

describe('who may change the keys', () => {
  it('takes project:write, as reset_token does', async () => {
    const env = await createEnv('Read only');
    const reader = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['project:read']);
    for (const action of ['rotate_secret_token', 'delete_secret_token_backup']) {
      const res = await server.request(`/api/environments/${env.id}/${action}/`, { method: 'PATCH', key: reader, body: {} });
      expect({ status: res.status, detail: res.body.detail }, action).toEqual({
        status: 403,
        detail: "API key missing required scope 'project:write'",
      });
    }
    expect((await server.request(`/api/environments/${env.id}/`)).body.secret_api_token).toBeNull();
  });

  it('takes a project admin, as PostHog’s TeamMemberStrictManagementPermission does', async () => {
    const { database } = server.running.ctx;
    const env = await createEnv('Admins only');
    const member = await insertUser(database.db, {
      email: 'member@keys.example',
      currentOrganizationId: server.bootstrap.organization.id,
      currentTeamId: projectId,
    });
    await insertMembership(database.db, server.bootstrap.organization.id, member.id, 1);
    const memberKey = await createKey(database, member.id, ['*']);
    const paths = [
      `/api/environments/${env.id}/reset_token/`,
      `/api/projects/${projectId}/environments/${env.id}/reset_token/`,
      `/api/environments/${env.id}/rotate_secret_token/`,
      `/api/environments/${env.id}/delete_secret_token_backup/`,
      `/api/projects/${projectId}/reset_token/`,
      `/api/projects/${projectId}/rotate_secret_token/`,
      `/api/projects/${projectId}/delete_secret_token_backup/`,
    ];
    const tokensBefore = (await server.request(`/api/environments/${env.id}/`)).body.api_token;
    const projectTokenBefore = (await server.request(`/api/projects/${projectId}/`)).body.api_token;
    for (const path of paths) {
      const res = await server.request(path, { method: 'PATCH', key: memberKey, body: {} });
      expect({ status: res.status, detail: res.body.detail }, path).toEqual({
        status: 403,
        detail: "You don't have sufficient permissions in the project.",
      });
    }
    // Nothing changed: the SDKs' keys still work.
    expect((await server.request(`/api/environments/${env.id}/`)).body.api_token).toBe(tokensBefore);
    expect((await server.request(`/api/projects/${projectId}/`)).body.api_token).toBe(projectTokenBefore);
    // A member still reads the environment, key included, as in PostHog.
    expect((await server.request(`/api/environments/${env.id}/`, { key: memberKey })).status).toBe(200);
  });
});

describe('reset_token under the project', () => {
  it("resets the project's environment's project API key, as the environment action does", async () => {
    const before = (await server.request(`/api/projects/${projectId}/`)).body.api_token;
    const capture = (token: string) =>
      fetch(`${server.url}/capture/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, event: 'reset', distinct_id: 'r' }),
      });
    expect((await capture(before)).status).toBe(200);

    const res = await server.request(`/api/projects/${projectId}/reset_token/`, { method: 'PATCH', body: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(server.bootstrap.team.id);
    expect(res.body.api_token).toMatch(/^phc_/);
    expect(res.body.api_token).not.toBe(before);
    expect((await server.request(`/api/environments/${server.bootstrap.team.id}/`)).body.api_token).toBe(res.body.api_token);
    expect((await capture(before)).status).toBe(401);
    expect((await capture(res.body.api_token)).status).toBe(200);
    expect(await latestChange(server.bootstrap.team.id)).toMatchObject({ field: 'api_token', before, after: res.body.api_token });
  });
});
