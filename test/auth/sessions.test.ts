/**
 * Accounts over real HTTP: `POST /api/login/` and its cookies, the throttle on failures, logout
 * ending the session server side, Django's CSRF check on the session's unsafe requests, a session
 * reaching only its organizations, `/api/users/@me/` and the first start's one-time password link.
 */
import { describe, expect, it } from 'vitest';
import { MembershipLevel } from '../../src/environments/models.js';
import { insertMembership, insertUser } from '../../src/environments/tenancy-store.js';
import { LOGIN_FAILURES_PER_EMAIL } from '../../src/auth/login-service.js';
import { createForeignOrganization, createKey } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { cookieOf, givePassword, login, signIn } from '../helpers/sessions.js';

const server = useTestServer();

let users = 0;
/** A member of the bootstrap organization with a password. */
async function member(password = 'correct horse battery', level: number = MembershipLevel.member) {
  const { database } = server.running.ctx;
  const user = await insertUser(database.db, {
    email: `session-${++users}@example.com`,
    firstName: 'Mem',
    currentOrganizationId: server.bootstrap.organization.id,
    currentTeamId: server.bootstrap.team.id,
  });
  await insertMembership(database.db, server.bootstrap.organization.id, user.id, level);
  await givePassword(database, user.id, password);
  return { user, password };
}

const sessionRows = async (userId: number) =>
  server.running.ctx.database.db.selectFrom('user_sessions').select(['token_hash']).where('user_id', '=', userId).execute();

describe('POST /api/login/', () => {
  it('answers {success: true} and sets the session and CSRF cookies as Django does', async () => {
    const { user, password } = await member();
    const res = await login(server, user.email, password);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('sessionid='))!;
    const csrf = cookies.find((c) => c.startsWith('posthog_csrftoken='))!;
    expect(session).toMatch(/^sessionid=[A-Za-z0-9_-]{43}; Max-Age=1209600; Path=\/; SameSite=Lax; HttpOnly$/);
    expect(csrf).toMatch(/^posthog_csrftoken=[A-Za-z0-9_-]{43}; Max-Age=1209600; Path=\/; SameSite=Lax$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    // Only the token's hash is stored.
    const rows = await sessionRows(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(cookieOf(cookies, 'sessionid'));
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('marks the cookies Secure when the request came over https (through a trusted proxy)', async () => {
    // The test server trusts no proxy: X-Forwarded-Proto is ignored, the cookie is not Secure.
    const { user, password } = await member();
    const res = await server.request('/api/login/', {
      method: 'POST',
      key: null,
      body: { email: user.email, password },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().every((c) => !c.includes('Secure'))).toBe(true);
  });

  it('refuses a wrong password or an unknown e-mail with the same envelope', async () => {
    const { user } = await member();
    for (const body of [
      { email: user.email, password: 'wrong password' },
      { email: 'nobody@example.com', password: 'wrong password' },
    ]) {
      const res = await server.request('/api/login/', { method: 'POST', key: null, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_credentials', detail: 'Invalid email or password.', attr: null });
      expect(res.headers.getSetCookie()).toEqual([]);
    }
  });

  it('refuses a user who never set a password, and reads fields as DRF does', async () => {
    const { database } = server.running.ctx;
    const user = await insertUser(database.db, {
      email: `nopassword-${++users}@example.com`,
      currentOrganizationId: server.bootstrap.organization.id,
      currentTeamId: server.bootstrap.team.id,
    });
    expect((await login(server, user.email, 'anything at all')).body.code).toBe('invalid_credentials');
    const missing = await server.request('/api/login/', { method: 'POST', key: null, body: { email: user.email } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'password' });
    const bad = await server.request('/api/login/', { method: 'POST', key: null, body: { email: 'not an email', password: 'x' } });
    expect(bad.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Enter a valid email address.', attr: 'email' });
  });

  it('throttles an e-mail after repeated failures, even with the right password, with DRF 429', async () => {
    const { user, password } = await member();
    for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL; i++) {
      expect((await login(server, user.email, `wrong-${i}-password`)).status).toBe(400);
    }
    const res = await login(server, user.email.toUpperCase(), password);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({
      type: 'throttled_error',
      code: 'throttled',
      detail: expect.stringMatching(/^Request was throttled\. Expected available in \d+ seconds?\.$/),
      attr: null,
    });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.getSetCookie()).toEqual([]);
    // Another account from the same address still signs in (the address's own limit is higher).
    const other = await member();
    expect((await login(server, other.user.email, other.password)).status).toBe(200);
  });

  it('refuses a login posted from another site (Origin check)', async () => {
    const { user, password } = await member();
    const res = await server.request('/api/login/', {
      method: 'POST',
      key: null,
      body: { email: user.email, password },
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('CSRF Failed: Origin checking failed - https://evil.example does not match any trusted origins.');
    const same = await server.request('/api/login/', {
      method: 'POST',
      key: null,
      body: { email: user.email, password },
      headers: { origin: server.url },
    });
    expect(same.status).toBe(200);
  });
});

describe('a session on /api', () => {
  it('reads with the cookie alone, and is refused without it', async () => {
    const { user, password } = await member();
    const client = await signIn(server, user.email, password);
    const me = await client.request('/api/users/@me/');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(user.email);
    const none = await server.request('/api/users/@me/', { key: null });
    expect(none.status).toBe(401);
    const forged = await server.request('/api/users/@me/', { key: null, headers: { cookie: `sessionid=${'A'.repeat(43)}` } });
    expect(forged.status).toBe(401);
  });

  it('needs X-CSRFToken equal to the posthog_csrftoken cookie on unsafe methods', async () => {
    const { user, password } = await member();
    const client = await signIn(server, user.email, password);
    const patch = (csrf: boolean | string, cookie?: string) =>
      client.request('/api/users/@me/', {
        method: 'PATCH',
        body: { first_name: 'Changed' },
        csrf,
        ...(cookie === undefined ? {} : { headers: { cookie } }),
      });
    const missing = await patch(false);
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: 'CSRF Failed: CSRF token missing.',
      attr: null,
    });
    const incorrect = await patch('x'.repeat(43));
    expect(incorrect.status).toBe(403);
    expect(incorrect.body.detail).toBe('CSRF Failed: CSRF token incorrect.');
    // A cookie and header pair an attacker planted matches no session.
    const planted = await patch('p'.repeat(43), `sessionid=${client.sessionId}; posthog_csrftoken=${'p'.repeat(43)}`);
    expect(planted.status).toBe(403);
    expect(planted.body.detail).toBe('CSRF Failed: CSRF token incorrect.');
    const noCookie = await patch(client.csrfToken, `sessionid=${client.sessionId}`);
    expect(noCookie.body.detail).toBe('CSRF Failed: CSRF cookie not set.');
    expect((await client.request('/api/users/@me/')).body.first_name).toBe('Mem');
    const ok = await patch(true);
    expect(ok.status).toBe(200);
    expect(ok.body.first_name).toBe('Changed');
  });

  it('does not CSRF-check requests made with a personal API key', async () => {
    const res = await server.request('/api/users/@me/', { method: 'PATCH', body: { last_name: 'Keyed' } });
    expect(res.status).toBe(200);
    expect(res.body.last_name).toBe('Keyed');
  });

  it("reaches its organizations' projects only, with every scope", async () => {
    const { user, password } = await member();
    const client = await signIn(server, user.email, password);
    const { team: foreign } = await createForeignOrganization(server.running.ctx.database);
    const own = await client.request(`/api/projects/${server.bootstrap.team.id}/`);
    expect(own.status).toBe(200);
    const other = await client.request(`/api/projects/${foreign.id}/`);
    expect(other.status).toBe(403);
    expect(other.body.detail).toBe("You don't have access to the project.");
    const list = await client.request('/api/projects/');
    expect(list.body.results.map((p: { id: number }) => p.id)).not.toContain(foreign.id);
    // An action personal keys may not call is open to the session (PostHog's session skips scopes).
    const flags = await client.request(`/api/projects/${server.bootstrap.team.id}/feature_flags/`, {
      method: 'POST',
      body: { key: `session-flag-${users}`, filters: { groups: [{ rollout_percentage: 100 }] } },
    });
    expect(flags.status, flags.text).toBe(201);
    const keyed = await server.request(`/api/projects/${foreign.id}/feature_flags/`);
    expect(keyed.status).toBe(403);
  });

  it("manages its user's personal API keys (PostHog lets a session do so)", async () => {
    const { user, password } = await member();
    const client = await signIn(server, user.email, password);
    const made = await client.request('/api/personal_api_keys/', {
      method: 'POST',
      body: { label: 'from the app', scopes: ['project:read'], scoped_teams: [], scoped_organizations: [] },
    });
    expect(made.status, made.text).toBe(201);
    const works = await server.request('/api/projects/', { key: made.body.value });
    expect(works.status).toBe(200);
    expect((await client.request(`/api/personal_api_keys/${made.body.id}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.request('/api/projects/', { key: made.body.value })).status).toBe(401);
    expect((await client.request('/api/personal_api_keys/@current/')).status).toBe(404);
  });
});

describe('POST /api/logout/', () => {
  it('ends the session server side and clears the cookies', async () => {
    const { user, password } = await member();
    const client = await signIn(server, user.email, password);
    expect(await sessionRows(user.id)).toHaveLength(1);
    const refused = await client.request('/api/logout/', { method: 'POST', csrf: false });
    expect(refused.status).toBe(403);
    const res = await client.request('/api/logout/', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('sessionid=;') && c.includes('Max-Age=0'))).toBe(true);
    expect(await sessionRows(user.id)).toHaveLength(0);
    // The old cookie, replayed, names no session.
    expect((await client.request('/api/users/@me/')).status).toBe(401);
  });
});

describe('/api/users/@me/', () => {
  it("has PostHog's user shape with the current organization and environment", async () => {
    const { user, password } = await member();
    const client = await signIn(server, user.email, password);
    const me = (await client.request('/api/users/@me/')).body;
    expect(me).toMatchObject({
      uuid: user.uuid,
      distinct_id: user.distinctId,
      first_name: 'Mem',
      last_name: '',
      email: user.email,
      is_staff: false,
      has_password: true,
      organization: { id: server.bootstrap.organization.id, name: 'Hoglet', membership_level: 1 },
      organizations: [{ id: server.bootstrap.organization.id, membership_level: 1 }],
      team: { id: server.bootstrap.team.id, api_token: server.bootstrap.team.apiToken, project_id: server.bootstrap.team.projectId },
    });
    expect(me).not.toHaveProperty('password');
  });

  it('changes the password with the current one, and ends the other sessions', async () => {
    const { user, password } = await member();
    const first = await signIn(server, user.email, password);
    const second = await signIn(server, user.email, password);
    const required = await first.request('/api/users/@me/', { method: 'PATCH', body: { password: 'a brand new password' } });
    expect(required.status).toBe(400);
    expect(required.body).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required when updating your password.',
      attr: 'current_password',
    });
    const wrong = await first.request('/api/users/@me/', {
      method: 'PATCH',
      body: { password: 'a brand new password', current_password: 'not it at all' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      type: 'validation_error',
      code: 'incorrect_password',
      detail: 'Your current password is incorrect.',
      attr: 'current_password',
    });
    const short = await first.request('/api/users/@me/', { method: 'PATCH', body: { password: 'short', current_password: password } });
    expect(short.status).toBe(400);
    expect(short.body.attr).toBe('password');
    expect(short.body.detail).toBe('This password is too short. It must contain at least 8 characters.');
    const ok = await first.request('/api/users/@me/', {
      method: 'PATCH',
      body: { password: 'a brand new password', current_password: password },
    });
    expect(ok.status, ok.text).toBe(200);
    expect((await first.request('/api/users/@me/')).status).toBe(200);
    expect((await second.request('/api/users/@me/')).status).toBe(401);
    expect((await login(server, user.email, password)).status).toBe(400);
    expect((await login(server, user.email, 'a brand new password')).status).toBe(200);
  });

  it('changes the e-mail, refusing one another account has', async () => {
    const { user, password } = await member();
    const other = await member();
    const client = await signIn(server, user.email, password);
    const taken = await client.request('/api/users/@me/', { method: 'PATCH', body: { email: other.user.email.toUpperCase() } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({
      type: 'validation_error',
      code: 'unique',
      detail: 'There is already an account with this email address.',
      attr: 'email',
    });
    const changed = await client.request('/api/users/@me/', { method: 'PATCH', body: { email: `renamed-${users}@example.com` } });
    expect(changed.status).toBe(200);
    expect((await login(server, `renamed-${users}@example.com`, password)).status).toBe(200);
  });

  it('answers a key limited to user:read 403 on PATCH', async () => {
    const { user } = await member();
    const key = await createKey(server.running.ctx.database, user.id, ['user:read']);
    expect((await server.request('/api/users/@me/', { key })).status).toBe(200);
    const res = await server.request('/api/users/@me/', { key, method: 'PATCH', body: { first_name: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe("API key missing required scope 'user:write'");
  });
});

describe("the first start's password link", () => {
  it("sets the first user's password once, signs in, and is refused afterwards", async () => {
    const { user, setPasswordToken: token } = server.bootstrap;
    const check = await server.request(`/api/reset/${user.uuid}/?token=${token}`, { key: null });
    expect(check.status).toBe(204);
    const short = await server.request(`/api/reset/${user.uuid}/`, { method: 'POST', key: null, body: { token, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.attr).toBe('password');
    const wrongUser = await server.request(`/api/reset/${server.bootstrap.organization.id}/`, {
      method: 'POST',
      key: null,
      body: { token, password: 'the first password' },
    });
    expect(wrongUser.body).toEqual({
      type: 'validation_error',
      code: 'invalid_token',
      detail: 'This reset token is invalid or has expired.',
      attr: 'token',
    });
    const set = await server.request(`/api/reset/${user.uuid}/`, {
      method: 'POST',
      key: null,
      body: { token, password: 'the first password' },
    });
    expect(set.status).toBe(204);
    expect(cookieOf(set.headers.getSetCookie(), 'sessionid')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await server.request(`/api/reset/${user.uuid}/`, {
      method: 'POST',
      key: null,
      body: { token, password: 'another password' },
    });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_token');
    expect((await server.request(`/api/reset/${user.uuid}/?token=${token}`, { key: null })).status).toBe(400);
    expect((await login(server, user.email, 'the first password')).status).toBe(200);
    // The token is stored hashed.
    const stored = await server.running.ctx.database.db.selectFrom('password_tokens').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('answers a reset request 400 when no SMTP server is configured', async () => {
    const res = await server.request('/api/reset/', { method: 'POST', key: null, body: { email: server.bootstrap.user.email } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('email_not_available');
  });
});
