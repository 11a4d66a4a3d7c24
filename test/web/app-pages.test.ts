/**
 * The web app's pages in Chromium against a real Hoglet, signed in: Get started turns green when
 * posthog-node sends an event; Activity shows events as they arrive (filters, an event's properties,
 * markup shown as text and never run); every section of the navigation opens, and PostHog's link
 * shapes land on their page. No console errors anywhere; a screenshot of each page in
 * .tmp/screenshots/. (Signing in and out: sign-in.test.ts.)
 */
import type { Browser, Page } from 'playwright-core';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { openSignedIn } from './signed-in.js';

const server = useTestServer();
/** Markup and script in an event's name, property keys and values: all must show as text. */
const HOSTILE_EVENT = '<img src=x onerror="window.__xss=1">clicked';
const HOSTILE_PROPERTIES = {
  note: '<script>window.__xss=2</script><b>bold?</b>',
  '<i>key</i>': '<iframe src="javascript:alert(3)"></iframe>',
  $current_url: 'javascript:alert(4)',
};

let browser: Browser;
let watched: WatchedPage;
let page: Page;
let env: number;

beforeAll(async () => {
  ({ browser, watched, page } = await openSignedIn(server));
  env = server.bootstrap.team.id;
  await page.goto(server.url);
  // A fresh environment starts on Get started.
  await page.waitForURL(`${server.url}/project/${env}/get-started`);
});

afterAll(async () => {
  await browser?.close();
});

const sendEvents = (events: unknown[]) => server.ingest(events);

describe('the web app in Chromium', () => {
  it('Get started shows the snippets with the project API key and turns green on the first event', async () => {
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    const check = page.getByTestId('first-event-check');
    expect(await check.getAttribute('data-state')).toBe('waiting');
    expect(await page.getByTestId('project-api-key').textContent()).toBe(server.token);
    const node = await page.getByTestId('snippet-node').textContent();
    expect(node).toContain(`new PostHog(${JSON.stringify(server.token)}, { host: ${JSON.stringify(server.url)} })`);
    expect(await page.getByTestId('snippet-web').textContent()).toContain(`api_host: ${JSON.stringify(server.url)}`);
    await screenshot(page, 'get-started-waiting');

    const posthog = new PostHog(server.token, { host: server.url, flushAt: 1, flushInterval: 0 });
    posthog.capture({ distinctId: 'node-user-1', event: 'signed up', properties: { plan: 'pro' } });
    await posthog.shutdown();

    await page.locator('[data-testid="first-event-check"][data-state="received"]').waitFor({ timeout: 30_000 });
    expect(await check.textContent()).toContain('signed up');
    await screenshot(page, 'get-started-received');
    expectNoPageErrors(watched);
  });

  it('Activity shows events as they arrive, markup as text, and an event in full', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(`${server.url}/project/${env}/activity`);
    await page.getByTestId('event-row').filter({ hasText: 'signed up' }).waitFor();

    // New events appear without a reload.
    await sendEvents([
      { event: HOSTILE_EVENT, distinct_id: '<b>person</b>', properties: HOSTILE_PROPERTIES },
      { event: 'viewed pricing', distinct_id: 'node-user-1', properties: { $current_url: 'https://shop.example/pricing', plan: 'free' } },
    ]);
    const hostileRow = page.getByTestId('event-row').filter({ hasText: HOSTILE_EVENT });
    await hostileRow.waitFor({ timeout: 30_000 });
    await page.getByTestId('event-row').filter({ hasText: 'viewed pricing' }).waitFor();
    expect(await hostileRow.textContent()).toContain('<b>person</b>');

    await hostileRow.click();
    const detail = page.getByTestId('event-detail');
    await detail.waitFor();
    expect(await page.getByTestId('event-detail-name').textContent()).toBe(HOSTILE_EVENT);
    const properties = await page.getByTestId('event-properties').textContent();
    for (const [key, value] of Object.entries(HOSTILE_PROPERTIES)) {
      expect(properties).toContain(key);
      expect(properties).toContain(value);
    }
    expect(page.url()).toContain('event_id=');
    // The drawer slides in: the screenshot waits for it to stop.
    await page.waitForFunction(() => (globalThis as any).document.getAnimations().length === 0);
    await screenshot(page, 'activity-event');
    // Nothing of it became an element or ran.
    expect(await page.locator('img[src="x"], iframe, b:text("person"), i:text("key")').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    await page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(page.url()).not.toContain('event_id=');
    expectNoPageErrors(watched);
  });

  it('Activity filters by event, person, property and time, kept in the address', async () => {
    const rows = page.getByTestId('event-row');
    await page.getByRole('textbox', { name: 'Event', exact: true }).fill('viewed pricing');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/event=viewed\+pricing/);
    await expect.poll(async () => (await rows.allTextContents()).length).toBe(1);
    expect(await rows.first().textContent()).toContain('viewed pricing');

    await page.getByRole('textbox', { name: 'Event', exact: true }).fill('');
    await page.getByLabel('Person (distinct id)').fill('node-user-1');
    await page.getByRole('button', { name: 'Add property filter' }).click();
    await page.getByLabel('Property').fill('plan');
    await page.getByLabel('Operator').selectOption('exact');
    await page.getByLabel('Value').fill('pro');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/distinct_id=node-user-1/);
    await expect.poll(async () => (await rows.allTextContents()).map((t) => t.includes('signed up'))).toEqual([true]);
    await screenshot(page, 'activity-filtered');

    // A shared address opens the same view; a range before every event shows none.
    await page.goto(`${server.url}/project/${env}/activity?range=-1h&event=nothing-like-this`);
    await page.getByText('No events match these filters yet.').waitFor();

    // A custom range, in the browser's time (this machine's, as here): a past day has none of
    // these events, the hours around now have them.
    const local = (ms: number) => {
      const d = new Date(ms);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    const hour = 3_600_000;
    await page.goto(`${server.url}/project/${env}/activity?event=viewed+pricing`);
    await page.getByLabel('Time').selectOption('custom');
    await page.getByLabel('From (your time)').fill(local(Date.now() - 72 * hour));
    await page.getByLabel('To (your time)').fill(local(Date.now() - 48 * hour));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/range=custom/);
    await page.getByText('No events match these filters yet.').waitFor();
    const [from, to] = [local(Date.now() - 2 * hour), local(Date.now() + 2 * hour)];
    await page.getByLabel('From (your time)').fill(from);
    await page.getByLabel('To (your time)').fill(to);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await rows.allTextContents()).filter((t) => t.includes('viewed pricing')).length).toBe(1);
    // The range is in the address: a reload (or a shared link) shows the same.
    const params = new URL(page.url()).searchParams;
    expect([params.get('from'), params.get('to')]).toEqual([from, to]);
    await page.reload();
    await rows.filter({ hasText: 'viewed pricing' }).waitFor();
    await screenshot(page, 'activity-custom-range');
    expectNoPageErrors(watched);
  });

  it('Activity keeps only the rows in view in the page, however many events arrive', async () => {
    await page.goto(`${server.url}/project/${env}/activity`);
    await page.getByTestId('event-row').first().waitFor();
    const base = Date.now();
    await sendEvents(
      Array.from({ length: 600 }, (_, i) => ({
        event: `bulk ${i}`,
        distinct_id: `bulk-user-${i % 7}`,
        timestamp: new Date(base + i).toISOString(),
        properties: { i },
      })),
    );
    // The newest arrives through the live tail (one update for the whole poll).
    await page.getByTestId('event-row').filter({ hasText: 'bulk 599' }).waitFor({ timeout: 30_000 });
    const rendered = await page.getByTestId('event-row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    // …while the list scrolls through all of them.
    const scrollHeight = await page.getByTestId('events-table').evaluate((el) => el.scrollHeight);
    expect(scrollHeight).toBeGreaterThan(200 * 30);
    expectNoPageErrors(watched);
  });

  it('every section of the navigation opens, and PostHog links land on their page', async () => {
    for (const [name, path] of [
      ['People', 'persons'],
      ['Feature flags', 'feature_flags'],
      ['Surveys', 'surveys'],
      ['Early access', 'early_access_features'],
      ['Cohorts', 'cohorts'],
      ['Replay', 'replay'],
      ['Settings', 'settings'],
      ['Get started', 'get-started'],
      ['Activity', 'activity'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
      await page.waitForURL(`${server.url}/project/${env}/${path}`);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await screenshot(page, `section-${path}`);
    }
    // posthog-js's get_session_replay_url(): the project API key stands for the environment.
    await page.goto(`${server.url}/project/${server.token}/replay/0190a1b2-c3d4-7000-8000-000000000001`);
    await page.waitForURL(`${server.url}/project/${env}/replay/0190a1b2-c3d4-7000-8000-000000000001`);
    await page.getByText('0190a1b2-c3d4-7000-8000-000000000001').waitFor();
    // Without the project: the current environment's page.
    await page.goto(`${server.url}/activity?event=signed+up`);
    await page.waitForURL(`${server.url}/project/${env}/activity?event=signed+up`);
    await page.goto(`${server.url}/project/${env}/no-such-page`);
    await page.getByText('Page not found').waitFor();
    // The replay link named no recording: the player page's request for it answered 404.
    expectNoPageErrors(watched, [404]);
  });

  it('the environment switcher opens the same section of another environment and remembers it', async () => {
    const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
      method: 'POST',
      body: { name: 'Staging' },
    });
    expect(created.status, created.text).toBe(201);
    const staging = created.body.id as number;
    await page.goto(`${server.url}/project/${env}/activity`);
    await page.getByRole('textbox', { name: 'Environment' }).click();
    await page.getByRole('option', { name: 'Staging' }).click();
    await page.waitForURL(`${server.url}/project/${staging}/activity`);
    await page.getByText('No events match these filters yet.').waitFor();
    await expect.poll(async () => (await server.request('/api/users/@me/')).body.team?.id).toBe(staging);
    // An address without a project now opens Staging's page.
    await page.goto(`${server.url}/get-started`);
    await page.waitForURL(`${server.url}/project/${staging}/get-started`);
    expect(await page.getByTestId('project-api-key').textContent()).toBe(created.body.api_token);
    await screenshot(page, 'environment-switched');
    expectNoPageErrors(watched);
  });
});
