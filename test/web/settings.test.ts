/**
 * Settings in Chromium against a real Hoglet, signed in: the time zone saved and still there after a
 * reload; the project API key reset (the old key refused by /flags and /i/v0/e, the new one taken);
 * a personal API key created with chosen scopes works from Node with `Authorization: Bearer`, within
 * its scopes, rolls, and is refused once revoked; a password change (the wrong current password
 * refused on its field, the right one changing it); an invite's link opened in a fresh browser makes
 * a new account, who then shows in the members list; the project's environments created and renamed.
 * No console errors; a screenshot per section in .tmp/screenshots/.
 */
import { describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, unexpectedErrors, watchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { TEST_PASSWORD, useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);

const settingsUrl = (section: string) => `${server.url}/project/${ui.env}/settings/${section}`;

async function openSection(name: string, section: string) {
  await ui.page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name, exact: true }).click();
  await ui.page.waitForURL(settingsUrl(section));
}

/** A request from Node, as curl would make it, with a personal API key. */
function withKey(path: string, key: string) {
  return fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
}

async function flagsStatus(token: string) {
  const res = await fetch(`${server.url}/flags/?v=2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, distinct_id: 'settings-user' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function captureStatus(token: string) {
  const res = await fetch(`${server.url}/i/v0/e/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, event: 'settings test', distinct_id: 'settings-user', properties: {} }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Picks an option of a Mantine select (typing into it first when it is searchable). */
async function choose(label: string, search: string, option: string) {
  const input = ui.page.getByRole('textbox', { name: label, exact: true });
  await input.click();
  if (search) await input.fill(search);
  await ui.page.getByRole('option', { name: option, exact: true }).click();
}

describe('Settings in Chromium', () => {
  it('opens on the environment section, and the time zone saved is there after a reload', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}`);
    await ui.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Settings' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/settings`);
    await ui.page.getByRole('heading', { name: 'Details' }).waitFor();
    await openSection('Environment', 'environment');
    expect(await ui.page.getByRole('textbox', { name: 'Time zone' }).inputValue()).toBe('UTC');

    await choose('Time zone', 'Berlin', 'Europe/Berlin');
    await ui.page.getByRole('button', { name: 'Save', exact: true }).click();
    await ui.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const stored = await server.request(`/api/environments/${ui.env}/`);
    expect(stored.body.timezone).toBe('Europe/Berlin');

    await ui.page.reload();
    await ui.page.getByRole('heading', { name: 'Details' }).waitFor();
    expect(await ui.page.getByRole('textbox', { name: 'Time zone' }).inputValue()).toBe('Europe/Berlin');

    // A switch saves at once.
    const heatmaps = ui.page.getByRole('switch', { name: 'Heatmaps' });
    expect(await heatmaps.isChecked()).toBe(false);
    await heatmaps.click({ force: true });
    await expect.poll(async () => (await server.request(`/api/environments/${ui.env}/`)).body.heatmaps_opt_in).toBe(true);
    await expect.poll(() => heatmaps.isChecked()).toBe(true);
    await screenshot(ui.page, 'settings-environment');
    expectNoPageErrors(ui.watched);
  });

  it('resets the project API key: the new one shows, and the old one is refused by /flags and /i/v0/e', async () => {
    const oldToken = server.bootstrap.team.apiToken;
    const shown = ui.page.getByTestId('settings-project-api-key');
    expect(await shown.textContent()).toBe(oldToken);
    expect((await flagsStatus(oldToken)).status).toBe(200);

    await ui.page.getByRole('button', { name: 'Reset project API key' }).click();
    const dialog = ui.page.getByRole('dialog', { name: 'Reset the project API key?' });
    await dialog.getByRole('button', { name: 'Reset key' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => shown.textContent()).not.toBe(oldToken);
    const newToken = (await shown.textContent())!;
    expect(newToken).toMatch(/^phc_/);
    expect((await server.request(`/api/environments/${ui.env}/`)).body.api_token).toBe(newToken);

    const refusedFlags = await flagsStatus(oldToken);
    expect(refusedFlags.status).toBe(401);
    expect(refusedFlags.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const refusedCapture = await captureStatus(oldToken);
    expect(refusedCapture.status).toBe(401);
    expect(refusedCapture.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect((await flagsStatus(newToken)).status).toBe(200);
    expect((await captureStatus(newToken)).status).toBe(200);

    await ui.page.getByRole('button', { name: 'Create secret key' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Create secret key' }).click();
    await expect.poll(() => ui.page.getByTestId('settings-secret-api-key').textContent()).toMatch(/^phs_/);
    await ui.page.getByRole('dialog').waitFor({ state: 'detached' });
    await screenshot(ui.page, 'settings-environment-keys');
    expectNoPageErrors(ui.watched);
  });

  it('creates a personal API key that works with Bearer within its scopes, rolls it, and revoking it ends it', async () => {
    await openSection('Personal API keys', 'user-api-keys');
    // The bootstrap user's key, listed masked.
    const keyRows = ui.page.getByTestId('personal-api-key-row');
    await keyRows.first().waitFor();
    expect(await keyRows.count()).toBe(1);
    expect(await keyRows.first().textContent()).not.toContain(server.key);
    await ui.page.getByRole('button', { name: 'Create personal API key' }).click();
    const form = ui.page.getByRole('dialog', { name: 'New personal API key' });
    await form.getByRole('textbox', { name: 'Label' }).fill('deploy script');
    await form.getByRole('radio', { name: 'Chosen scopes' }).check();
    await form.getByRole('radiogroup', { name: 'Access to project' }).getByText('Read').click();
    await form.getByRole('radiogroup', { name: 'Access to feature flag' }).getByText('Write').click();
    await screenshot(ui.page, 'settings-personal-api-key-create');
    await form.getByRole('button', { name: 'Create key' }).click();

    const shown = ui.page.getByTestId('new-personal-api-key');
    await shown.waitFor();
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^phx_/);
    await screenshot(ui.page, 'settings-personal-api-key-shown');
    await ui.page.getByRole('button', { name: 'Done' }).click();

    const row = ui.page.getByTestId('personal-api-key-row').filter({ hasText: 'deploy script' });
    await row.waitFor();
    expect(await row.textContent()).not.toContain(key);
    expect(await row.textContent()).toContain('project:read, feature_flag:write');
    expect(await row.getByTestId('personal-api-key-last-used').textContent()).toBe('Never');

    expect((await withKey('/api/projects/', key)).status).toBe(200);
    expect((await withKey(`/api/projects/${server.bootstrap.team.projectId}/feature_flags/`, key)).status).toBe(200);
    // Outside its scopes.
    const outside = await withKey('/api/organizations/@current/members/', key);
    expect(outside.status).toBe(403);

    await ui.page.reload();
    await expect.poll(() => row.getByTestId('personal-api-key-last-used').textContent()).not.toBe('Never');

    await row.getByRole('button', { name: 'Roll deploy script' }).click();
    await ui.page.getByRole('dialog', { name: 'Roll “deploy script”?' }).getByRole('button', { name: 'Roll' }).click();
    await expect.poll(() => shown.textContent()).toMatch(/^phx_/);
    const rolled = (await shown.textContent())!;
    expect(rolled).not.toBe(key);
    await ui.page.getByRole('button', { name: 'Done' }).click();
    expect((await withKey('/api/projects/', key)).status).toBe(401);
    expect((await withKey('/api/projects/', rolled)).status).toBe(200);

    await row.getByRole('button', { name: 'Revoke deploy script' }).click();
    await ui.page.getByRole('dialog', { name: 'Revoke “deploy script”?' }).getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await keyRows.count()).toBe(1);
    const revoked = await withKey('/api/projects/', rolled);
    expect(revoked.status).toBe(401);
    await screenshot(ui.page, 'settings-personal-api-keys');
    expectNoPageErrors(ui.watched);
  });

  it('changes the password: a wrong current one is refused on its field, the right one works and signs in', async () => {
    await openSection('Your account', 'user');
    await ui.page.getByRole('heading', { name: 'Change password' }).waitFor();
    await ui.page.getByRole('textbox', { name: 'Last name' }).fill('Lovelace');
    await ui.page.getByRole('button', { name: 'Save profile' }).click();
    await ui.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    expect((await server.request('/api/users/@me/')).body.last_name).toBe('Lovelace');

    const current = ui.page.getByLabel('Current password');
    const next = ui.page.getByLabel('New password');
    await current.fill('not my password at all');
    await next.fill('a brand new password 7');
    await ui.page.getByRole('button', { name: 'Change password' }).click();
    // The API's detail, under the field it names (attr current_password).
    await ui.page
      .locator('.mantine-PasswordInput-root')
      .filter({ has: current })
      .getByText('Your current password is incorrect.')
      .waitFor();
    await screenshot(ui.page, 'settings-user-wrong-password');
    expectNoPageErrors(ui.watched, [400]);

    await current.fill(TEST_PASSWORD);
    await next.fill('a brand new password 7');
    await ui.page.getByRole('button', { name: 'Change password' }).click();
    await ui.page.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    expect(await current.inputValue()).toBe('');

    const login = (password: string) =>
      fetch(`${server.url}/api/login/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify({ email: server.bootstrap.user.email, password }),
      });
    expect((await login('a brand new password 7')).status).toBe(200);
    expect((await login(TEST_PASSWORD)).status).toBe(400);
    // This tab's session goes on.
    await ui.page.reload();
    await ui.page.getByRole('heading', { name: 'Profile' }).waitFor();
    await screenshot(ui.page, 'settings-user');
    expectNoPageErrors(ui.watched);
  });

  it("an invite's link makes a new account in a fresh browser, who then shows among the members", async () => {
    await openSection('Members and invites', 'organization-members');
    await ui.page.getByTestId('invites-empty').waitFor();
    await ui.page.getByRole('textbox', { name: 'Email' }).fill('newcomer@example.com');
    await ui.page.getByRole('button', { name: 'Invite' }).click();
    const link = (await ui.page.getByTestId('invite-link').textContent())!;
    expect(link).toMatch(new RegExp(`^${server.url}/signup/[0-9a-f-]{36}$`));
    await ui.page.getByTestId('invite-row').filter({ hasText: 'newcomer@example.com' }).waitFor();
    await screenshot(ui.page, 'settings-members-invited');

    const fresh = await ui.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const visitor = await watchedPage(fresh);
      await visitor.page.goto(link);
      await visitor.page.getByRole('heading', { name: 'You are invited to Hoglet' }).waitFor();
      await visitor.page.getByText(`Join ${server.bootstrap.organization.name} as newcomer@example.com.`).waitFor();
      await visitor.page.getByRole('textbox', { name: 'Your name' }).fill('Nia');
      await visitor.page.getByLabel('Choose a password').fill('newcomer password 99');
      await screenshot(visitor.page, 'signup');
      await visitor.page.getByRole('button', { name: 'Join' }).click();
      // The home page: Get started before any event, then the primary dashboard (or Activity).
      await visitor.page.waitForURL(/\/project\/\d+(\/(get-started|activity))?$/);
      await visitor.page.getByTestId('user-email').filter({ hasText: 'newcomer@example.com' }).waitFor();
      // The page asks who is signed in first: nobody yet (401).
      expect(unexpectedErrors(visitor, [401])).toEqual([]);
    } finally {
      await fresh.close();
    }

    await ui.page.reload();
    const rows = ui.page.getByTestId('member-row');
    await rows.filter({ hasText: 'newcomer@example.com' }).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: server.bootstrap.user.email }).count()).toBe(1);
    await ui.page.getByTestId('invites-empty').waitFor();
    await screenshot(ui.page, 'settings-members');

    // The owner makes the newcomer an admin, then removes them.
    await choose('Level of newcomer@example.com', '', 'Admin');
    const members = async () => (await server.request('/api/organizations/@current/members/')).body.results as Array<Record<string, any>>;
    await expect.poll(async () => (await members()).find((m) => m.user.email === 'newcomer@example.com')?.level).toBe(8);
    await ui.page.getByRole('button', { name: 'Remove newcomer@example.com' }).click();
    await ui.page.getByRole('dialog', { name: 'Remove this member?' }).getByRole('button', { name: 'Remove' }).click();
    await rows.filter({ hasText: 'newcomer@example.com' }).waitFor({ state: 'detached' });
    expect((await members()).map((m) => m.user.email)).toEqual([server.bootstrap.user.email]);
    expectNoPageErrors(ui.watched);
  });

  it('invites several addresses at once; a wrong one is marked on its row and none is sent', async () => {
    await openSection('Members and invites', 'organization-members');
    await ui.page.getByTestId('invites-empty').waitFor();
    await ui.page.getByRole('button', { name: 'Add another address' }).click();
    const formRows = ui.page.getByTestId('invite-form-row');
    await formRows.nth(1).waitFor();
    await formRows.nth(0).getByRole('textbox', { name: 'Email' }).fill('ada@example.com');
    await formRows.nth(1).getByRole('textbox', { name: 'Email' }).fill('not an address');
    await ui.page.getByRole('button', { name: 'Invite 2 people' }).click();
    await formRows.nth(1).getByText('Enter a valid email address.').waitFor();
    const invites = async () => (await server.request('/api/organizations/@current/invites/')).body.results as Array<Record<string, any>>;
    expect(await invites()).toEqual([]);

    await formRows.nth(1).getByRole('textbox', { name: 'Email' }).fill('bo@example.com');
    await ui.page.getByRole('button', { name: 'Invite 2 people' }).click();
    await ui.page.getByTestId('invite-created').getByText('2 invites').waitFor();
    expect(await ui.page.getByTestId('invite-link').count()).toBe(2);
    const rows = ui.page.getByTestId('invite-row');
    await rows.filter({ hasText: 'ada@example.com' }).waitFor();
    await rows.filter({ hasText: 'bo@example.com' }).waitFor();
    const sent = await invites();
    expect(sent.map((i) => i.target_email).sort()).toEqual(['ada@example.com', 'bo@example.com']);
    const links = await ui.page.getByTestId('invite-link').allTextContents();
    expect(links.sort()).toEqual(sent.map((i) => `${server.url}/signup/${i.id}`).sort());
    await screenshot(ui.page, 'settings-members-bulk-invited');

    for (const email of ['ada@example.com', 'bo@example.com']) {
      await ui.page.getByRole('button', { name: `Cancel the invite for ${email}` }).click();
      await ui.page.getByRole('dialog', { name: 'Cancel this invite?' }).getByRole('button', { name: 'Cancel invite' }).click();
      await rows.filter({ hasText: email }).waitFor({ state: 'detached' });
    }
    expect(await invites()).toEqual([]);
    // The refused list: its 400 is the one error the page logs.
    expectNoPageErrors(ui.watched, [400]);
  });

  it("creates and renames the project's environments", async () => {
    await openSection('Project and environments', 'project');
    const rows = ui.page.getByTestId('environment-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(1);
    await ui.page.getByRole('textbox', { name: 'Name of the new environment' }).fill('Staging');
    await ui.page.getByRole('button', { name: 'Create environment' }).click();
    await rows.filter({ hasText: 'Staging' }).waitFor();
    expect(await rows.count()).toBe(2);

    await ui.page.getByRole('button', { name: 'Rename Staging' }).click();
    await ui.page.getByRole('textbox', { name: 'New name for Staging' }).fill('Staging EU');
    await ui.page.getByRole('button', { name: 'Save', exact: true }).click();
    await rows.filter({ hasText: 'Staging EU' }).waitFor();
    const listed = await server.request(`/api/projects/${server.bootstrap.team.projectId}/environments/`);
    expect(listed.body.results.map((e: { name: string }) => e.name).sort()).toEqual(['Staging EU', server.bootstrap.team.name].sort());
    // Seen from Staging EU, whose short name makes a narrow column, its badge still reads whole.
    const staging = listed.body.results.find((e: { name: string }) => e.name === 'Staging EU').id as number;
    await ui.page.goto(`${server.url}/project/${staging}/settings/project`);
    const badgeLabel = rows.filter({ hasText: 'Staging EU' }).locator('.mantine-Badge-label');
    await badgeLabel.waitFor();
    // Its column made as narrow as can be (the names' widths vary with the keys beside them): the
    // badge keeps its label whole.
    const narrowed = await badgeLabel.evaluate((label) => {
      const holder = label.closest('.mantine-Badge-root')!.parentElement!;
      holder.style.display = 'flex';
      holder.style.width = '8px';
      return label.scrollWidth <= label.clientWidth;
    });
    expect(narrowed).toBe(true);
    await ui.page.goto(`${server.url}/project/${ui.env}/settings/project`);
    await rows.filter({ hasText: 'Staging EU' }).waitFor();
    // At 1280 px the table, keys and all, fits without scrolling sideways to its buttons.
    const table = ui.page.getByTestId('environments-table');
    expect(await table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
    // The switcher knows it too.
    await ui.page.getByRole('textbox', { name: 'Environment', exact: true }).click();
    await ui.page.getByRole('option', { name: 'Staging EU' }).waitFor();
    await ui.page.keyboard.press('Escape');
    await screenshot(ui.page, 'settings-project');

    // The environment in view has no Delete; another one does, behind a confirmation.
    expect(
      await rows
        .filter({ hasText: server.bootstrap.team.name })
        .getByRole('button', { name: /^Delete/ })
        .count(),
    ).toBe(0);
    await ui.page.getByRole('button', { name: 'Delete Staging EU' }).click();
    await ui.page.getByRole('dialog', { name: 'Delete “Staging EU”?' }).getByRole('button', { name: 'Delete environment' }).click();
    await rows.filter({ hasText: 'Staging EU' }).waitFor({ state: 'detached' });
    expect((await server.request(`/api/projects/${server.bootstrap.team.projectId}/environments/`)).body.count).toBe(1);
    expectNoPageErrors(ui.watched);
  });

  it("an unknown section is not found; PostHog's other names of sections open them", async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/settings/nonsense`);
    await ui.page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await ui.page.goto(`${server.url}/settings/environments`);
    await ui.page.waitForURL(settingsUrl('environments'));
    await ui.page.getByTestId('environment-row').first().waitFor();
    expectNoPageErrors(ui.watched);
  });
});
