/**
 * Unique users (`dau`) on a trends line in Chromium, by hour, day, week and month, and as a
 * cumulative line: the chart shows what POST /query/ answers for the page's query, and both equal
 * the persons counted by hand from the insights fixture (insights-fixture.ts, in Asia/Tokyo) with
 * one more pageview, so that an hour and a day hold two events of one person.
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

/**
 * The fixture's pageviews in local (Tokyo) time: alice 6 Oct 01:00 and 7 Oct 10:00; bob 6 Oct
 * 12:00 and, added here, 12:30; carol 8 Oct 14:00 and 15:00; dave 10 Oct 23:30, 12 Oct 23:59 and
 * 13 Oct 00:00 (after the range); eve 5 Oct 23:00 (before it, but in its first week and month).
 */
const BOBS_SECOND = {
  event: '$pageview',
  distinct_id: 'bob',
  timestamp: '2025-10-06T03:30:00Z',
  properties: { $browser: 'Firefox', $pathname: '/' },
};

const ui = useInsightsFixture(server, [BOBS_SECOND]);

beforeAll(() => {
  ({ page, watched, env } = ui);
});

type Interval = 'hour' | 'day' | 'week' | 'month';

const uniqueUsers = (interval: Interval, extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'dau' }],
  interval,
  dateRange: DATE_RANGE,
  ...extra,
});

async function ask(query: Record<string, unknown>) {
  const res = await server.request(`/api/environments/${env}/query/`, { method: 'POST', body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.body.results[0] as { label: string; data: number[]; days: string[] };
}

/** The chart's series as its canvas describes them. */
async function chartSeries(): Promise<Array<{ label: string; data: number[]; days: string[] }>> {
  const canvas = page.getByTestId('trends-chart');
  await canvas.waitFor();
  return JSON.parse((await canvas.getAttribute('data-series'))!);
}

/** Waits until the line shows `expected` (data and days), then checks it is all the chart shows. */
async function expectLine(expected: { label: string; data: number[]; days: string[] }) {
  await expect.poll(async () => (await chartSeries())[0]?.days).toEqual(expected.days);
  await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(expected.data);
  expect(await chartSeries()).toEqual([{ label: expected.label, data: expected.data, days: expected.days }]);
}

/** The 168 local hours of 6–12 Oct, as PostHog names them. */
const HOURS = DAYS.flatMap((day) => Array.from({ length: 24 }, (_, h) => `${day} ${String(h).padStart(2, '0')}:00:00`));

describe('unique users on a line', () => {
  it('counts persons per hour, day, week and month as the query endpoint does and by hand', async () => {
    await page.goto(`${server.url}/project/${env}/insights/new`);
    await page.getByLabel('Date range').first().selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill(DATE_RANGE.date_from);
    await page.getByLabel('To', { exact: true }).fill(DATE_RANGE.date_to);
    await page.getByLabel('Series 1 math').selectOption('dau');

    // By day: alice and bob (three pageviews) on the 6th, alice, carol (two), dave on the 10th and 12th.
    const byDay = await ask(uniqueUsers('day'));
    expect(byDay.days).toEqual(DAYS);
    expect(byDay.data).toEqual([2, 1, 1, 0, 1, 0, 1]);
    await expectLine(byDay);
    await screenshot(page, 'insight-unique-users-day');
    expectNoPageErrors(watched);

    // By hour: one person in each hour with a pageview; bob's two of 12:00 count once.
    const byHour = await ask(uniqueUsers('hour'));
    const seen = ['2025-10-06 01', '2025-10-06 12', '2025-10-07 10', '2025-10-08 14', '2025-10-08 15', '2025-10-10 23', '2025-10-12 23'];
    expect(byHour.days).toEqual(HOURS);
    expect(byHour.data).toEqual(HOURS.map((hour) => (seen.includes(hour.slice(0, 13)) ? 1 : 0)));
    await page.getByLabel('Interval').selectOption('hour');
    await expectLine(byHour);
    await screenshot(page, 'insight-unique-users-hour');

    // By week (Sunday first, the first week whole): 5–11 Oct eve, alice, bob, carol and dave; 12 Oct dave.
    const byWeek = await ask(uniqueUsers('week'));
    expect(byWeek.days).toEqual(['2025-10-05', '2025-10-12']);
    expect(byWeek.data).toEqual([5, 1]);
    await page.getByLabel('Interval').selectOption('week');
    await expectLine(byWeek);

    // By month: October up to the 12th, the same five.
    const byMonth = await ask(uniqueUsers('month'));
    expect(byMonth.days).toEqual(['2025-10-01']);
    expect(byMonth.data).toEqual([5]);
    await page.getByLabel('Interval').selectOption('month');
    await expectLine(byMonth);
    expectNoPageErrors(watched);
  });

  it('counts each person once, on the day first seen, as a cumulative line', async () => {
    await page.getByLabel('Interval').selectOption('day');
    await page.getByLabel('Display').selectOption('ActionsLineGraphCumulative');
    // alice and bob on the 6th, carol on the 8th, dave on the 10th.
    const cumulative = await ask(uniqueUsers('day', { trendsFilter: { display: 'ActionsLineGraphCumulative' } }));
    expect(cumulative.data).toEqual([2, 2, 3, 3, 4, 4, 4]);
    await expectLine(cumulative);
    await screenshot(page, 'insight-unique-users-cumulative');
    expectNoPageErrors(watched);
  });
});
