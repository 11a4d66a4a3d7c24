/**
 * Lifecycle and stickiness insights in Chromium: chosen as the insight type, drawn from what POST
 * /query/ answers, equal to the persons counted by hand from the insights fixture
 * (insights-fixture.ts, in Asia/Tokyo), saved and reloaded.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { DATE_RANGE, DAYS, useInsightsFixture } from './insights-fixture.js';

const server = useTestServer();

let watched: WatchedPage;
let page: Page;
let env: number;

const ui = useInsightsFixture(server);

beforeAll(() => {
  ({ page, watched, env } = ui);
});

async function ask(query: Record<string, unknown>) {
  const res = await server.request(`/api/environments/${env}/query/`, { method: 'POST', body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.body.results as Array<Record<string, unknown>>;
}

async function drawn(testId: string): Promise<unknown[]> {
  const canvas = page.getByTestId(testId);
  await canvas.waitFor();
  return JSON.parse((await canvas.getAttribute('data-series'))!);
}

/** Clicks the chart's element `index` of dataset `dataset` where the canvas says it is drawn. */
async function clickElement(testId: string, dataset: number, index: number) {
  const canvas = page.getByTestId(testId);
  await expect.poll(() => canvas.getAttribute('data-points')).not.toBeNull();
  const points = JSON.parse((await canvas.getAttribute('data-points'))!) as Array<Array<[number, number]>>;
  const [x, y] = points[dataset]![index]!;
  await canvas.click({ position: { x, y } });
}

/** The persons modal's persons, sorted, then closes it. */
async function modalPersons(): Promise<string[]> {
  const table = page.getByTestId('persons-modal-table');
  await table.waitFor();
  const names = (await table.getByTestId('persons-modal-row').locator('a').allTextContents()).sort();
  await page.keyboard.press('Escape');
  await table.waitFor({ state: 'detached' });
  return names;
}

const PAGEVIEWS = [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }];

describe('lifecycle and stickiness', () => {
  it("draw each interval's new, returning, resurrecting and dormant persons", async () => {
    await page.goto(`${server.url}/project/${env}/insights/new`);
    await page.getByText('Lifecycle', { exact: true }).click();
    await page.getByTestId('lifecycle-editor').waitFor();
    await page.getByLabel('Date range').first().selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill(DATE_RANGE.date_from);
    await page.getByLabel('To', { exact: true }).fill(DATE_RANGE.date_to);

    // By hand, in local days 6–12 Oct: alice and bob new on the 6th (eve, seen on the 5th only,
    // dormant), alice back on the 7th (bob dormant), carol new on the 8th (alice dormant; carol on the
    // 9th), dave new on the 10th, dormant on the 11th, resurrecting on the 12th.
    const answer = await ask({ kind: 'LifecycleQuery', series: PAGEVIEWS, interval: 'day', dateRange: DATE_RANGE });
    const byHand = [
      { status: 'new', data: [2, 0, 1, 0, 1, 0, 0], days: DAYS },
      { status: 'returning', data: [0, 1, 0, 0, 0, 0, 0], days: DAYS },
      { status: 'resurrecting', data: [0, 0, 0, 0, 0, 0, 1], days: DAYS },
      { status: 'dormant', data: [-1, -1, -1, -1, 0, -1, 0], days: DAYS },
    ];
    expect(answer.map((r) => ({ status: r.status, data: r.data, days: r.days }))).toEqual(byHand);
    await expect.poll(() => drawn('lifecycle-chart')).toEqual(byHand);
    const legend = page.getByTestId('series-row');
    expect(await legend.evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-label'), r.getAttribute('data-total')]))).toEqual([
      ['New', '4'],
      ['Returning', '1'],
      ['Resurrecting', '1'],
      ['Dormant', '-5'],
    ]);
    await screenshot(page, 'insight-lifecycle');
    // A bar's persons: the new ones of the 6th, the dormant one of the 11th.
    await clickElement('lifecycle-chart', 0, 0);
    expect(await modalPersons()).toEqual(['alice', 'bob']);
    await clickElement('lifecycle-chart', 3, 5);
    expect(await modalPersons()).toEqual(['dave']);
    expectNoPageErrors(watched);
  });

  it('draw the persons active on exactly 1, 2, … days, and save', async () => {
    await page.getByText('Stickiness', { exact: true }).click();
    await page.getByTestId('stickiness-editor').waitFor();
    // The range carries over. Bob and carol are seen on one day, alice and dave on two.
    const query = { kind: 'StickinessQuery', series: PAGEVIEWS, interval: 'day', dateRange: DATE_RANGE };
    const [series] = await ask(query);
    expect(series!.data).toEqual([2, 2, 0, 0, 0, 0, 0]);
    await expect.poll(() => drawn('stickiness-chart')).toEqual([{ label: '$pageview', data: [2, 2, 0, 0, 0, 0, 0] }]);
    await clickElement('stickiness-chart', 0, 1);
    expect(await modalPersons()).toEqual(['alice', 'dave']);
    await page.getByLabel('Or more (cumulative)').check();
    await expect.poll(() => drawn('stickiness-chart')).toEqual([{ label: '$pageview', data: [4, 2, 0, 0, 0, 0, 0] }]);
    await screenshot(page, 'insight-stickiness');

    await page.getByLabel('Name').fill('Sticky visitors');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL(/\/insights\/[A-Za-z0-9]{8}$/);
    await page.reload();
    await expect.poll(() => drawn('stickiness-chart')).toEqual([{ label: '$pageview', data: [4, 2, 0, 0, 0, 0, 0] }]);
    expectNoPageErrors(watched);
  });
});
