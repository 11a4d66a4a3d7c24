/**
 * Organization members and invites over real HTTP: PostHog's levels and who may change whom, the
 * last owner kept, invites e-mailed through a real SMTP server, accepted by link (new account and
 * session, or a signed-in user), and a password reset e-mail used once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MembershipLevel } from '../../src/environments/models.js';
import { insertMembership, insertUser } from '../../src/environments/tenancy-store.js';
import { createForeignOrganization, createKey } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { cookieOf, givePassword, login, signIn, type SessionClient } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait.js';
import { startSmtp } from '../subscriptions/receivers.js';

let smtp: Awaited<ReturnType<typeof startSmtp>>;
let server: TestServer;
beforeAll(async () => {
  smtp = await startSmtp();
  server = await startTestServer({ SMTP_URL: smtp.url, EMAIL_FROM: 'accounts@hoglet.test' });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const PASSWORD = 'members password 1';
let users = 0;
async function member(level: number): Promise<{ id: number; uuid: string; email: string; client: SessionClient }> {
  const { database } = server.running.ctx;
  const user = await insertUser(database.db, {
    email: `member-${++users}@example.com`,
    currentOrganizationId: server.bootstrap.organization.id,
    currentTeamId: server.bootstrap.team.id,
  });
  await insertMembership(database.db, server.bootstrap.organization.id, user.id, level);
  await givePassword(database, user.id, PASSWORD);
  return { id: user.id, uuid: user.uuid, email: user.email, client: await signIn(server, user.email, PASSWORD) };
}

const members = (orgId = '@current') => `/api/organizations/${orgId}/members/`;
const invites = (orgId = '@current') => `/api/organizations/${orgId}/invites/`;

describe('/api/organizations/:id/members/', () => {
  it("lists members with PostHog's shape, newest first, for any member and a key with organization_member:read", async () => {
    const m = await member(MembershipLevel.member);
    const res = await m.client.request(members());
    expect(res.status).toBe(200);
    expect(res.body.count).toBeGreaterThanOrEqual(2);
    expect(res.body.results[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user: expect.objectContaining({ uuid: m.uuid, email: m.email, first_name: '' }),
      level: 1,
      joined_at: expect.any(String),
      updated_at: expect.any(String),
      is_2fa_enabled: false,
      has_social_auth: false,
      last_login: expect.any(String),
    });
    const byId = await m.client.request(members(server.bootstrap.organization.id));
    expect(byId.body.count).toBe(res.body.count);
    const keyed = await server.request(members(server.bootstrap.organization.id), {
      key: await createKey(server.running.ctx.database, m.id, ['organization_member:read']),
    });
    expect(keyed.status).toBe(200);
    const noScope = await server.request(members(server.bootstrap.organization.id), {
      key: await createKey(server.running.ctx.database, m.id, ['project:read']),
    });
    expect(noScope.status).toBe(403);
    expect(noScope.body.detail).toBe("API key missing required scope 'organization_member:read'");
  });

  it("refuses another organization's members", async () => {
    const m = await member(MembershipLevel.admin);
    const { organization } = await createForeignOrganization(server.running.ctx.database);
    const res = await m.client.request(members(organization.id));
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe("You don't belong to the organization.");
    expect((await m.client.request(members('not-a-uuid'))).status).toBe(404);
  });

  it('lets admins change levels up to their own; members change no one', async () => {
    const admin = await member(MembershipLevel.admin);
    const plain = await member(MembershipLevel.member);
    const other = await member(MembershipLevel.member);
    const byMember = await plain.client.request(`${members()}${other.uuid}/`, { method: 'PATCH', body: { level: 8 } });
    expect(byMember.status).toBe(403);
    expect(byMember.body.detail).toBe('Your cannot edit other organization members.');
    const toOwner = await admin.client.request(`${members()}${other.uuid}/`, { method: 'PATCH', body: { level: 15 } });
    expect(toOwner.status).toBe(403);
    expect(toOwner.body.detail).toBe("You can only make another member owner if you're this organization's owner.");
    const own = await admin.client.request(`${members()}@me/`, { method: 'PATCH', body: { level: 1 } });
    expect(own.body.detail).toBe("You can't change your own access level.");
    const bad = await admin.client.request(`${members()}${other.uuid}/`, { method: 'PATCH', body: { level: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"5" is not a valid choice.', attr: 'level' });
    const ok = await admin.client.request(`${members()}${other.uuid}/`, { method: 'PATCH', body: { level: 8 } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.level).toBe(8);
    expect((await other.client.request('/api/users/@me/')).body.organization.membership_level).toBe(8);
  });

  it('removes members by the same rules, lets a member leave, and never removes an owner', async () => {
    const admin = await member(MembershipLevel.admin);
    const plain = await member(MembershipLevel.member);
    const leaver = await member(MembershipLevel.member);
    const ownerUuid = server.bootstrap.user.uuid;
    expect((await plain.client.request(`${members()}${admin.uuid}/`, { method: 'DELETE' })).status).toBe(403);
    const owner = await admin.client.request(`${members()}${ownerUuid}/`, { method: 'DELETE' });
    expect(owner.status).toBe(403);
    // The bootstrap owner, through its key, cannot leave either: an organization keeps its owner.
    const self = await server.request(`${members()}${ownerUuid}/`, { method: 'DELETE' });
    expect(self.status).toBe(400);
    expect(self.body.detail).toBe('Cannot leave the organization as its owner!');
    expect((await leaver.client.request(`${members()}@me/`, { method: 'DELETE' })).status).toBe(204);
    expect((await leaver.client.request(`/api/projects/${server.bootstrap.team.id}/`)).status).toBe(403);
    expect((await leaver.client.request('/api/users/@me/')).body.organization).toBeNull();
    expect((await admin.client.request(`${members()}${plain.uuid}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin.client.request(`${members()}${plain.uuid}/`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('/api/organizations/:id/invites/ and /api/signup/:id/', () => {
  it('creates an invite (e-mailed), lists it, and a new user signs up through its link', async () => {
    const admin = await member(MembershipLevel.admin);
    const email = `invited-${users}@example.com`;
    const made = await admin.client.request(invites(), {
      method: 'POST',
      body: { target_email: email, first_name: 'Ivy', level: 8, message: '<b>hi</b>' },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      target_email: email,
      first_name: 'Ivy',
      level: 8,
      emailing_attempt_made: true,
      is_expired: false,
      message: '<b>hi</b>',
      created_by: { uuid: admin.uuid },
    });
    const id = made.body.id as string;
    const mail = await waitFor(() => smtp.messages.find((m) => m.to.includes(email)), { what: 'the invite e-mail' });
    expect(mail!.decoded).toContain(`${server.url}/signup/${id}`);
    expect(mail!.decoded).toContain('&#60;b&#62;hi&#60;/b&#62;');
    const list = await admin.client.request(invites());
    expect(list.body.results.map((i: { id: string }) => i.id)).toContain(id);

    const check = await server.request(`/api/signup/${id}/`, { key: null });
    expect(check.body).toEqual({ id, target_email: email, first_name: 'Ivy', organization_name: 'Hoglet' });
    const missing = await server.request(`/api/signup/${id}/`, { method: 'POST', key: null, body: { first_name: 'Ivy' } });
    expect(missing.status).toBe(400);
    expect(missing.body.attr).toBe('password');
    const joined = await server.request(`/api/signup/${id}/`, {
      method: 'POST',
      key: null,
      body: { first_name: 'Ivy', password: 'ivy password 1' },
    });
    expect(joined.status, joined.text).toBe(201);
    expect(joined.body.email).toBe(email);
    // The user as UserBasicSerializer prints it (serializeUserBasic), then redirect_url.
    expect(Object.keys(joined.body)).toEqual([
      'id',
      'uuid',
      'distinct_id',
      'first_name',
      'last_name',
      'email',
      'is_email_verified',
      'hedgehog_config',
      'role_at_organization',
      'redirect_url',
    ]);
    expect(joined.body).toMatchObject({ first_name: 'Ivy', hedgehog_config: null, redirect_url: '/' });
    const sessionId = cookieOf(joined.headers.getSetCookie(), 'sessionid');
    const me = await server.request('/api/users/@me/', { key: null, headers: { cookie: `sessionid=${sessionId}` } });
    expect(me.body.organization.membership_level).toBe(8);
    // The invite is used up.
    expect((await server.request(`/api/signup/${id}/`, { key: null })).status).toBe(400);
    expect((await login(server, email, 'ivy password 1')).status).toBe(200);
  });

  it('adds a signed-in user whose e-mail the invite names', async () => {
    const admin = await member(MembershipLevel.admin);
    const { organization } = await createForeignOrganization(server.running.ctx.database);
    const { database } = server.running.ctx;
    await insertMembership(database.db, organization.id, admin.id, MembershipLevel.owner);
    const invitee = await member(MembershipLevel.member);
    const made = await admin.client.request(invites(organization.id), { method: 'POST', body: { target_email: invitee.email } });
    expect(made.status).toBe(201);
    const wrongPerson = await admin.client.request(`/api/signup/${made.body.id}/`, { method: 'POST', body: {} });
    expect(wrongPerson.body.code).toBe('invalid_recipient');
    const joined = await invitee.client.request(`/api/signup/${made.body.id}/`, { method: 'POST', body: {} });
    expect(joined.status, joined.text).toBe(201);
    const me = await invitee.client.request('/api/users/@me/');
    expect(me.body.organizations.map((o: { id: string }) => o.id)).toContain(organization.id);
  });

  it("refuses invites above the inviter's level, to existing members, and by non-members; deletes", async () => {
    const plain = await member(MembershipLevel.member);
    const admin = await member(MembershipLevel.admin);
    const higher = await plain.client.request(invites(), { method: 'POST', body: { target_email: 'x@example.com', level: 8 } });
    expect(higher.status).toBe(403);
    expect(higher.body.detail).toBe('You cannot invite a user with a higher permission level than your own.');
    const existing = await admin.client.request(invites(), { method: 'POST', body: { target_email: plain.email } });
    expect(existing.status).toBe(400);
    expect(existing.body.detail).toBe('A user with this email address already belongs to the organization.');
    const badEmail = await admin.client.request(invites(), { method: 'POST', body: { target_email: 'nope' } });
    expect(badEmail.body).toMatchObject({ code: 'invalid_input', attr: 'target_email' });
    const { organization } = await createForeignOrganization(server.running.ctx.database);
    expect((await admin.client.request(invites(organization.id), { method: 'POST', body: { target_email: 'y@example.com' } })).status).toBe(
      403,
    );
    const made = await admin.client.request(invites(), { method: 'POST', body: { target_email: `gone-${users}@example.com` } });
    expect((await admin.client.request(`${invites()}${made.body.id}/`, { method: 'DELETE' })).status).toBe(204);
    expect((await server.request(`/api/signup/${made.body.id}/`, { key: null })).body.detail).toBe('The provided invite ID is not valid.');
    expect((await admin.client.request(`${invites()}${made.body.id}/`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('POST /api/organizations/:id/invites/bulk/', () => {
  it('creates every invite of the list at once, e-mails those that ask, and saves none when one is wrong', async () => {
    const admin = await member(MembershipLevel.admin);
    const tag = `bulk-${users}`;
    const emails = [0, 1, 2].map((i) => `${tag}-${i}@Example.COM`);
    const made = await admin.client.request(`${invites()}bulk/`, {
      method: 'POST',
      body: [
        { target_email: emails[0], first_name: 'Ada' },
        { target_email: emails[1], level: 8 },
        { target_email: emails[2], send_email: false },
      ],
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.map((i: { target_email: string }) => i.target_email)).toEqual(
      emails.map((e) => e.replace('Example.COM', 'example.com')),
    );
    expect(made.body.map((i: { level: number }) => i.level)).toEqual([1, 8, 1]);
    expect(made.body.map((i: { emailing_attempt_made: boolean }) => i.emailing_attempt_made)).toEqual([true, true, false]);
    expect(made.body[0]).toMatchObject({ first_name: 'Ada', created_by: { uuid: admin.uuid }, is_expired: false });
    for (const email of emails.slice(0, 2)) {
      const lower = email.replace('Example.COM', 'example.com');
      await waitFor(() => smtp.messages.find((m) => m.to.includes(lower)), { what: `the invite e-mail to ${lower}` });
    }
    const listed = (await admin.client.request(`${invites()}?limit=100`)).body.results.map((i: { id: string }) => i.id);
    for (const invite of made.body) expect(listed).toContain(invite.id);

    // One bad item: the error names it, and nothing of the list is saved.
    const before = (await admin.client.request(`${invites()}?limit=100`)).body.count;
    const bad = await admin.client.request(`${invites()}bulk/`, {
      method: 'POST',
      body: [{ target_email: `${tag}-ok@example.com` }, { target_email: 'not an address' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: '1__target_email' });
    const member2 = await admin.client.request(`${invites()}bulk/`, { method: 'POST', body: [{ target_email: admin.email }] });
    expect(member2.body).toMatchObject({ detail: 'A user with this email address already belongs to the organization.', attr: '0' });
    expect((await admin.client.request(`${invites()}?limit=100`)).body.count).toBe(before);

    const notList = await admin.client.request(`${invites()}bulk/`, { method: 'POST', body: { target_email: `${tag}-x@example.com` } });
    expect(notList.status).toBe(400);
    expect(notList.body).toMatchObject({ detail: 'This endpoint needs an array of data for bulk invite creation.' });
    const tooMany = await admin.client.request(`${invites()}bulk/`, {
      method: 'POST',
      body: Array.from({ length: 21 }, (_, i) => ({ target_email: `${tag}-many-${i}@example.com` })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ code: 'max_length', detail: 'A maximum of 20 invites can be sent in a single request.' });

    const plain = await member(MembershipLevel.member);
    const above = await plain.client.request(`${invites()}bulk/`, {
      method: 'POST',
      body: [{ target_email: `${tag}-y@example.com`, level: 8 }],
    });
    expect(above.status).toBe(403);
    const readOnlyKey = await createKey(server.running.ctx.database, admin.id, ['organization_member:read']);
    const byKey = await server.request(`${invites()}bulk/`, {
      method: 'POST',
      key: readOnlyKey,
      body: [{ target_email: `${tag}-z@example.com` }],
    });
    expect(byKey.status).toBe(403);
  });
});

describe('POST /api/reset/', () => {
  it('e-mails a link that sets the password once and ends the other sessions', async () => {
    const m = await member(MembershipLevel.member);
    const res = await server.request('/api/reset/', { method: 'POST', key: null, body: { email: m.email } });
    expect(res.status).toBe(204);
    // An unknown address is answered the same.
    expect((await server.request('/api/reset/', { method: 'POST', key: null, body: { email: 'ghost@example.com' } })).status).toBe(204);
    const mail = await waitFor(() => smtp.messages.find((x) => x.to.includes(m.email) && x.subject.includes('Reset')), {
      what: 'the reset e-mail',
    });
    const match = new RegExp(`/reset/${m.uuid}/([A-Za-z0-9_-]{43})`).exec(mail!.decoded)!;
    const token = match[1]!;
    const set = await server.request(`/api/reset/${m.uuid}/`, { method: 'POST', key: null, body: { token, password: 'reset password 1' } });
    expect(set.status).toBe(204);
    expect((await m.client.request('/api/users/@me/')).status).toBe(401);
    expect((await login(server, m.email, 'reset password 1')).status).toBe(200);
    const again = await server.request(`/api/reset/${m.uuid}/`, {
      method: 'POST',
      key: null,
      body: { token, password: 'reset password 2' },
    });
    expect(again.body.code).toBe('invalid_token');
  });
});
