/**
 * The web app's pages in Chromium against a real Hoglet, signed in: Get started turns green when
 * posthog-node sends an event; Activity shows events as they arrive (filters, an event's properties,
 * markup shown as text and never run); every section of the navigation opens, and PostHog's link
 * shapes land on their page. No console errors anywhere; a screenshot of each page in
 * .tmp/screenshots/. (Signing in and out: sign-in.test.ts.)
 */
import { PostHog } from 'posthog-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { expectDatesInOneStyle } from './dates.js';
import { useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);
/** Markup and script in an event's name, property keys and values: all must show as text. */
const HOSTILE_EVENT = '<img src=x onerror="window.__xss=1">clicked';
const HOSTILE_PROPERTIES = {
  note: '<script>window.__xss=2</script><b>bold?</b>',
  '<i>key</i>': '<iframe src="javascript:alert(3)"></iframe>',
  $current_url: 'javascript:alert(4)',
};

beforeAll(async () => {
  await ui.page.goto(server.url);
  // A fresh environment starts on Get started.
  await ui.page.waitForURL(`${server.url}/project/${ui.env}/get-started`);
});

const sendEvents = (events: unknown[]) => server.ingest(events);

describe('the web app in Chromium', () => {
  it('Get started shows the snippets with the project API key and turns green on the first event', async () => {
    await ui.page.getByRole('heading', { name: 'Get started' }).waitFor();
    const check = ui.page.getByTestId('first-event-check');
    expect(await check.getAttribute('data-state')).toBe('waiting');
    expect(await ui.page.getByTestId('project-api-key').textContent()).toBe(server.token);
    const node = await ui.page.getByTestId('snippet-node').textContent();
    expect(node).toContain(`new PostHog(${JSON.stringify(server.token)}, { host: ${JSON.stringify(server.url)} })`);
    expect(await ui.page.getByTestId('snippet-web').textContent()).toContain(`api_host: ${JSON.stringify(server.url)}`);
    await screenshot(ui.page, 'get-started-waiting');

    const posthog = new PostHog(server.token, { host: server.url, flushAt: 1, flushInterval: 0 });
    posthog.capture({ distinctId: 'node-user-1', event: 'signed up', properties: { plan: 'pro' } });
    await posthog.shutdown();

    await ui.page.locator('[data-testid="first-event-check"][data-state="received"]').waitFor({ timeout: 30_000 });
    expect(await check.textContent()).toContain('signed up');
    await screenshot(ui.page, 'get-started-received');
    expectNoPageErrors(ui.watched);
  });

  it('Activity shows events as they arrive, markup as text, and an event in full', async () => {
    await ui.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Activity' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/activity`);
    await ui.page.getByTestId('event-row').filter({ hasText: 'signed up' }).waitFor();

    // New events appear without a reload.
    await sendEvents([
      { event: HOSTILE_EVENT, distinct_id: '<b>person</b>', properties: HOSTILE_PROPERTIES },
      { event: 'viewed pricing', distinct_id: 'node-user-1', properties: { $current_url: 'https://shop.example/pricing', plan: 'free' } },
    ]);
    const hostileRow = ui.page.getByTestId('event-row').filter({ hasText: HOSTILE_EVENT });
    await hostileRow.waitFor({ timeout: 30_000 });
    await ui.page.getByTestId('event-row').filter({ hasText: 'viewed pricing' }).waitFor();
    expect(await hostileRow.textContent()).toContain('<b>person</b>');
    // Times are written as everywhere else in the app.
    await expectDatesInOneStyle(ui.page.getByTestId('event-row').filter({ hasText: 'viewed pricing' }));

    await hostileRow.click();
    const detail = ui.page.getByTestId('event-detail');
    await detail.waitFor();
    expect(await ui.page.getByTestId('event-detail-name').textContent()).toBe(HOSTILE_EVENT);
    const properties = await ui.page.getByTestId('event-properties').textContent();
    for (const [key, value] of Object.entries(HOSTILE_PROPERTIES)) {
      expect(properties).toContain(key);
      expect(properties).toContain(value);
    }
    expect(ui.page.url()).toContain('event_id=');
    // The distinct id, as text, leads to its person.
    const person = detail.getByTestId('event-person');
    expect(await person.textContent()).toBe('<b>person</b>');
    expect(await person.getAttribute('href')).toBe(`/project/${ui.env}/person/${encodeURIComponent('<b>person</b>')}`);
    // The drawer slides in: the screenshot waits for it to stop.
    await ui.page.waitForFunction(() => (globalThis as any).document.getAnimations().length === 0);
    await screenshot(ui.page, 'activity-event');
    // Nothing of it became an element or ran.
    expect(await ui.page.locator('img[src="x"], iframe, b:text("person"), i:text("key")').count()).toBe(0);
    expect(await ui.page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    await ui.page.keyboard.press('Escape');
    await detail.waitFor({ state: 'detached' });
    await ui.page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(ui.page.url()).not.toContain('event_id=');
    expectNoPageErrors(ui.watched);
  });

  it('Activity filters by event, person, property and time, kept in the address', async () => {
    const rows = ui.page.getByTestId('event-row');
    await ui.page.getByRole('textbox', { name: 'Event', exact: true }).fill('viewed pricing');
    await ui.page.getByRole('button', { name: 'Apply' }).click();
    await ui.page.waitForURL(/event=viewed\+pricing/);
    await expect.poll(async () => (await rows.allTextContents()).length).toBe(1);
    expect(await rows.first().textContent()).toContain('viewed pricing');

    await ui.page.getByRole('textbox', { name: 'Event', exact: true }).fill('');
    await ui.page.getByLabel('Person (distinct id)').fill('node-user-1');
    await ui.page.getByRole('button', { name: 'Add property filter' }).click();
    await ui.page.getByLabel('Property').fill('plan');
    await ui.page.getByLabel('Operator').selectOption('exact');
    await ui.page.getByLabel('Value').fill('pro');
    await ui.page.getByRole('button', { name: 'Apply' }).click();
    await ui.page.waitForURL(/distinct_id=node-user-1/);
    await expect.poll(async () => (await rows.allTextContents()).map((t) => t.includes('signed up'))).toEqual([true]);
    await screenshot(ui.page, 'activity-filtered');

    // A shared address opens the same view; a range before every event shows none.
    await ui.page.goto(`${server.url}/project/${ui.env}/activity?range=-1h&event=nothing-like-this`);
    await ui.page.getByText('No events match these filters yet.').waitFor();

    // A custom range, in the browser's time (this machine's, as here): a past day has none of
    // these events, the hours around now have them.
    const local = (ms: number) => {
      const d = new Date(ms);
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
    };
    const hour = 3_600_000;
    await ui.page.goto(`${server.url}/project/${ui.env}/activity?event=viewed+pricing`);
    await ui.page.getByLabel('Time').selectOption('custom');
    await ui.page.getByLabel('From (your time)').fill(local(Date.now() - 72 * hour));
    await ui.page.getByLabel('To (your time)').fill(local(Date.now() - 48 * hour));
    await ui.page.getByRole('button', { name: 'Apply' }).click();
    await ui.page.waitForURL(/range=custom/);
    await ui.page.getByText('No events match these filters yet.').waitFor();
    const [from, to] = [local(Date.now() - 2 * hour), local(Date.now() + 2 * hour)];
    await ui.page.getByLabel('From (your time)').fill(from);
    await ui.page.getByLabel('To (your time)').fill(to);
    await ui.page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await rows.allTextContents()).filter((t) => t.includes('viewed pricing')).length).toBe(1);
    // The range is in the address: a reload (or a shared link) shows the same.
    const params = new URL(ui.page.url()).searchParams;
    expect([params.get('from'), params.get('to')]).toEqual([from, to]);
    await ui.page.reload();
    await rows.filter({ hasText: 'viewed pricing' }).waitFor();
    await screenshot(ui.page, 'activity-custom-range');
    expectNoPageErrors(ui.watched);
  });

  it('Activity keeps only the rows in view in the page, however many events arrive', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/activity`);
    await ui.page.getByTestId('event-row').first().waitFor();
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
    await ui.page.getByTestId('event-row').filter({ hasText: 'bulk 599' }).waitFor({ timeout: 30_000 });
    const rendered = await ui.page.getByTestId('event-row').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    // …while the list scrolls through all of them.
    const scrollHeight = await ui.page.getByTestId('events-table').evaluate((el) => el.scrollHeight);
    expect(scrollHeight).toBeGreaterThan(200 * 30);
    expectNoPageErrors(ui.watched);
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
      await ui.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
      await ui.page.waitForURL(`${server.url}/project/${ui.env}/${path}`);
      await ui.page.getByRole('heading', { level: 2 }).first().waitFor();
      await screenshot(ui.page, `section-${path}`);
    }
    // posthog-js's get_session_replay_url(): the project API key stands for the environment.
    await ui.page.goto(`${server.url}/project/${server.token}/replay/0190a1b2-c3d4-7000-8000-000000000001`);
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/replay/0190a1b2-c3d4-7000-8000-000000000001`);
    await ui.page.getByText('0190a1b2-c3d4-7000-8000-000000000001').waitFor();
    // Without the project: the current environment's page.
    await ui.page.goto(`${server.url}/activity?event=signed+up`);
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/activity?event=signed+up`);
    await ui.page.goto(`${server.url}/project/${ui.env}/no-such-page`);
    await ui.page.getByText('Page not found').waitFor();
    // The replay link named no recording: the player page's request for it answered 404.
    expectNoPageErrors(ui.watched, [404]);
  });

  it('a first load of a page leaves no warnings in the console', async () => {
    const page = await ui.context.newPage();
    // The sign-in page, signed out (signed in, it sends on to the app).
    const signedOut = await ui.browser.newContext();
    try {
      const warnings: string[] = [];
      const watch = (p: typeof page) =>
        p.on('console', (message) => {
          if (message.type() === 'warning' || message.type() === 'error') warnings.push(message.text());
        });
      watch(page);
      for (const path of ['activity', 'persons', 'web']) {
        await page.goto(`${server.url}/project/${ui.env}/${path}`);
        await page.getByRole('heading', { level: 2 }).first().waitFor();
      }
      const login = await signedOut.newPage();
      watch(login);
      await login.goto(`${server.url}/login`);
      await login.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(warnings).toEqual([]);
    } finally {
      await page.close();
      await signedOut.close();
    }
  });

  it('on a phone-sized screen the navigation opens from the burger, and pages fit the width', async () => {
    const page = ui.page;
    await sendEvents([{ event: 'opened on a phone', distinct_id: 'phone-user' }]);
    // An insight with a history and a subscription: their pages hold a history table and a form.
    const insight = await server.request(`/api/environments/${ui.env}/insights/`, {
      method: 'POST',
      body: {
        name: 'Phone check',
        query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'opened on a phone' }] } },
      },
    });
    expect(insight.status, insight.text).toBe(201);
    const subscription = await server.request(`/api/environments/${ui.env}/subscriptions/`, {
      method: 'POST',
      body: {
        insight: insight.body.id,
        target_type: 'email',
        target_value: 'phone@example.com',
        frequency: 'weekly',
        byweekday: ['monday'],
        start_date: new Date().toISOString(),
      },
    });
    expect(subscription.status, subscription.text).toBe(201);
    const insightPath = `insights/${insight.body.short_id}`;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const sections = page.getByRole('navigation', { name: 'Sections' });
      /** Whether the navigation is on screen (collapsed, it is moved off to the left). */
      const navigationShown = async () => ((await sections.boundingBox())?.x ?? -1) >= 0;
      await page.goto(`${server.url}/project/${ui.env}/activity`);
      await page.getByRole('heading', { name: 'Activity' }).waitFor();
      await expect.poll(navigationShown).toBe(false);
      await page.getByRole('button', { name: 'Open navigation' }).click();
      await expect.poll(navigationShown).toBe(true);
      await sections.getByRole('link', { name: 'People' }).click();
      await page.waitForURL(`${server.url}/project/${ui.env}/persons`);
      await page.getByTestId('person-row').first().waitFor();
      // Choosing a section closes the navigation, so the page shows.
      await expect.poll(navigationShown).toBe(false);
      for (const path of [
        'persons',
        'feature_flags',
        'replay',
        'settings',
        'get-started',
        'cohorts/new',
        insightPath,
        `${insightPath}/subscriptions/${subscription.body.id}`,
      ]) {
        await page.goto(`${server.url}/project/${ui.env}/${path}`);
        await page.getByRole('heading', { level: 2 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        const width = await page.locator('html').evaluate((html) => ({ scroll: html.scrollWidth, client: html.clientWidth }));
        expect(width.scroll, `${path} is wider than the screen`).toBeLessThanOrEqual(width.client);
        await screenshot(page, `narrow-${path.replaceAll('/', '-')}`);
      }
      expectNoPageErrors(ui.watched);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('the environment switcher opens the same section of another environment and remembers it', async () => {
    const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
      method: 'POST',
      body: { name: 'Staging' },
    });
    expect(created.status, created.text).toBe(201);
    const staging = created.body.id as number;
    await ui.page.goto(`${server.url}/project/${ui.env}/activity`);
    await ui.page.getByRole('textbox', { name: 'Environment' }).click();
    await ui.page.getByRole('option', { name: 'Staging' }).click();
    await ui.page.waitForURL(`${server.url}/project/${staging}/activity`);
    await ui.page.getByText('No events match these filters yet.').waitFor();
    await expect.poll(async () => (await server.request('/api/users/@me/')).body.team?.id).toBe(staging);
    // An address without a project now opens Staging's page.
    await ui.page.goto(`${server.url}/get-started`);
    await ui.page.waitForURL(`${server.url}/project/${staging}/get-started`);
    expect(await ui.page.getByTestId('project-api-key').textContent()).toBe(created.body.api_token);
    // A settings page stays the same page, of the other environment.
    await ui.page.goto(`${server.url}/project/${staging}/settings/project`);
    await ui.page.getByRole('textbox', { name: 'Environment', exact: true }).click();
    await ui.page.getByRole('option', { name: server.bootstrap.team.name }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/settings/project`);
    await screenshot(ui.page, 'environment-switched');
    expectNoPageErrors(ui.watched);
  });
});
