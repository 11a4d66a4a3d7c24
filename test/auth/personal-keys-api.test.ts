/**
 * `/api/personal_api_keys/`: PostHog's key management API, and who may call it in Hoglet
 * (docs/decisions/0001-personal-key-management.md). A real server over real HTTP; the last case
 * runs two `hoglet serve` processes on one database.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MembershipLevel } from '../../src/environments/models.js';
import { insertMembership, insertUser } from '../../src/environments/tenancy-store.js';
import { freshStorage } from '../helpers/backend.js';
import { createForeignOrganization, createKey, createProject } from '../helpers/fixtures.js';
import { runHoglet, type HogletProcess } from '../helpers/process.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

const SELF_ONLY = 'This action does not support Personal API Key access';
const DRF_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/;
const INVALID_KEY = 'Personal API key found in request Authorization header is invalid.';
const sha256 = (text: string) => 'sha256$' + createHash('sha256').update(text).digest('hex');
const mask = (value: string) => `${value.slice(0, 4)}...${value.slice(-4)}`;

let members = 0;
/** A further member of the bootstrap organization with one key (all scopes unless told), so each case counts its own keys. */
async function member(scopes = ['*']) {
  const { database } = server.running.ctx;
  const organizationId = server.bootstrap.organization.id;
  const user = await insertUser(database.db, {
    email: `keys-${++members}@example.com`,
    currentOrganizationId: organizationId,
    currentTeamId: server.bootstrap.team.id,
  });
  await insertMembership(database.db, organizationId, user.id, MembershipLevel.member);
  return { user, key: await createKey(database, user.id, scopes) };
}

const fullBody = (fields: Record<string, unknown> = {}) => ({
  label: 'made',
  scopes: ['*'],
  scoped_teams: [],
  scoped_organizations: [],
  ...fields,
});

async function createThrough(key: string, fields: Record<string, unknown> = {}) {
  const res = await server.request('/api/personal_api_keys/', { method: 'POST', key, body: fullBody(fields) });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; value: string; [field: string]: unknown };
}

const idOfKey = async (key: string) => (await server.request('/api/personal_api_keys/@current/', { key })).body.id as string;

describe('/api/personal_api_keys/', () => {
  it('answers the raw value in the create answer only, and stores only its hash', async () => {
    const { user, key } = await member();
    const res = await server.request('/api/personal_api_keys', {
      method: 'POST',
      key,
      body: {
        label: 'CI deploys',
        scopes: ['feature_flag:read', 'project:write'],
        scoped_teams: [],
        scoped_organizations: [],
        value: 'phx_mine',
        id: 'mine',
      },
    });
    expect(res.status).toBe(201);
    const value = res.body.value as string;
    expect(value).toMatch(/^phx_[0-9A-Za-z]{40,48}$/);
    expect(res.body).toEqual({
      id: expect.any(String),
      label: 'CI deploys',
      value,
      mask_value: mask(value),
      created_at: expect.stringMatching(DRF_TIME),
      last_used_at: null,
      user_id: user.id,
      scopes: ['feature_flag:read', 'project:write'],
      scoped_teams: null,
      scoped_organizations: null,
      last_rolled_at: null,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'label',
      'value',
      'mask_value',
      'created_at',
      'last_used_at',
      'user_id',
      'scopes',
      'scoped_teams',
      'scoped_organizations',
      'last_rolled_at',
    ]);
    expect(res.body.id).not.toBe('mine');

    const { db } = server.running.ctx.database;
    const rows = await db.selectFrom('personal_api_keys').selectAll().where('id', '=', res.body.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secure_value).toBe(sha256(value));
    expect(JSON.stringify(rows)).not.toContain(value);

    // The new key works, and no later read shows its value.
    expect((await server.request('/api/projects/', { key: value })).status).toBe(200);
    const retrieved = await server.request(`/api/personal_api_keys/${res.body.id}/`, { key });
    expect(retrieved.body).toEqual({ ...res.body, value: null, last_used_at: expect.stringMatching(DRF_TIME) });
    expect((await server.request('/api/personal_api_keys/@current/', { key: value })).body.value).toBeNull();
    const listed = await server.request('/api/personal_api_keys/', { key });
    expect(listed.body.map((k: { value: unknown }) => k.value)).toEqual([null, null]);
    expect(listed.text).not.toContain(value);
  });

  it('lists the user\'s keys as a plain array, newest first, keys without scopes as ["*"]', async () => {
    const { key } = await member();
    const own = await idOfKey(key);
    const first = await createThrough(key, { label: 'first' });
    const second = await createThrough(key, { label: 'second' });
    const res = await server.request('/api/personal_api_keys/', { key });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((k: { id: string }) => k.id).sort()).toEqual([own, first.id, second.id].sort());
    // Compared as times: DRF leaves out a zero fraction ("…:00Z" sorts after "…:00.015000Z" as text).
    const times = res.body.map((k: { created_at: string }) => Date.parse(k.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Another user's keys (the bootstrap key) are not listed.
    expect(res.body.map((k: { label: string }) => k.label)).not.toContain('Bootstrap key');

    await server.running.ctx.database.db.updateTable('personal_api_keys').set({ scopes: '[]' }).where('id', '=', first.id).execute();
    const legacy = await server.request('/api/personal_api_keys/', { key });
    expect(legacy.body.find((k: { id: string }) => k.id === first.id).scopes).toEqual(['*']);
  });

  it('lets any key read itself, and only a key with * and no limits do the rest', async () => {
    const { user, key: manager } = await member();
    const managerId = await idOfKey(manager);
    const flagsOnly = await createKey(server.running.ctx.database, user.id, ['feature_flag:read']);

    const current = await server.request('/api/personal_api_keys/@current/', { key: flagsOnly });
    expect(current.status).toBe(200);
    expect(current.body.scopes).toEqual(['feature_flag:read']);
    const flagsOnlyId = current.body.id as string;
    expect((await server.request(`/api/personal_api_keys/${flagsOnlyId}/`, { key: flagsOnly })).body.id).toBe(flagsOnlyId);
    expect((await server.request(`/api/personal_api_keys/${flagsOnlyId}/`, { key: manager })).body.id).toBe(flagsOnlyId);

    // Another of the user's keys: 403 after the lookup; a key the user does not have: 404 first.
    const other = await server.request(`/api/personal_api_keys/${managerId}/`, { key: flagsOnly });
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: SELF_ONLY, attr: null });
    const bootstrapKeyId = await idOfKey(server.key);
    for (const id of [bootstrapKeyId, 'no-such-key']) {
      for (const key of [flagsOnly, manager]) {
        const res = await server.request(`/api/personal_api_keys/${id}/`, { key });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
      }
    }

    // Everything else is refused to a key without * and to a * key limited to a project or an organization.
    const limitedToProject = await createKey(server.running.ctx.database, user.id, ['*'], [server.bootstrap.team.id]);
    const limitedToOrganization = await createThrough(manager, { scoped_organizations: [server.bootstrap.organization.id] });
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', '/api/personal_api_keys/'],
      ['POST', '/api/personal_api_keys/', fullBody()],
      ['PATCH', `/api/personal_api_keys/${flagsOnlyId}/`, { label: 'renamed' }],
      ['PUT', `/api/personal_api_keys/${flagsOnlyId}/`, fullBody()],
      ['PATCH', '/api/personal_api_keys/@current/', { scopes: ['*'] }],
      ['POST', `/api/personal_api_keys/${flagsOnlyId}/roll/`],
      ['DELETE', `/api/personal_api_keys/${managerId}/`],
      ['DELETE', '/api/personal_api_keys/@current/'],
      // A method the route does not take: the view's permission comes before the 405.
      ['POST', `/api/personal_api_keys/${flagsOnlyId}/`, { scopes: ['*'] }],
    ];
    for (const key of [flagsOnly, limitedToProject, limitedToOrganization.value]) {
      for (const [method, path, body] of attempts) {
        const res = await server.request(path, { method, key, ...(body === undefined ? {} : { body }) });
        expect({ status: res.status, detail: res.body?.detail }, `${method} ${path}`).toEqual({ status: 403, detail: SELF_ONLY });
      }
    }
    const unchanged = await server.request(`/api/personal_api_keys/${flagsOnlyId}/`, { key: manager });
    expect(unchanged.body).toMatchObject({ label: 'test', scopes: ['feature_flag:read'], last_rolled_at: null });
    expect((await server.request('/api/personal_api_keys/', { key: manager })).body).toHaveLength(4);

    const notAllowed = await server.request(`/api/personal_api_keys/${flagsOnlyId}/`, { method: 'POST', key: manager, body: {} });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.body.detail).toBe('Method "POST" not allowed.');
  });

  it('edits a key with PATCH (the fields given) and PUT (all of them)', async () => {
    const { key } = await member();
    const made = await createThrough(key, { label: 'before', scopes: ['insight:read'] });
    const path = `/api/personal_api_keys/${made.id}/`;

    const patched = await server.request(path, { method: 'PATCH', key, body: { label: 'after', scopes: ['insight:write', 'query:read'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...made, label: 'after', scopes: ['insight:write', 'query:read'], value: null });

    const teamId = server.bootstrap.team.id;
    const organizationId = server.bootstrap.organization.id;
    const limited = await server.request(path, {
      method: 'PATCH',
      key,
      body: { scopes: ['project:read'], scoped_teams: [String(teamId)], scoped_organizations: [`{${organizationId.toUpperCase()}}`] },
    });
    expect(limited.body).toMatchObject({ label: 'after', scoped_teams: [teamId], scoped_organizations: [organizationId] });
    // The limits are stored as the guard reads them: this project answers, another does not.
    const another = await createProject(server.running.ctx.database, organizationId);
    expect((await server.request(`/api/projects/${teamId}/`, { key: made.value })).status).toBe(200);
    const outside = await server.request(`/api/projects/${another.team.id}/`, { key: made.value });
    expect(outside.body.detail).toBe(`API key does not have access to the requested project: ID ${another.team.id}.`);
    const cleared = await server.request(path, { method: 'PATCH', key, body: { scoped_teams: [], scoped_organizations: [] } });
    expect(cleared.body).toMatchObject({ scoped_teams: null, scoped_organizations: null });

    const incomplete = await server.request(path, { method: 'PUT', key, body: { label: 'only a label' } });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'scopes' });
    const put = await server.request(path, { method: 'PUT', key, body: fullBody({ label: 'put', scopes: ['project:read'] }) });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: made.id, label: 'put', scopes: ['project:read'], value: null });

    const self = await server.request('/api/personal_api_keys/@current/', { method: 'PATCH', key, body: { label: 'me' } });
    expect(self.body).toMatchObject({ id: await idOfKey(key), label: 'me' });
    expect((await server.request('/api/personal_api_keys/no-such-key/', { method: 'PATCH', key, body: { label: 'x' } })).status).toBe(404);
  });

  it("refuses bad input with PostHog's messages, first failing field first", async () => {
    const { key } = await member();
    const foreign = await createForeignOrganization(server.running.ctx.database);
    const teamId = server.bootstrap.team.id;
    const cases: Array<[unknown, { code: string; detail: string; attr: string | null }]> = [
      [{}, { code: 'required', detail: 'This field is required.', attr: 'label' }],
      [{ label: '' }, { code: 'blank', detail: 'This field may not be blank.', attr: 'label' }],
      [{ label: '   ' }, { code: 'blank', detail: 'This field may not be blank.', attr: 'label' }],
      [{ label: null }, { code: 'null', detail: 'This field may not be null.', attr: 'label' }],
      [
        { label: 'x'.repeat(41), scopes: 'bad' },
        { code: 'max_length', detail: 'Ensure this field has no more than 40 characters.', attr: 'label' },
      ],
      [{ label: 'ok' }, { code: 'required', detail: 'This field is required.', attr: 'scopes' }],
      [
        { label: 'ok', scopes: [] },
        { code: 'empty', detail: 'This list may not be empty.', attr: 'scopes' },
      ],
      [
        { label: 'ok', scopes: 'project:read' },
        { code: 'not_a_list', detail: 'Expected a list of items but got type "str".', attr: 'scopes' },
      ],
      [
        { label: 'ok', scopes: [null] },
        { code: 'null', detail: 'This field may not be null.', attr: 'scopes__0' },
      ],
      [
        { label: 'ok', scopes: ['project:read', 'nothing:read'] },
        { code: 'invalid_input', detail: 'Invalid scope: nothing:read', attr: 'scopes' },
      ],
      [
        { label: 'ok', scopes: ['project:admin'] },
        { code: 'invalid_input', detail: 'Invalid scope: project:admin', attr: 'scopes' },
      ],
      [
        { label: 'ok', scopes: ['*'] },
        { code: 'required', detail: 'This field is required.', attr: 'scoped_teams' },
      ],
      [
        { label: 'ok', scopes: ['*'], scoped_teams: ['one'] },
        { code: 'invalid_input', detail: 'A valid integer is required.', attr: 'scoped_teams__0' },
      ],
      ...[[foreign.team.id], [999_999], [teamId, teamId]].map(
        (teams) =>
          [
            fullBody({ scoped_teams: teams }),
            { code: 'invalid_input', detail: 'You must be a member of all teams that you are scoping the key to.', attr: 'scoped_teams' },
          ] as [unknown, { code: string; detail: string; attr: string | null }],
      ),
      [
        { label: 'ok', scopes: ['*'], scoped_teams: [] },
        { code: 'required', detail: 'This field is required.', attr: 'scoped_organizations' },
      ],
      [
        fullBody({ scoped_organizations: ['not-a-uuid'] }),
        { code: 'invalid_input', detail: 'Invalid organization UUID', attr: 'scoped_organizations' },
      ],
      [
        fullBody({ scoped_organizations: [server.bootstrap.organization.id, foreign.organization.id] }),
        {
          code: 'invalid_input',
          detail: 'You must be a member of all organizations that you are scoping the key to.',
          attr: 'scoped_organizations',
        },
      ],
      [[fullBody()], { code: 'invalid_input', detail: 'Invalid data. Expected a dictionary, but got list.', attr: null }],
    ];
    for (const [body, expected] of cases) {
      const res = await server.request('/api/personal_api_keys/', { method: 'POST', key, body });
      expect({ status: res.status, body: res.body }, JSON.stringify(body)).toEqual({
        status: 400,
        body: { type: 'validation_error', ...expected },
      });
    }
    const patch = await server.request('/api/personal_api_keys/@current/', { method: 'PATCH', key, body: { scopes: ['everything'] } });
    expect(patch.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Invalid scope: everything', attr: 'scopes' });
    // Nothing was made; a label of exactly 40 characters is fine.
    expect((await server.request('/api/personal_api_keys/', { key })).body).toHaveLength(1);
    expect((await createThrough(key, { label: 'y'.repeat(40) })).label).toBe('y'.repeat(40));
  });

  it('keeps each user to 10 keys', async () => {
    const { key } = await member();
    for (let i = 2; i <= 10; i++) await createThrough(key, { label: `key ${i}` });
    const eleventh = await server.request('/api/personal_api_keys/', { method: 'POST', key, body: fullBody() });
    expect(eleventh.status).toBe(400);
    expect(eleventh.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'You can only have 10 personal API keys. Remove an existing key before creating a new one.',
      attr: null,
    });
    const listed = await server.request('/api/personal_api_keys/', { key });
    expect(listed.body).toHaveLength(10);
    const removed = await server.request(`/api/personal_api_keys/${listed.body[0].id}/`, { method: 'DELETE', key });
    expect(removed.status).toBe(204);
    await createThrough(key);
  });

  it('revokes a key: its very next request is refused, the local-evaluation feed included', async () => {
    const { key } = await member();
    const made = await createThrough(key, { scopes: ['feature_flag:read', 'project:read'] });
    const feed = `/flags/definitions?token=${server.bootstrap.team.apiToken}`;
    expect((await server.request('/api/projects/', { key: made.value })).status).toBe(200);
    expect((await server.request(feed, { key: made.value })).status).toBe(200);

    const deleted = await server.request(`/api/personal_api_keys/${made.id}/`, { method: 'DELETE', key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    const refused = await server.request('/api/projects/', { key: made.value });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ type: 'authentication_error', code: 'authentication_failed', detail: INVALID_KEY, attr: null });
    expect((await server.request(feed, { key: made.value })).status).toBe(401);
    expect((await server.request(`/api/personal_api_keys/${made.id}/`, { method: 'DELETE', key })).status).toBe(404);
    const rows = await server.running.ctx.database.db.selectFrom('personal_api_keys').select('id').where('id', '=', made.id).execute();
    expect(rows).toHaveLength(0);

    // A key may revoke itself.
    expect((await server.request('/api/personal_api_keys/@current/', { method: 'DELETE', key })).status).toBe(204);
    expect((await server.request('/api/personal_api_keys/', { key })).status).toBe(401);
  });

  it('rolls a key: a new value for the same key, answered once; the old value stops at once', async () => {
    const { key } = await member();
    const made = await createThrough(key, { label: 'rolled', scopes: ['project:read'] });
    expect((await server.request('/api/projects/', { key: made.value })).status).toBe(200);

    const rolled = await server.request(`/api/personal_api_keys/${made.id}/roll/`, { method: 'POST', key });
    expect(rolled.status).toBe(200);
    const value = rolled.body.value as string;
    expect(value).toMatch(/^phx_[0-9A-Za-z]{40,48}$/);
    expect(value).not.toBe(made.value);
    expect(rolled.body).toEqual({
      ...made,
      value,
      mask_value: mask(value),
      last_used_at: expect.stringMatching(DRF_TIME),
      last_rolled_at: expect.stringMatching(DRF_TIME),
    });

    expect((await server.request('/api/projects/', { key: made.value })).status).toBe(401);
    expect((await server.request('/api/projects/', { key: value })).status).toBe(200);
    const row = await server.running.ctx.database.db
      .selectFrom('personal_api_keys')
      .selectAll()
      .where('id', '=', made.id)
      .executeTakeFirstOrThrow();
    expect(row.secure_value).toBe(sha256(value));
    const later = await server.request(`/api/personal_api_keys/${made.id}/`, { key });
    expect(later.body).toMatchObject({ value: null, mask_value: mask(value), last_rolled_at: rolled.body.last_rolled_at });
    expect((await server.request('/api/personal_api_keys/no-such-key/roll/', { method: 'POST', key })).status).toBe(404);
  });
});

describe('two server processes on one database', () => {
  const KEY = 'phx_revocation0123456789abcdefghijklmnopqrstuvw';
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  async function serve(env: Record<string, string>): Promise<string> {
    const p: HogletProcess = runHoglet(['serve'], { PORT: '0', HOST: '127.0.0.1', HOGLET_BOOTSTRAP_PERSONAL_API_KEY: KEY, ...env });
    cleanups.push(async () => {
      if (p.child.exitCode !== null) return;
      p.child.kill('SIGKILL');
      await p.exited;
    });
    const [, url] = await p.waitFor(/"url":"(http:\/\/[^"]+)"[^\n]*hoglet listening/, 60_000);
    return url!;
  }

  async function call(url: string, key: string, method = 'GET', path = '/api/projects/', body?: unknown) {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  it('a key revoked or rolled through one is refused by the other at once', async () => {
    const storage = await freshStorage();
    cleanups.push(() => storage.dispose());
    const first = await serve(storage.env);
    const second = await serve(storage.env);

    const made = await call(first, KEY, 'POST', '/api/personal_api_keys/', fullBody({ scopes: ['project:read'] }));
    expect(made.status).toBe(201);
    expect((await call(second, made.body.value)).status).toBe(200);
    expect((await call(first, KEY, 'DELETE', `/api/personal_api_keys/${made.body.id}/`)).status).toBe(204);
    const refused = await call(second, made.body.value);
    expect(refused).toEqual({
      status: 401,
      body: { type: 'authentication_error', code: 'authentication_failed', detail: INVALID_KEY, attr: null },
    });

    const other = await call(second, KEY, 'POST', '/api/personal_api_keys/', fullBody({ scopes: ['project:read'] }));
    expect((await call(first, other.body.value)).status).toBe(200);
    const rolled = await call(second, KEY, 'POST', `/api/personal_api_keys/${other.body.id}/roll/`);
    expect(rolled.status).toBe(200);
    expect((await call(first, other.body.value)).status).toBe(401);
    expect((await call(first, rolled.body.value)).status).toBe(200);
  }, 120_000);
});
