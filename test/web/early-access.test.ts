/**
 * Early access features end to end in Chromium: posthog-js 1.434.18 (loaded from Hoglet by a
 * customer's site) lists a beta feature with getEarlyAccessFeatures(), its user opts in with
 * updateEarlyAccessFeatureEnrollment(); once Hoglet has stored `$feature_enrollment/<flag key>` on
 * the person, a new page load (fresh posthog-js, nothing persisted, the same distinct id) gets the
 * flag on from /flags, where it was off before. The web app lists the feature with one person
 * opted in, and its page shows who. A feature is created and edited in the app too.
 * No console errors; screenshots in .tmp/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, launchBrowser, screenshot, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { sendHtml, snippetPage, startCustomerSite, type CustomerSite } from '../helpers/customer-site.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { signedInContext } from './signed-in.js';

const server = useTestServer();
const USER = 'early-adopter-42';

let browser: Browser;
let site: CustomerSite;
let env: number;

/** The customer's page: posthog-js from Hoglet, as `distinctId`. */
function sitePage(distinctId: string): string {
  const config = {
    bootstrap: { distinctID: distinctId },
    person_profiles: 'always',
    opt_out_useragent_filter: true,
    autocapture: false,
    capture_pageview: false,
  };
  return snippetPage({ hoglet: server.url, token: server.token, config, title: 'Shop', body: '<h1>Shop</h1>' });
}

/** A fresh browser context (no cookies, no storage) on the customer's page, posthog-js loaded. */
async function freshShop(): Promise<WatchedPage> {
  const context = await browser.newContext();
  const shop = await watchedPage(context);
  await shop.page.goto(`${site.url}/?as=${encodeURIComponent(USER)}`);
  await shop.page.waitForFunction(() => (globalThis as any).posthog?.__loaded === true, undefined, { timeout: 30_000 });
  return shop;
}

/** Waits until posthog-js has the flag from /flags (a boolean, not undefined) and returns it. */
async function flagFromServer(page: Page, key: string): Promise<boolean> {
  const handle = await page.waitForFunction((flag) => {
    const value = (globalThis as any).posthog.isFeatureEnabled(flag);
    return typeof value === 'boolean' ? { value } : undefined;
  }, key);
  return ((await handle.jsonValue()) as { value: boolean }).value;
}

async function storedEnrollment(key: string): Promise<unknown> {
  const res = await server.request(`/api/environments/${env}/persons/?distinct_id=${USER}`);
  return res.body.results?.[0]?.properties?.[`$feature_enrollment/${key}`];
}

beforeAll(async () => {
  env = server.bootstrap.team.id;
  browser = await launchBrowser();
  site = await startCustomerSite((request, response) => {
    const as = new URL(request.url ?? '/', 'http://site').searchParams.get('as') ?? 'anonymous';
    sendHtml(response, sitePage(as));
  });
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

describe('early access features with posthog-js', () => {
  it('a user who opts in gets the flag on at the next page load, and the app shows them opted in', async () => {
    const created = await server.request(`/api/projects/${env}/early_access_feature/`, {
      method: 'POST',
      body: { name: 'Dark mode', description: 'Easy on the eyes', stage: 'beta', documentation_url: 'https://example.com/dark' },
    });
    expect(created.status, created.text).toBe(201);
    const flagKey: string = created.body.feature_flag.key;
    expect(flagKey).toBe('dark-mode');
    // A draft is not listed to posthog-js.
    await server.request(`/api/projects/${env}/early_access_feature/`, { method: 'POST', body: { name: 'Secret', stage: 'draft' } });

    const first = await freshShop();
    expect(await flagFromServer(first.page, flagKey)).toBe(false);
    const listed = await first.page.evaluate(
      () => new Promise<unknown[]>((resolve) => (globalThis as any).posthog.getEarlyAccessFeatures(resolve, true)),
    );
    expect(listed).toEqual([
      {
        id: created.body.id,
        name: 'Dark mode',
        description: 'Easy on the eyes',
        stage: 'beta',
        documentationUrl: 'https://example.com/dark',
        flagKey,
        payload: {},
      },
    ]);
    await first.page.evaluate((key) => (globalThis as any).posthog.updateEarlyAccessFeatureEnrollment(key, true), flagKey);
    // posthog-js overrides the flag locally at once; Hoglet learns it from the event.
    expect(await first.page.evaluate((key) => (globalThis as any).posthog.isFeatureEnabled(key), flagKey)).toBe(true);
    await waitFor(() => storedEnrollment(flagKey), { what: 'the enrollment stored on the person', until: (v) => v === true });
    expectNoPageErrors(first);
    await first.page.context().close();

    const next = await freshShop();
    expect(await flagFromServer(next.page, flagKey)).toBe(true);
    expectNoPageErrors(next);
    await next.page.context().close();

    const app = await watchedPage(await signedInContext(browser, server));
    await app.page.goto(`${server.url}/project/${env}/early_access_features`);
    const row = app.page.getByTestId('feature-row').filter({ hasText: 'Dark mode' });
    await row.waitFor();
    await expect.poll(() => row.getByTestId('opted-in-count').textContent()).toBe('1');
    await expect.poll(() => row.getByTestId('stage').textContent()).toBe('Beta');
    await screenshot(app.page, 'early-access-list');
    await row.getByRole('link', { name: 'Dark mode' }).click();
    await app.page.getByRole('heading', { name: 'Dark mode' }).waitFor();
    await app.page.getByTestId('opted-in-row').filter({ hasText: USER }).waitFor();
    await app.page.getByTestId('opted-out').getByText('No one has opted out.').waitFor();
    await screenshot(app.page, 'early-access-feature');
    expectNoPageErrors(app);
    await app.page.context().close();
  });

  it('creates a feature in the app and moves it to beta, showing the API error for a bad URL', async () => {
    const app = await watchedPage(await signedInContext(browser, server));
    const { page } = app;
    await page.goto(`${server.url}/project/${env}/early_access_features`);
    await page.getByRole('link', { name: 'New feature' }).click();
    await page.getByLabel('Name').fill('Faster <b>search</b>');
    await page.getByLabel('Documentation URL').fill('not a url');
    await page.getByRole('button', { name: 'Create feature' }).click();
    await page.getByText('Enter a valid URL.').waitFor();
    expectNoPageErrors(app, [400]);

    await page.getByLabel('Documentation URL').fill('');
    await page.getByRole('button', { name: 'Create feature' }).click();
    await page.waitForURL(new RegExp(`/project/${env}/early_access_features/[0-9a-f-]{36}$`));
    await page.getByRole('heading', { name: 'Faster <b>search</b>' }).waitFor();
    await page.getByRole('link', { name: 'faster-bsearchb' }).waitFor();

    await page.getByRole('textbox', { name: 'Stage' }).click();
    await page.getByRole('option', { name: 'Beta' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    const id = page.url().split('/').pop()!;
    const saved = await server.request(`/api/projects/${env}/early_access_feature/${id}/`);
    expect(saved.body.stage).toBe('beta');
    expect(saved.body.feature_flag.filters.feature_enrollment).toBe(true);
    await screenshot(page, 'early-access-edit');
    expectNoPageErrors(app);
    await page.context().close();
  });
});
