/**
 * Session replay in Chromium against a real Hoglet: a recording made by posthog-js (loaded from
 * Hoglet's /static/array.js in a page of its own, as test/recordings/browser-e2e.test.ts does) is
 * listed and plays in the app's player, with its clicks, console lines and events beside it, each
 * seeking the player; the list's filters (person, duration, dates); sharing on and off, the shared
 * link playing without a session; posthog-js's `get_session_replay_url()` landing on the player.
 * No console errors; screenshots in .tmp/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { sendHtml, snippetPage, startCustomerSite, type CustomerSite } from '../helpers/customer-site.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { fullSnapshot, meta, click, newSessionId, postSnapshots, snapshotEvent } from '../recordings/helpers.js';
import { expectDatesInOneStyle } from './dates.js';
import { openSignedIn } from './signed-in.js';

const server = useTestServer();
const CONSOLE_LINE = 'hello from the shop';
/** A distinct id with markup: the list must show it as text. */
const HOSTILE_ID = '<img src=x onerror="window.__xss=1">short';
const DAY = 86_400_000;

let browser: Browser;
let watched: WatchedPage;
let page: Page;
let site: CustomerSite;
let env: number;
let sessionId: string;
let replayUrl: string;
let longId: string;
let shortId: string;
let assetsId: string;

/** A page with PostHog's snippet, posthog-js loaded from Hoglet. */
function sitePage(hoglet: string, token: string): string {
  return snippetPage({
    hoglet,
    token,
    config: { opt_out_useragent_filter: true, person_profiles: 'always' },
    title: 'Shop',
    bodyStyle: 'margin:0;font-family:sans-serif',
    body: `<h1 id="title" style="background:rgb(255,200,0);padding:20px">Shop home</h1>
<button id="buy" style="font-size:30px">Buy</button> <input id="q" name="q">`,
  });
}

/** The shop's own assets, which a replay of its pages loads from the shop. */
const SITE_ASSETS: Record<string, { type: string; body: Buffer | string }> = {
  // A 1×1 PNG.
  '/logo.png': {
    type: 'image/png',
    body: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'),
  },
  '/shop.css': { type: 'text/css', body: '#banner { background: rgb(0, 128, 255); }' },
};

/**
 * A recording of a page with an image and a stylesheet of its site (what rrweb records when it
 * cannot inline a stylesheet): the replay must load them under the app's Content-Security-Policy.
 */
async function withAssets(distinctId: string): Promise<string> {
  const id = newSessionId();
  const t = Date.now() - 30_000;
  const element = (nodeId: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[] = []) => ({
    type: 2,
    id: nodeId,
    tagName,
    attributes,
    childNodes,
  });
  const node = {
    type: 0,
    id: 1,
    childNodes: [
      element(2, 'html', {}, [
        element(3, 'head', {}, [element(4, 'link', { rel: 'stylesheet', href: `${site.url}/shop.css` })]),
        element(5, 'body', {}, [
          element(6, 'div', { id: 'banner' }, [{ type: 3, id: 7, textContent: 'Assets page' }]),
          element(8, 'img', { id: 'logo', src: `${site.url}/logo.png`, width: '40', height: '40' }),
          // A recording is whatever a holder of the public project key sends: nothing of it may run.
          element(9, 'script', {}, [{ type: 3, id: 10, textContent: 'window.parent.__xss = 5' }]),
          element(11, 'img', { id: 'broken', src: 'data:,', onerror: 'window.parent.__xss = 6' }),
        ]),
      ]),
    ],
  };
  const events = [
    meta(t, `${site.url}/assets`),
    { type: 2, timestamp: t + 1, data: { node, initialOffset: { left: 0, top: 0 } } },
    click(t + 2000),
  ];
  const res = await postSnapshots(server, JSON.stringify([snapshotEvent(server.token, id, events, { distinctId })]), 'application/json');
  expect(res.status).toBe(200);
  return id;
}

/** A recording posted as posthog-js posts one, `seconds` long, starting `agoMs` ago. */
async function synthetic(distinctId: string, agoMs: number, seconds: number): Promise<string> {
  const id = newSessionId();
  const t = Date.now() - agoMs;
  const events = [meta(t, `https://app.example/${seconds}s`), fullSnapshot(t + 1), click(t + seconds * 1000)];
  const res = await postSnapshots(server, JSON.stringify([snapshotEvent(server.token, id, events, { distinctId })]), 'application/json');
  expect(res.status).toBe(200);
  return id;
}

async function recording(id: string) {
  const res = await server.request(`/api/environments/${env}/session_recordings/${id}/`);
  return res.status === 200 ? res.body : undefined;
}

beforeAll(async () => {
  env = server.bootstrap.team.id;
  const settings = await server.request(`/api/environments/${env}/`, {
    method: 'PATCH',
    body: { session_recording_opt_in: true, capture_console_log_opt_in: true },
  });
  expect(settings.status, settings.text).toBe(200);
  site = await startCustomerSite((request, response) => {
    const asset = Object.hasOwn(SITE_ASSETS, request.url ?? '') ? SITE_ASSETS[request.url!] : undefined;
    if (asset) {
      response.writeHead(200, { 'content-type': asset.type });
      response.end(asset.body);
      return;
    }
    sendHtml(response, sitePage(server.url, server.token));
  });
  ({ browser, watched, page } = await openSignedIn(server));

  // The recording: posthog-js in a context of its own (a visitor of the shop, not signed in).
  const visitor = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const shop = await visitor.newPage();
  await shop.goto(`${site.url}/`);
  await shop.waitForFunction(() => (globalThis as any).posthog?.__loaded === true, undefined, { timeout: 30_000 });
  await shop.waitForFunction(() => (globalThis as any).posthog.sessionRecording?.started === true, undefined, { timeout: 30_000 });
  sessionId = await shop.evaluate(() => (globalThis as any).posthog.get_session_id());
  replayUrl = await shop.evaluate(() => (globalThis as any).posthog.get_session_replay_url());
  await shop.click('#q');
  // Typed as a person types: the click on Buy comes a few seconds into the recording.
  await shop.keyboard.type('red shoes', { delay: 300 });
  await shop.click('#buy');
  await shop.evaluate((line) => console.log(line), CONSOLE_LINE);
  await waitFor(() => recording(sessionId), {
    what: 'the recording with its clicks and console line',
    until: (r) => r?.click_count >= 2 && r?.console_log_count >= 1 && r?.keypress_count >= 9,
    intervalMs: 300,
  });
  // The session's events ($pageview, $autocapture) reach the events store.
  await waitFor(
    async () => {
      await server.settle();
      const res = await server.request(`/api/environments/${env}/query/`, {
        method: 'POST',
        body: {
          query: {
            kind: 'EventsQuery',
            select: ['event'],
            properties: [{ key: '$session_id', value: sessionId, operator: 'exact', type: 'event' }],
          },
        },
      });
      return (res.body.results as string[][]).map((row) => row[0]);
    },
    { what: "the session's events", until: (events) => events.includes('$pageview') && events.includes('$autocapture'), intervalMs: 300 },
  );
  await visitor.close();

  longId = await synthetic('long-user', 10 * DAY, 120);
  shortId = await synthetic(HOSTILE_ID, 60_000, 5);
  assetsId = await withAssets('assets-user');
  await server.settle();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

const rowIds = async () => page.getByTestId('recording-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session-id')));

describe('session replay in Chromium', () => {
  it('lists recordings and filters them by person, duration and dates', async () => {
    await page.goto(`${server.url}/project/${env}/replay`);
    await page.getByRole('heading', { name: 'Session replay' }).waitFor();
    // The last three days by default: the shop's recording and the short one, not the old one.
    await expect.poll(rowIds).toEqual(expect.arrayContaining([sessionId, shortId, assetsId]));
    expect(await rowIds()).not.toContain(longId);
    const hostileRow = page.locator(`[data-session-id="${shortId}"]`);
    expect(await hostileRow.textContent()).toContain(HOSTILE_ID);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    await expectDatesInOneStyle(page.locator(`[data-session-id="${sessionId}"]`));
    await screenshot(page, 'replay-list');

    await page.getByRole('textbox', { name: 'Period' }).click();
    await page.getByRole('option', { name: 'All time' }).click();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/date_from=all/);
    await expect.poll(async () => (await rowIds()).sort()).toEqual([sessionId, shortId, longId, assetsId].sort());

    await page.getByRole('textbox', { name: 'Longer than (seconds)' }).fill('60');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/min_duration=60/);
    await expect.poll(rowIds).toEqual([longId]);

    await page.getByRole('textbox', { name: 'Longer than (seconds)' }).fill('');
    await page.getByRole('textbox', { name: 'Person' }).fill(HOSTILE_ID);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL((url) => url.searchParams.get('person') === HOSTILE_ID && !url.searchParams.has('min_duration'));
    await expect.poll(rowIds).toEqual([shortId]);

    // A date range around the old recording only.
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    await page.getByRole('textbox', { name: 'Person' }).fill('');
    await page.getByRole('textbox', { name: 'Period' }).click();
    await page.getByRole('option', { name: 'From a date…' }).click();
    await page.getByLabel('From').fill(day(Date.now() - 11 * DAY));
    await page.getByLabel('Until').fill(day(Date.now() - 9 * DAY));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/date_to=/);
    await expect.poll(rowIds).toEqual([longId]);

    // Nothing matches: the empty state.
    await page.getByRole('textbox', { name: 'Person' }).fill('nobody-at-all');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByTestId('recordings-empty').waitFor();
    expectNoPageErrors(watched);
  });

  it("plays posthog-js's recording, with clicks, console lines and events that seek the player", async () => {
    await page.goto(`${server.url}/project/${env}/replay`);
    await page.locator(`[data-session-id="${sessionId}"]`).getByRole('link').click();
    await page.waitForURL(`${server.url}/project/${env}/replay/${sessionId}`);

    // The replayed page, in rrweb's iframe: the shop's own text and button.
    const replay = page.frameLocator('.replayer-wrapper iframe');
    await replay.locator('#title').waitFor({ timeout: 30_000 });
    expect(await replay.locator('#title').textContent()).toBe('Shop home');
    expect(await replay.locator('#buy').count()).toBe(1);
    expect(await page.getByTestId('player-time').textContent()).toBe('0:00');

    // The session's events, from the events store.
    const events = page.getByTestId('session-event');
    await events.filter({ hasText: '$pageview' }).first().waitFor();
    expect(await events.filter({ hasText: '$autocapture' }).count()).toBeGreaterThan(0);

    // Clicks, named by what was clicked; the click on Buy seeks the player seconds in.
    await page.getByRole('tab', { name: /Clicks/ }).click();
    const buy = page.getByTestId('session-click').filter({ hasText: 'button#buy "Buy"' });
    await buy.waitFor();
    await buy.click();
    await expect.poll(() => page.getByTestId('player-time').textContent()).not.toBe('0:00');
    const seconds = (text: string | null) => {
      const [m, s] = (text ?? '0:00').split(':');
      return Number(m) * 60 + Number(s);
    };
    expect(seconds(await page.getByTestId('player-time').textContent())).toBeGreaterThanOrEqual(2);
    // The list marks where the player is.
    await expect.poll(() => buy.getAttribute('data-current')).toBe('true');
    // After the seek the replay shows what was typed by then (masked, as posthog-js records inputs).
    await expect.poll(() => replay.locator('#q').inputValue()).toBe('*'.repeat('red shoes'.length));

    // Console lines, recorded by posthog-js's console plugin.
    await page.getByRole('tab', { name: /Console/ }).click();
    const line = page.getByTestId('session-console').filter({ hasText: CONSOLE_LINE });
    await line.waitFor();

    // From the first event (the page view, at the start), playing moves the time on.
    await page.getByRole('tab', { name: /Events/ }).click();
    await events.filter({ hasText: '$pageview' }).first().click();
    await expect.poll(() => page.getByTestId('player-time').textContent()).toBe('0:00');
    const before = 0;
    await page.locator('.rr-controller__btns button').first().click();
    await expect
      .poll(async () => seconds(await page.getByTestId('player-time').textContent()), { timeout: 15_000 })
      .toBeGreaterThan(before);
    await screenshot(page, 'replay-player');
    expect((await recording(sessionId)).viewed).toBe(true);
    expectNoPageErrors(watched);
  });

  it("replays the recorded site's images and stylesheets under the app's Content-Security-Policy", async () => {
    await page.goto(`${server.url}/project/${env}/replay/${assetsId}`);
    const replay = page.frameLocator('.replayer-wrapper iframe');
    await replay.locator('#banner').waitFor({ timeout: 30_000 });
    await expect.poll(() => replay.locator('#logo').evaluate((img) => (img as any).naturalWidth)).toBe(1);
    expect(await replay.locator('#broken').count()).toBe(1);
    expect(await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss)).toBeUndefined();
    // The browser says it refused the recorded onerror handler (rrweb's iframe has no allow-scripts):
    // the one error this page expects.
    const blocked = watched.errors.filter((e) => e.startsWith('Blocked script execution') && e.includes('sandboxed'));
    expect(blocked.length).toBeGreaterThan(0);
    for (const line of blocked) watched.errors.splice(watched.errors.indexOf(line), 1);
    await expect
      .poll(() => replay.locator('#banner').evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor))
      .toBe('rgb(0, 128, 255)');
    expectNoPageErrors(watched);
  });

  it('shares the recording: the link plays without a session until sharing is turned off', async () => {
    await page.goto(`${server.url}/project/${env}/replay/${sessionId}`);
    const toggle = page.getByRole('switch', { name: /Share publicly/ });
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click({ force: true });
    const link = page.getByRole('textbox', { name: 'Shared link' });
    await link.waitFor();
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`^${server.url}/shared/[A-Za-z0-9_-]+$`));
    await screenshot(page, 'replay-shared');

    const stranger = await browser.newContext();
    const watchedViewer = await watchedPage(stranger);
    const viewer = watchedViewer.page;
    const opened = (await viewer.goto(url))!;
    // The shared page runs under a policy too: its one inline script by nonce, never framed.
    const policy = (await opened.allHeaders())['content-security-policy']!;
    const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(policy).toContain("frame-ancestors 'none'");
    expect(await opened.text()).toContain(`<script nonce="${nonce}">`);
    await viewer.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
    await viewer.frameLocator('.replayer-wrapper iframe').locator('#buy').waitFor();
    await screenshot(viewer, 'replay-shared-page');
    expectNoPageErrors(watchedViewer);
    const embedded = await fetch(url.replace('/shared/', '/embedded/'));
    expect(embedded.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(embedded.headers.get('content-security-policy')).not.toContain(nonce!);

    await toggle.click({ force: true });
    await link.waitFor({ state: 'detached' });
    expect(await toggle.isChecked()).toBe(false);
    expect((await viewer.goto(url))!.status()).toBe(404);
    await stranger.close();
    expectNoPageErrors(watched);
  });

  it("posthog-js's replay link, /project/<token>/replay/<id>, lands on the player", async () => {
    expect(replayUrl).toBe(`${server.url}/project/${server.token}/replay/${sessionId}`);
    await page.goto(replayUrl);
    await page.waitForURL(`${server.url}/project/${env}/replay/${sessionId}`);
    await page.frameLocator('.replayer-wrapper iframe').locator('#buy').waitFor({ timeout: 30_000 });

    // An unknown recording says so.
    await page.goto(`${server.url}/project/${env}/replay/no-such-recording`);
    expect(await page.getByRole('alert').textContent()).toContain('not found');
    expectNoPageErrors(watched, [404]);
  });
});
