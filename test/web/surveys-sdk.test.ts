/**
 * Surveys end to end in Chromium: posthog-js 1.434.18, loaded from Hoglet by a customer's site,
 * shows a popover survey made through the API on the page its URL condition names, the visitor
 * answers it, and the `survey sent` event arrives stored with the answer under the question's id,
 * which the survey's results then list.
 * A survey whose URL condition names another page is not among the surveys posthog-js finds
 * matching there (nor shown), and does show on its own page.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, launchBrowser, screenshot, watchedPage, type WatchedPage } from '../helpers/browser.js';
import { sendHtml, snippetPage, startCustomerSite, type CustomerSite } from '../helpers/customer-site.js';
import { useTestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';
import { waitFor } from '../helpers/wait.js';
import { createSurvey, surveysPath } from '../surveys/survey-helpers.js';

const server = useTestServer();

let browser: Browser;
let context: BrowserContext;
let site: CustomerSite;
let pricing: any;
let checkout: any;

function sitePage(title: string): string {
  return snippetPage({
    hoglet: server.url,
    token: server.token,
    config: { opt_out_useragent_filter: true, person_profiles: 'always' },
    title,
    body: `<h1>${title}</h1>`,
  });
}

async function openSite(path: string): Promise<WatchedPage> {
  const watched = await watchedPage(context);
  await watched.page.goto(`${site.url}${path}`);
  await watched.page.waitForFunction(() => (globalThis as any).posthog?.__loaded === true, undefined, { timeout: 30_000 });
  return watched;
}

/** The ids of the surveys posthog-js finds active and matching on this page (its own conditions and flags). */
function matchingSurveyIds(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        (globalThis as any).posthog.getActiveMatchingSurveys((surveys: Array<{ id: string }>) => resolve(surveys.map((s) => s.id)), true);
      }),
  );
}

beforeAll(async () => {
  // PostHog's app turns surveys on for the environment when the first survey is launched.
  const optIn = await server.request(`/api/environments/${server.bootstrap.team.id}/`, { method: 'PATCH', body: { surveys_opt_in: true } });
  expect(optIn.status, optIn.text).toBe(200);
  const launched = new Date(Date.now() - 60_000).toISOString();
  pricing = await createSurvey(server, {
    name: 'Pricing feedback',
    type: 'popover',
    start_date: launched,
    questions: [{ type: 'open', question: 'What is missing from our plans?', buttonText: 'Send it' }],
    conditions: { url: '/pricing', urlMatchType: 'icontains' },
    appearance: { displayThankYouMessage: false },
  });
  checkout = await createSurvey(server, {
    name: 'Checkout feedback',
    type: 'popover',
    start_date: launched,
    questions: [{ type: 'single_choice', question: 'How was checkout?', choices: ['Easy', 'Hard'] }],
    conditions: { url: '/checkout', urlMatchType: 'icontains' },
  });
  site = await startCustomerSite((request, response) => sendHtml(response, sitePage(request.url ?? '/')));
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await site?.close();
});

describe('surveys in posthog-js', () => {
  it('shows the survey whose URL condition matches, takes the answer and stores it', async () => {
    const watched = await openSite('/pricing');
    const { page } = watched;
    const popover = page.locator(`.PostHogSurvey-${pricing.id}`);
    const form = popover.locator('.survey-form');
    await form.waitFor({ state: 'visible', timeout: 30_000 });
    await expect(form.locator('.survey-question').textContent()).resolves.toBe('What is missing from our plans?');

    // posthog-js has the project's surveys and finds only this one matching here; the other one is not shown.
    expect(await matchingSurveyIds(page)).toEqual([pricing.id]);
    expect(await page.locator(`.PostHogSurvey-${checkout.id}`).count()).toBe(0);
    await screenshot(page, 'survey-popover');

    const answer = 'A <b>team</b> plan';
    await form.locator('textarea').fill(answer);
    await popover.getByRole('button', { name: 'Submit survey' }).filter({ hasText: 'Send it' }).click();
    await popover.locator('.survey-form').waitFor({ state: 'detached', timeout: 30_000 });

    const distinctId = await page.evaluate(() => (globalThis as any).posthog.get_distinct_id() as string);
    await page.evaluate(() => (globalThis as any).posthog.flush?.());
    const questionId = pricing.questions[0].id;
    const sent = await waitFor(
      async () =>
        (await storedEvents(server.running.ctx.analytics, server.bootstrap.team.id)).find(
          (e) => e.event === 'survey sent' && e.distinct_id === distinctId,
        ),
      { what: 'the survey sent event to be stored' },
    );
    const properties = JSON.parse(sent!.properties);
    expect(properties.$survey_id).toBe(pricing.id);
    expect(properties[`$survey_response_${questionId}`]).toBe(answer);
    expect(properties.$survey_name).toBe('Pricing feedback');
    expect(properties.$set).toMatchObject({ [`$survey_responded/${pricing.id}`]: true });

    // The answer is in the survey's results, through the API and the query endpoint alike.
    const results = await server.request(surveysPath(server, `${pricing.id}/results/`));
    expect(results.status, results.text).toBe(200);
    expect(results.body.responses).toBe(1);
    expect(results.body.questions[0]).toMatchObject({ id: questionId, type: 'open', responses: 1 });
    expect(results.body.questions[0].answers).toEqual([expect.objectContaining({ value: answer, distinct_id: distinctId })]);
    const query = await server.request(`/api/environments/${server.bootstrap.team.id}/query/`, {
      method: 'POST',
      body: { query: { kind: 'SurveyResultsQuery', surveyId: pricing.id } },
    });
    expect(query.status, query.text).toBe(200);
    expect(query.body.results.questions[0].answers.map((a: any) => a.value)).toEqual([answer]);
    expectNoPageErrors(watched);
    await page.close();
  });

  it('shows the other survey on its own page, and not the first one there', async () => {
    const watched = await openSite('/checkout');
    const { page } = watched;
    const popover = page.locator(`.PostHogSurvey-${checkout.id} .survey-form`);
    await popover.waitFor({ state: 'visible', timeout: 30_000 });
    await expect(popover.locator('.survey-question').textContent()).resolves.toBe('How was checkout?');
    expect(await matchingSurveyIds(page)).toEqual([checkout.id]);
    expect(await page.locator(`.PostHogSurvey-${pricing.id}`).count()).toBe(0);
    expectNoPageErrors(watched);
    await page.close();
  });

  it('serves posthog-js only surveys that are not archived', async () => {
    const archived = await server.request(surveysPath(server, `${checkout.id}/`), { method: 'PATCH', body: { archived: true } });
    expect(archived.status).toBe(200);
    const watched = await openSite('/checkout');
    const ids = await watched.page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          (globalThis as any).posthog.getSurveys((surveys: Array<{ id: string }>) => resolve(surveys.map((s) => s.id)), true);
        }),
    );
    expect(ids).toEqual([pricing.id]);
    expectNoPageErrors(watched);
    await watched.page.close();
  });
});
