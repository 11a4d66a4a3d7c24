/**
 * Signing in and out of the web app in Chromium: the first user sets a password from the link the
 * first start prints (and is signed in by it), signs out, is refused with a wrong password, signs in
 * again and lands where they were going; the app's unsafe requests carry the CSRF token (a request
 * with the cookie alone is refused); an invite's link makes an account; an address that keeps
 * failing is throttled. Screenshots in
 * .tmp/screenshots/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, launchBrowser, screenshot, unexpectedErrors, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { LOGIN_FAILURES_PER_EMAIL } from '../../src/auth/login-service.js';

const server = useTestServer();
const PASSWORD = 'my first good password';

let browser: Browser;
let context: BrowserContext;
let watched: WatchedPage;
let page: Page;
let env: number;

beforeAll(async () => {
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  watched = await watchedPage(context);
  page = watched.page;
  env = server.bootstrap.team.id;
});

afterAll(async () => {
  await browser?.close();
});

async function cookieHeader(): Promise<{ header: string; csrf: string | undefined }> {
  const cookies = await context.cookies(server.url);
  return {
    header: cookies.map((c) => `${c.name}=${c.value}`).join('; '),
    csrf: cookies.find((c) => c.name === 'posthog_csrftoken')?.value,
  };
}

describe('signing in to the web app', () => {
  it('a visitor is sent to the sign-in page, keeping the address', async () => {
    await page.goto(`${server.url}/project/${env}/activity?event=x`);
    await page.waitForURL(`${server.url}/login?next=${encodeURIComponent(`/project/${env}/activity?event=x`)}`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'login');
    const res = await fetch(`${server.url}/login`);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    // The signed-out visit's refused /api/users/@me/.
    expectNoPageErrors(watched, [401, 403]);
  });

  it("a signed-out visit to web analytics or a dashboard sends none of the page's queries", async () => {
    const asked: string[] = [];
    const record = (request: { url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (path.includes('/query/') || path.includes('/dashboards/')) asked.push(path);
    };
    page.on('request', record);
    try {
      for (const target of [`/project/${env}/web?from=-30d`, `/project/${env}/dashboard/1`]) {
        await page.goto(`${server.url}${target}`);
        await page.waitForURL(`${server.url}/login?next=${encodeURIComponent(target)}`);
        await page.getByRole('button', { name: 'Sign in' }).waitFor();
      }
    } finally {
      page.off('request', record);
    }
    expect(asked).toEqual([]);
    expectNoPageErrors(watched, [401, 403]);
  });

  it('the first user sets a password from the printed link and is signed in', async () => {
    const { user, setPasswordToken } = server.bootstrap;
    await page.goto(`${server.url}/reset/${user.uuid}/${setPasswordToken}`);
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat it').fill('something else');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('Repeat it').fill(PASSWORD);
    await screenshot(page, 'set-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${server.url}/project/${env}/get-started`);
    await page.getByTestId('user-email').filter({ hasText: user.email }).waitFor();
    expectNoPageErrors(watched);
  });

  it('a used link says so as it opens, without asking for a password', async () => {
    const { user, setPasswordToken } = server.bootstrap;
    await page.goto(`${server.url}/reset/${user.uuid}/${setPasswordToken}`);
    await page.getByRole('alert').filter({ hasText: 'It has been used already or has expired.' }).waitFor();
    expect(await page.getByLabel('New password').count()).toBe(0);
    await page.getByRole('link', { name: 'Sign in' }).click();
    // Still signed in from the step before: signing in goes on to the app.
    await page.waitForURL(`${server.url}/project/${env}/**`);
    expectNoPageErrors(watched, [400]);
  });

  it("the app's unsafe requests carry the CSRF token; the cookie alone is refused", async () => {
    const { header, csrf } = await cookieHeader();
    expect(csrf).toBeTruthy();
    const body = { query: { kind: 'EventsQuery', select: ['event'], limit: 1 } };
    const withToken = await server.request(`/api/environments/${env}/query/`, {
      method: 'POST',
      key: null,
      body,
      headers: { cookie: header, 'x-csrftoken': csrf!, origin: server.url },
    });
    expect(withToken.status, withToken.text).toBe(200);
    const without = await server.request(`/api/environments/${env}/query/`, {
      method: 'POST',
      key: null,
      body,
      headers: { cookie: header, origin: server.url },
    });
    expect(without.status).toBe(403);
    // The Get started page's own POST …/query/ went through (its check is showing).
    await page.getByTestId('first-event-check').waitFor();
    expectNoPageErrors(watched);
  });

  it('signs out; a wrong password is refused; signing in returns to the page asked for', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/login`);
    const { header } = await cookieHeader();
    const me = await server.request('/api/users/@me/', { key: null, headers: { cookie: header } });
    expect([401, 403]).toContain(me.status);

    await page.goto(`${server.url}/feature_flags`);
    await page.waitForURL(`${server.url}/login?next=%2Ffeature_flags`);
    await page.getByLabel('Email').fill(server.bootstrap.user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await screenshot(page, 'login-refused');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/project/${env}/feature_flags`);
    // Signed in, the sign-in page sends on to the page asked for instead of asking again.
    await page.goto(`${server.url}/login?next=%2Fpersons`);
    await page.waitForURL(`${server.url}/project/${env}/persons`);
    // The refused sign-in and the signed-out visit are the only failed requests.
    expectNoPageErrors(watched, [400, 401, 403]);
  });

  it("keeps a shared unsaved insight's query, carried in the address's hash, through signing in", async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${server.url}/login`);
    const source = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed_up', name: 'signed_up', math: 'total' }] };
    const target = `/project/${env}/insights/new#q=${encodeURIComponent(JSON.stringify(source))}`;
    await page.goto(`${server.url}${target}`);
    await page.waitForURL(`${server.url}/login?next=${encodeURIComponent(target)}`);
    await page.getByLabel('Email').fill(server.bootstrap.user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}${target}`);
    await expect.poll(() => page.getByRole('textbox', { name: 'Series 1 event' }).inputValue()).toBe('signed_up');
    expectNoPageErrors(watched, [401, 403]);
  });

  it('signing out lands on the sign-in page even when a request is refused on the way there', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const login = await other.request.post(`${server.url}/api/login/`, {
        data: { email: server.bootstrap.user.email, password: PASSWORD },
        headers: { origin: server.url },
      });
      expect(login.status(), await login.text()).toBe(200);
      const visitor = await watchedPage(other);
      await visitor.page.goto(`${server.url}/project/${env}/get-started`);
      await visitor.page.getByRole('button', { name: 'Sign out' }).waitFor();
      // The sign-in page's code is held until one of the page's own requests comes back refused
      // (Get started asks for a first event every 2 s), so the refusal arrives while the
      // navigation to the sign-in page is still under way, as on a slow machine.
      const refused = visitor.page.waitForResponse(
        (response) => new URL(response.url()).pathname.startsWith('/api/') && [401, 403].includes(response.status()),
      );
      await visitor.page.route('**/LoginPage-*.js', async (route) => {
        await refused;
        await route.continue();
      });
      await visitor.page.getByRole('button', { name: 'Sign out' }).click();
      await refused;
      await visitor.page.getByRole('button', { name: 'Sign in' }).waitFor();
      // The sign-in page itself, not one that would send the next sign-in back to Get started.
      expect(visitor.page.url()).toBe(`${server.url}/login`);
    } finally {
      await other.close();
    }
  });

  it("an invite's link makes the invited person an account and signs them in", async () => {
    const invite = await server.request(`/api/organizations/${server.bootstrap.organization.id}/invites/`, {
      method: 'POST',
      body: { target_email: 'new.colleague@example.com', first_name: 'Robin' },
    });
    expect(invite.status, invite.text).toBe(201);
    const stranger = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const visitor = await watchedPage(stranger);
      await visitor.page.goto(`${server.url}/signup/${invite.body.id}`);
      await visitor.page.getByText('new.colleague@example.com').waitFor();
      expect(await visitor.page.getByLabel('Your name').inputValue()).toBe('Robin');
      await visitor.page.getByLabel('Choose a password').fill('robin has a good password');
      await screenshot(visitor.page, 'signup-invite');
      await visitor.page.getByRole('button', { name: 'Join' }).click();
      await visitor.page.waitForURL(new RegExp(`${server.url}/project/${env}/`));
      await visitor.page.getByTestId('user-email').filter({ hasText: 'new.colleague@example.com' }).waitFor();
      // The signed-out visitor's /api/users/@me/ is the only refused request.
      expect(unexpectedErrors(visitor, [401, 403])).toEqual([]);
    } finally {
      await stranger.close();
    }
  });

  it('refuses an e-mail address that keeps failing, even with the right password, and says why', async () => {
    const stranger = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const visitor = await watchedPage(stranger);
      await visitor.page.goto(`${server.url}/login`);
      await visitor.page.getByLabel('Email').fill(server.bootstrap.user.email);
      const attempt = async (password: string) => {
        await visitor.page.getByLabel('Password').fill(password);
        const answered = visitor.page.waitForResponse((r) => r.url().endsWith('/api/login/'));
        await visitor.page.getByRole('button', { name: 'Sign in' }).click();
        return (await answered).status();
      };
      const statuses: number[] = [];
      for (let i = 0; i < LOGIN_FAILURES_PER_EMAIL; i++) statuses.push(await attempt(`wrong password ${i}`));
      expect(statuses).toEqual(Array.from({ length: LOGIN_FAILURES_PER_EMAIL }, () => 400));
      expect(await attempt(PASSWORD)).toBe(429);
      await visitor.page.getByRole('alert').filter({ hasText: 'throttled' }).waitFor();
      await screenshot(visitor.page, 'login-throttled');
      expect(visitor.page.url()).toBe(`${server.url}/login`);
      expect(unexpectedErrors(visitor, [400, 401, 403, 429])).toEqual([]);
    } finally {
      await stranger.close();
    }
  });
});
