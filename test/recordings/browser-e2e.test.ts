import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { sendHtml, snippetPage, startCustomerSite, type CustomerSite } from '../helpers/customer-site.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * posthog-js 1.434.18, loaded the way the HTML snippet loads it (`/static/array.js` from Hoglet,
 * extensions such as the recorder fetched lazily from Hoglet too), driven in Debian's Chromium.
 * Then the API must show what was done, and the shared page must replay it.
 */
/** The banner colour the replay must show: rgb(255, 200, 0). */
const BANNER = [255, 200, 0] as const;

let server: TestServer;
let site: CustomerSite;
let browser: Browser;
let env: string;

/** A page with PostHog's snippet, posthog-js loaded from Hoglet. */
function sitePage(hoglet: string, token: string, title: string, body: string): string {
  return snippetPage({
    hoglet,
    token,
    config: { opt_out_useragent_filter: true, person_profiles: 'always' },
    title,
    bodyStyle: 'margin:0;font-family:sans-serif',
    body: `<div id="banner" style="background:rgb(${BANNER.join(',')});height:300px;font-size:40px;padding:20px">${title}</div>
${body}`,
  });
}

/** waitFor, looking every 300 ms (each look may settle the queue and read a recording). */
function poll<T>(what: string, read: () => Promise<T>, until: (value: T) => boolean): Promise<T> {
  return waitFor(read, { what, until, intervalMs: 300 });
}

async function recording(sessionId: string) {
  const res = await server.request(`${env}/session_recordings/${sessionId}/`);
  return res.status === 200 ? res.body : undefined;
}

async function saveFixture(file: string, sessionId: string) {
  const { sources } = (await server.request(`${env}/session_recordings/${sessionId}/snapshots`)).body;
  const chunks: { windowId: string; events: unknown[] }[] = [];
  for (const source of sources) {
    const key = source.blob_key;
    const res = await server.request(
      `${env}/session_recordings/${sessionId}/snapshots?source=blob_v2&start_blob_key=${key}&end_blob_key=${key}`,
    );
    const lines = res.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as [string, unknown]);
    chunks.push({ windowId: lines[0]![0], events: lines.map(([, e]) => e) });
  }
  fs.writeFileSync(
    file,
    JSON.stringify({ recordedWith: 'posthog-js 1.434.18, Chromium, test/recordings/browser-e2e.test.ts', chunks }) + '\n',
  );
}

/** How many pixels of a PNG (decoded by the browser itself) have the given colour. */
async function countColour(page: Page, png: Buffer, [r, g, b]: readonly number[]): Promise<{ matching: number; total: number }> {
  return page.evaluate(
    // Runs in the browser; the test project has no DOM typings, hence the `any`s.
    async ({ data, r, g, b }: { data: string; r: number; g: number; b: number }) => {
      const browser = globalThis as any;
      const img = new browser.Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const canvas = browser.document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const context = canvas.getContext('2d');
      context.drawImage(img, 0, 0);
      const pixels: Uint8ClampedArray = context.getImageData(0, 0, img.width, img.height).data;
      let matching = 0;
      for (let i = 0; i < pixels.length; i += 4) {
        if (Math.abs(pixels[i]! - r) < 8 && Math.abs(pixels[i + 1]! - g) < 8 && Math.abs(pixels[i + 2]! - b) < 8) matching++;
      }
      return { matching, total: pixels.length / 4 };
    },
    { data: png.toString('base64'), r: r!, g: g!, b: b! },
  );
}

describe('posthog-js in Chromium against Hoglet', () => {
  beforeAll(async () => {
    server = await startTestServer();
    env = `/api/environments/${server.bootstrap.team.id}`;
    const settings = await server.request(`${env}/`, {
      method: 'PATCH',
      body: { session_recording_opt_in: true, capture_console_log_opt_in: true, autocapture_web_vitals_opt_in: true },
    });
    expect(settings.status, settings.text).toBe(200);
    const token = server.bootstrap.team.apiToken;
    site = await startCustomerSite((request, response) => {
      const pages: Record<string, string> = {
        '/': sitePage(
          server.url,
          token,
          'Shop home',
          '<button id="buy" style="font-size:30px">Buy</button> <input id="q" name="q"> <a id="next" href="/second">Next</a>',
        ),
        '/second': sitePage(server.url, token, 'Second page', '<button id="again" style="font-size:30px">Again</button>'),
      };
      const page = pages[(request.url ?? '/').split('?')[0]!];
      sendHtml(response, page ?? 'not found', page ? 200 : 404);
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
  });

  it('records, counts, replays, and feeds web vitals and sessions', { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await context.newPage();
    const staticMisses: string[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(`${server.url}/static/`) && r.status() !== 200) staticMisses.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${site.url}/`);
    await page.waitForFunction(() => (globalThis as any).posthog?.__loaded === true, undefined, { timeout: 30_000 });
    const sessionId: string = await page.evaluate(() => (globalThis as any).posthog.get_session_id());
    // Recording begins once the lazily loaded recorder is running.
    await page.waitForFunction(() => (globalThis as any).posthog.sessionRecording?.started === true, undefined, { timeout: 30_000 });

    for (let i = 0; i < 3; i++) await page.click('#buy');
    await page.click('#q');
    // Typed as a person types, 300 ms a key at least: the page's activity spans over a second,
    // so active_seconds (whole seconds, activity 5 s apart at most) is positive however fast the machine.
    await page.keyboard.type('hello', { delay: 300 });
    await page.evaluate(() => {
      console.log('one log line');
      console.error('one error line');
    });

    // Wait for page one to reach the server before leaving it, so the counts are exact.
    const first = await poll(
      'the first page in the recording',
      () => recording(sessionId),
      (r) => r?.click_count >= 4 && r?.keypress_count >= 5 && r?.console_error_count >= 1,
    );
    expect(first.start_url).toBe(`${site.url}/`);

    // Web vitals arrive as `$web_vitals` events through capture; posthog-js sends a page's metrics
    // a few seconds after it measured them, so they are awaited before leaving the page.
    const vitals = await poll(
      'web vitals for /',
      async () => {
        await server.settle();
        return (await server.request(`${env}/web_vitals/?pathname=/`)).body;
      },
      (body) => body.results.some((s: any) => s.data[s.data.length - 1] > 0),
    );
    expect(vitals.results.map((s: any) => s.action.custom_name)).toEqual(['INP', 'LCP', 'CLS', 'FCP']);

    expect(staticMisses).toEqual([]);

    await page.goto(`${site.url}/second`);
    await page.waitForFunction(() => (globalThis as any).posthog?.sessionRecording?.started === true, undefined, { timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as any).posthog.get_session_id())).toBe(sessionId);
    await page.click('#again');
    const rec = await poll(
      'the second page in the recording',
      () => recording(sessionId),
      (r) => r?.click_count >= 5,
    );

    // 3 clicks on Buy, 1 to focus the input, 1 on the second page; one Input per typed character.
    expect(rec).toMatchObject({
      id: sessionId,
      click_count: 5,
      keypress_count: 5,
      console_log_count: 1,
      console_error_count: 1,
      console_warn_count: 0,
      start_url: `${site.url}/`,
      snapshot_source: 'web',
      ongoing: true,
    });
    // HOGLET_RECORD_FIXTURE=/path.json saves the stored chunks as a fixture for the metadata unit tests.
    if (process.env.HOGLET_RECORD_FIXTURE) await saveFixture(process.env.HOGLET_RECORD_FIXTURE, sessionId);
    expect(rec.recording_duration).toBeGreaterThan(0);
    // Whole seconds, as PostHog's model stores them.
    expect(Number.isInteger(rec.active_seconds)).toBe(true);
    expect(rec.active_seconds).toBeGreaterThan(0);
    expect(rec.active_seconds + rec.inactive_seconds).toBeLessThanOrEqual(rec.recording_duration);
    expect(rec.mouse_activity_count).toBeGreaterThanOrEqual(5);
    const distinctId: string = await page.evaluate(() => (globalThis as any).posthog.get_distinct_id());
    expect(rec.distinct_id).toBe(distinctId);

    const entry = await server.request(`${env}/sessions/values/?key=$entry_current_url`);
    expect(entry.body.results).toContainEqual({ name: `${site.url}/` });

    // Share it and replay it in the browser.
    const shared = await server.request(`${env}/session_recordings/${sessionId}/sharing/`, { method: 'PATCH', body: { enabled: true } });
    expect(shared.status).toBe(200);
    await context.close();
    const viewer = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    await viewer.goto(`${server.url}/shared/${shared.body.access_token}`);
    await viewer.waitForSelector('body[data-state="ready"]', { timeout: 30_000 });
    const replay = viewer.frameLocator('.replayer-wrapper iframe');
    await waitFor(() => replay.locator('#buy').count(), { what: 'the replay to show the Buy button', until: (n) => n === 1 });
    const shot = await viewer.locator('.replayer-wrapper').screenshot();
    // HOGLET_E2E_SCREENSHOT=/path.png keeps the replay's screenshot for a human to look at.
    if (process.env.HOGLET_E2E_SCREENSHOT) fs.writeFileSync(process.env.HOGLET_E2E_SCREENSHOT, shot);
    const { matching, total } = await countColour(viewer, shot, BANNER);
    // The banner fills the top of the replayed page: a good share of the replay must show it.
    expect(matching / total).toBeGreaterThan(0.1);

    // Disabling takes effect at once.
    await server.request(`${env}/session_recordings/${sessionId}/sharing/`, { method: 'PATCH', body: { enabled: false } });
    expect((await viewer.goto(`${server.url}/shared/${shared.body.access_token}`))!.status()).toBe(404);
    await viewer.close();
  });
});
