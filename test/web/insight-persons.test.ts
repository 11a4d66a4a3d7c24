/**
 * The persons behind an insight's value in Chromium (PostHog's persons modal): a click on a point of
 * the line, on the bold number, on a slice of the pie and on a funnel step's persons (reached or
 * dropped off) lists the persons the value counts, each linking to their page; a value of more than
 * a page of persons loads the rest on asking. The
 * events are the insights fixture's (insights-fixture.ts, in Asia/Tokyo).
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { DATE_RANGE, useInsightsFixture } from './insights-fixture.js';

const server = useTestServer();

let watched: WatchedPage;
let page: Page;
let env: number;

/** 101 persons who each sign in once on 9 Oct (local), one more than a page of the modal. */
const CROWD = Array.from({ length: 101 }, (_, i) => ({
  event: 'signed_in',
  distinct_id: `crowd-${String(i).padStart(3, '0')}`,
  timestamp: '2025-10-09T03:00:00Z',
  properties: {},
}));

const ui = useInsightsFixture(server, CROWD);

beforeAll(() => {
  ({ page, watched, env } = ui);
});

const trends = (event: string, extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event, name: event, math: 'dau' }],
  interval: 'day',
  dateRange: DATE_RANGE,
  ...extra,
});

async function open(source: Record<string, unknown>) {
  await page.goto(`${server.url}/project/${env}/insights/new#q=${encodeURIComponent(JSON.stringify(source))}`);
}

/** Clicks the chart's element `index` of dataset `dataset` where the canvas says it is drawn. */
async function clickElement(testId: string, dataset: number, index: number) {
  const canvas = page.getByTestId(testId);
  await canvas.waitFor();
  await expect.poll(() => canvas.getAttribute('data-points')).not.toBeNull();
  const points = JSON.parse((await canvas.getAttribute('data-points'))!) as Array<Array<[number, number]>>;
  const [x, y] = points[dataset]![index]!;
  await canvas.click({ position: { x, y } });
}

/** The modal's persons, as their links read, in order. */
async function modalPersons(): Promise<string[]> {
  const modal = page.getByTestId('persons-modal-table');
  await modal.waitFor();
  return modal.getByTestId('persons-modal-row').locator('a').allTextContents();
}

async function closeModal() {
  await page.keyboard.press('Escape');
  await page.getByTestId('persons-modal-table').waitFor({ state: 'detached' });
}

describe("an insight's persons", () => {
  it('lists the persons of a point of the line, linking to their pages', async () => {
    await open(trends('$pageview'));
    const canvas = page.getByTestId('trends-chart');
    await canvas.waitFor();
    const [line] = JSON.parse((await canvas.getAttribute('data-series'))!) as Array<{ data: number[]; days: string[] }>;
    // 8 Oct (local): carol, twice.
    const eighth = line!.days.indexOf('2025-10-08');
    expect(line!.data[eighth]).toBe(1);
    await clickElement('trends-chart', 0, eighth);
    expect(await modalPersons()).toEqual(['carol']);
    expect(await page.getByTestId('persons-modal-events').allTextContents()).toEqual(['2']);
    await screenshot(page, 'insight-persons-point');
    await closeModal();

    // 6 Oct: alice (only Tokyo's time puts her there) and bob, as the point counts them.
    await clickElement('trends-chart', 0, line!.days.indexOf('2025-10-06'));
    expect((await modalPersons()).sort()).toEqual(['alice', 'bob']);
    await page.getByTestId('persons-modal-row').getByRole('link', { name: 'bob' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/project/${env}/person/bob`);
    expectNoPageErrors(watched);
  });

  it("lists the bold number's persons over the whole range", async () => {
    await open(trends('$pageview', { trendsFilter: { display: 'BoldNumber' } }));
    const value = page.getByTestId('bold-number-value');
    await value.waitFor();
    expect(await value.textContent()).toBe('4');
    await value.click();
    expect((await modalPersons()).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
    await closeModal();
    expectNoPageErrors(watched);
  });

  it("lists a pie slice's persons: those of its breakdown value", async () => {
    await open(
      trends('$pageview', { trendsFilter: { display: 'ActionsPie' }, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }),
    );
    const pie = page.getByTestId('trends-pie');
    await pie.waitFor();
    const firefoxSlice = async () =>
      (JSON.parse((await pie.getAttribute('data-series'))!) as Array<{ label: string }>).findIndex((slice) =>
        slice.label.endsWith('Firefox'),
      );
    // The pie is broken down once the answer asked for is in.
    await expect.poll(firefoxSlice).toBeGreaterThanOrEqual(0);
    const firefox = await firefoxSlice();
    await clickElement('trends-pie', 0, firefox);
    expect((await modalPersons()).sort()).toEqual(['bob', 'carol']);
    await closeModal();
    expectNoPageErrors(watched);
  });

  it("lists a table's persons by keyboard: a date's and the total's", async () => {
    await open(trends('$pageview', { trendsFilter: { display: 'ActionsTable' } }));
    const row = page.getByTestId('trends-table-row').first();
    await expect.poll(() => row.getByTestId('trends-table-total').textContent()).toBe('4');
    // 6 Oct (local), the table's first date: alice and bob, as the line's point.
    const sixth = row.getByTestId('trends-table-cell').first();
    expect(await sixth.getAttribute('title')).toContain('6');
    await sixth.getByRole('button').focus();
    await page.keyboard.press('Enter');
    expect((await modalPersons()).sort()).toEqual(['alice', 'bob']);
    await closeModal();
    await row.getByTestId('trends-table-total').getByRole('button').click();
    expect((await modalPersons()).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);
    await closeModal();
    // A date no one counts in has nothing to list.
    const zeros = row.getByTestId('trends-table-cell').filter({ hasText: /^0$/ });
    expect(await zeros.count()).toBeGreaterThan(0);
    expect(await zeros.getByRole('button').count()).toBe(0);
    expectNoPageErrors(watched);
  });

  it("lists a funnel step's persons, reached and dropped off", async () => {
    // The fixture's funnel: alice and carol purchase, bob only signs up, dave only views.
    await open({
      kind: 'FunnelsQuery',
      series: ['$pageview', 'signed_up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
      dateRange: DATE_RANGE,
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelOrderType: 'ordered' },
    });
    const step = (i: number) => page.locator(`[data-testid="funnel-step"][data-step="${i}"]`);
    await expect.poll(() => step(1).getByTestId('funnel-count').textContent()).toBe('3');
    await step(1).getByTestId('funnel-persons').first().click();
    expect((await modalPersons()).sort()).toEqual(['alice', 'bob', 'carol']);
    await closeModal();
    await step(1).getByTestId('funnel-persons').last().click();
    expect(await modalPersons()).toEqual(['dave']);
    await closeModal();
    await step(2).getByTestId('funnel-persons').last().click();
    expect(await modalPersons()).toEqual(['bob']);
    await screenshot(page, 'insight-persons-funnel-dropped');
    await closeModal();
    expectNoPageErrors(watched);
  });

  it('loads the persons past the first page on asking', async () => {
    await open(trends('signed_in'));
    const canvas = page.getByTestId('trends-chart');
    await canvas.waitFor();
    // 9 Oct is the fourth day; the chart shows the line asked for once it holds the crowd.
    const ninth = 3;
    await expect
      .poll(async () => (JSON.parse((await canvas.getAttribute('data-series'))!) as Array<{ data: number[] }>)[0]?.data[ninth])
      .toBe(101);
    await clickElement('trends-chart', 0, ninth);
    await expect.poll(async () => (await modalPersons()).length).toBe(100);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(async () => (await modalPersons()).length).toBe(101);
    expect(new Set(await modalPersons()).size).toBe(101);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(await page.getByTestId('persons-modal-count').textContent()).toBe('101 persons');
    await closeModal();
    expectNoPageErrors(watched);
  });
});
