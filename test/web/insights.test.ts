/**
 * Insights in Chromium against a real Hoglet holding a known fixture (insights-fixture.ts, in
 * Asia/Tokyo): a trends insight built in the page shows, as a line, a number, a table and broken
 * down, the numbers POST /query/ returns for the same query and the ones counted by hand from the
 * fixture; saved, it reopens with the same query, and its rename shows in its history; a funnel
 * built and saved shows the step counts and conversions worked out by hand. No console errors; a
 * screenshot of each page.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot, type WatchedPage } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { countsByDay, DATE_RANGE, DAYS, useInsightsFixture, ZONE } from './insights-fixture.js';

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
  return res.body;
}

const pageviews = (extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total' }],
  interval: 'day',
  dateRange: DATE_RANGE,
  ...extra,
});

/** The chart's series as its canvas describes them, once the query has answered. */
async function chartSeries(): Promise<Array<{ label: string; data: number[]; days: string[] }>> {
  const canvas = page.getByTestId('trends-chart');
  await canvas.waitFor();
  return JSON.parse((await canvas.getAttribute('data-series'))!);
}

/** The funnel trends chart's lines as its canvas describes them, once the query has answered. */
async function funnelTrendLines(): Promise<Array<{ label: string; data: number[]; days: string[] }>> {
  const canvas = page.getByTestId('funnel-trends-chart');
  await canvas.waitFor();
  await settled();
  return JSON.parse((await canvas.getAttribute('data-series'))!);
}

async function settled() {
  await expect.poll(() => page.getByTestId('insight-viz').getAttribute('aria-busy')).toBe('false');
}

/** The trends table as shown: [label, total, ...per day]. */
async function tableRows(): Promise<string[][]> {
  await page.getByTestId('trends-table').waitFor();
  await settled();
  return Promise.all(
    (await page.getByTestId('trends-table-row').all()).map(async (row) => (await row.locator('td').allInnerTexts()).map((t) => t.trim())),
  );
}

/** A text field (Mantine's pickers give their option lists the same label). */
const textbox = (name: string) => page.getByRole('textbox', { name, exact: true });

/** A table as the page shows it: each series' total from `totals`, its dates from `dated`. */
function asTable(totals: any, dated: any): string[][] {
  return dated.results.map((r: any, i: number) => [r.label, String(totals.results[i].aggregated_value), ...r.data.map(String)]);
}

async function setCustomRange() {
  await page.getByLabel('Date range').first().selectOption('custom');
  await page.getByLabel('From', { exact: true }).fill(DATE_RANGE.date_from);
  await page.getByLabel('To', { exact: true }).fill(DATE_RANGE.date_to);
}

describe('trends insight', () => {
  it('shows, as a line, a number and a table, what the query endpoint answers and the fixture gives', async () => {
    await page.goto(`${server.url}/project/${env}/insights`);
    // The environment starts with PostHog's default insights.
    await page.getByTestId('insights-table').waitFor();
    await page.getByRole('link', { name: 'New insight' }).click();
    await page.waitForURL(/\/insights\/new$/);
    await setCustomRange();

    const byHand = countsByDay('$pageview');
    expect(byHand).toEqual([2, 1, 2, 0, 1, 0, 1]);
    const api = await ask(pageviews());
    expect(api.timezone).toBe(ZONE);
    expect(api.results[0].data).toEqual(byHand);
    expect(api.results[0].days).toEqual(DAYS);

    await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(byHand);
    expect(await chartSeries()).toEqual([{ label: '$pageview', data: api.results[0].data, days: api.results[0].days }]);
    expect(await page.getByTestId('series-total').allInnerTexts()).toEqual([String(api.results[0].count)]);
    expect(api.results[0].count).toBe(7);
    expect(await page.getByTestId('insight-viz').getAttribute('data-timezone')).toBe(ZONE);
    await screenshot(page, 'insight-trends-line');
    expectNoPageErrors(watched);

    await page.getByLabel('Display').selectOption('ActionsLineGraphCumulative');
    const cumulative = await ask(pageviews({ trendsFilter: { display: 'ActionsLineGraphCumulative' } }));
    const runningByHand = byHand.map((_, i) => byHand.slice(0, i + 1).reduce((a, b) => a + b, 0));
    expect(runningByHand).toEqual([2, 3, 5, 5, 6, 6, 7]);
    expect(cumulative.results[0].data).toEqual(runningByHand);
    await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(cumulative.results[0].data);
    await screenshot(page, 'insight-trends-cumulative');

    await page.getByLabel('Display').selectOption('BoldNumber');
    const number = await ask(pageviews({ trendsFilter: { display: 'BoldNumber' } }));
    expect(number.results[0].aggregated_value).toBe(7);
    await expect.poll(() => page.getByTestId('bold-number-value').innerText()).toBe(String(number.results[0].aggregated_value));
    await screenshot(page, 'insight-trends-number');

    await page.getByLabel('Display').selectOption('ActionsTable');
    const table = await ask(pageviews({ trendsFilter: { display: 'ActionsTable' } }));
    // The total over the range (aggregated_value), then the dates of the same query as a line.
    await expect.poll(tableRows).toEqual(asTable(table, api));
    expect(await tableRows()).toEqual([['$pageview', '7', ...byHand.map(String)]]);
    await screenshot(page, 'insight-trends-table');
    expectNoPageErrors(watched);
  });

  it('breaks down by an event property, saves, and reopens with the same query', async () => {
    await textbox('Breakdown by').fill('$browser');
    await textbox('Breakdown by').press('Enter');
    await textbox('Breakdown by').press('Escape');
    const query = pageviews({
      trendsFilter: { display: 'ActionsTable' },
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
    });
    const api = await ask(query);
    // By hand: Chrome 4 (alice twice, dave twice), Firefox 3 (bob, carol twice).
    const chrome = countsByDay('$pageview', (e) => e.properties.$browser === 'Chrome');
    const firefox = countsByDay('$pageview', (e) => e.properties.$browser === 'Firefox');
    const byHand = [
      ['$pageview - Chrome', '4', ...chrome.map(String)],
      ['$pageview - Firefox', '3', ...firefox.map(String)],
    ];
    const dated = await ask({ ...query, trendsFilter: { display: 'ActionsLineGraph' } });
    expect(asTable(api, dated)).toEqual(byHand);
    await expect.poll(tableRows).toEqual(byHand);

    // One value shown: Chrome, and Firefox's pageviews as "other"; cleared, the default again.
    await textbox('Values shown').fill('1');
    const one = { ...query, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 1 } };
    const oneApi = await ask(one);
    expect(oneApi.results.map((r: any) => [r.breakdown_value, r.aggregated_value])).toEqual([
      ['Chrome', 4],
      ['$$_posthog_breakdown_other_$$', 3],
    ]);
    // The page names PostHog's "other" marker in words.
    const oneRows = asTable(oneApi, await ask({ ...one, trendsFilter: { display: 'ActionsLineGraph' } })).map(([label, ...cells]) => [
      label!.replace('$$_posthog_breakdown_other_$$', 'Other'),
      ...cells,
    ]);
    await expect.poll(tableRows).toEqual(oneRows);
    await textbox('Values shown').fill('');
    await expect.poll(tableRows).toEqual(byHand);

    await page.getByLabel('Name').fill('Pageviews by browser');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL(/\/insights\/[A-Za-z0-9]{8}$/);
    const shortId = page.url().split('/').pop()!;
    await expect.poll(() => page.getByTestId('insight-title').innerText()).toBe('Pageviews by browser');
    const saved = await server.request(`/api/environments/${env}/insights/?short_id=${shortId}`);
    expect(saved.body.results).toHaveLength(1);
    expect(saved.body.results[0].query).toEqual({ kind: 'InsightVizNode', source: query });

    await page.reload();
    await expect.poll(tableRows).toEqual(byHand);
    expect(await textbox('Breakdown by').inputValue()).toBe('$browser');
    expect(await page.getByLabel('Display').inputValue()).toBe('ActionsTable');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(DATE_RANGE.date_from);
    await screenshot(page, 'insight-saved');
    expectNoPageErrors(watched);

    await page.goto(`${server.url}/project/${env}/insights`);
    await page.getByLabel('Search').fill('by browser');
    await expect.poll(() => page.getByTestId('insight-row').allInnerTexts()).toEqual([expect.stringContaining('Pageviews by browser')]);
    await screenshot(page, 'insights-list');
    await page.getByRole('link', { name: 'Pageviews by browser' }).click();
    await page.waitForURL(new RegExp(`/insights/${shortId}$`));
    await expect.poll(tableRows).toEqual(byHand);
    expectNoPageErrors(watched);
  });

  it('shows its rename in its change history', async () => {
    await page.getByLabel('Name').fill('Pageviews per browser');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByTestId('insight-title').innerText()).toBe('Pageviews per browser');
    const history = page.getByTestId('insight-history');
    await expect
      .poll(() => history.getByTestId('history-change').allInnerTexts())
      .toContainEqual(expect.stringMatching(/Changed name from Pageviews by browser to Pageviews per browser/));
    await expect.poll(() => history.getByTestId('history-entry').last().innerText()).toContain('Created the insight');
    await screenshot(page, 'insight-history');
    expectNoPageErrors(watched);
  });

  it('compares with the previous period', async () => {
    await page.getByLabel('Display').selectOption('BoldNumber');
    await textbox('Breakdown by').fill('');
    await textbox('Breakdown by').press('Enter');
    await textbox('Breakdown by').press('Escape');
    await page.getByLabel('Compare to previous period').check();
    const api = await ask(pageviews({ compareFilter: { compare: true }, trendsFilter: { display: 'BoldNumber' } }));
    const previous = api.results.find((r: any) => r.compare_label === 'previous');
    // By hand: the 7 days before (29 Sep – 5 Oct local) hold only eve's pageview of 5 Oct 23:00.
    expect(previous.aggregated_value).toBe(1);
    await expect.poll(() => page.getByTestId('bold-number-change').innerText()).toBe('▲ 600.0% from 1 the period before');
    expect(await page.getByTestId('bold-number-value').innerText()).toBe('7');

    await page.getByLabel('Display').selectOption('ActionsLineGraph');
    const line = await ask(pageviews({ compareFilter: { compare: true }, trendsFilter: { display: 'ActionsLineGraph' } }));
    expect(line.results.map((r: any) => r.count)).toEqual([7, 1]);
    await expect.poll(async () => (await chartSeries()).map((s) => s.data)).toEqual(line.results.map((r: any) => r.data));
    await settled();
    expect((await chartSeries()).map((s) => s.label)).toEqual(['$pageview', '$pageview (previous)']);
    expect(await page.getByTestId('series-total').allInnerTexts()).toEqual(['7', '1']);
    await screenshot(page, 'insight-compare');
    expectNoPageErrors(watched);
  });

  it('buckets by hour, week and month as the query endpoint does', async () => {
    await page.goto(`${server.url}/project/${env}/insights/new`);
    await setCustomRange();
    await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(countsByDay('$pageview'));

    // By hand: as PostHog, the first bucket is whole (its start before date_from), so the week of
    // Sunday 5 Oct holds eve's pageview of that day with 6 of the range's, the week of 12 Oct the last.
    const byWeek = await ask(pageviews({ interval: 'week' }));
    expect(byWeek.results[0].data).toEqual([7, 1]);
    await page.getByLabel('Interval').selectOption('week');
    await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(byWeek.results[0].data);
    expect((await chartSeries())[0]?.days).toEqual(byWeek.results[0].days);

    const byMonth = await ask(pageviews({ interval: 'month' }));
    expect(byMonth.results[0].data).toEqual([8]);
    await page.getByLabel('Interval').selectOption('month');
    await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(byMonth.results[0].data);

    // 7 days of hours; each pageview in the hour of its local time.
    const byHour = await ask(pageviews({ interval: 'hour' }));
    expect(byHour.results[0].data).toHaveLength(7 * 24);
    expect(byHour.results[0].data.reduce((a: number, b: number) => a + b, 0)).toBe(7);
    await page.getByLabel('Interval').selectOption('hour');
    await expect.poll(async () => (await chartSeries())[0]?.data).toEqual(byHour.results[0].data);
    await screenshot(page, 'insight-trends-by-hour');
    expectNoPageErrors(watched);
  });

  it("shows the server's error for a query it refuses", async () => {
    await page.getByLabel('Series 1 math').selectOption('sum');
    await textbox('Series 1 math property').fill('$session_duration');
    await textbox('Series 1 math property').press('Enter');
    await textbox('Series 1 math property').press('Escape');
    const res = await server.request(`/api/environments/${env}/query/`, {
      method: 'POST',
      body: { query: pageviews({ series: [{ kind: 'EventsNode', event: '$pageview', math: 'sum', math_property: '$session_duration' }] }) },
    });
    expect(res.status).toBe(400);
    await expect.poll(() => page.getByRole('alert').allInnerTexts()).toContainEqual(expect.stringContaining(res.body.detail));
    expectNoPageErrors(watched, [400]);
  });

  it('filters globally and per series, with a second series and its math', async () => {
    await page.goto(`${server.url}/project/${env}/insights/new`);
    await setCustomRange();
    await page.getByLabel('Display').selectOption('ActionsTable');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await textbox('Filter 1 property').fill('$browser');
    await textbox('Filter 1 property').press('Enter');
    await textbox('Filter 1 property').press('Escape');
    await textbox('Filter 1 value').fill('Firefox');
    await textbox('Filter 1 value').press('Enter');
    const firefox = { key: '$browser', operator: 'exact', value: 'Firefox', type: 'event' };
    const filtered = await ask(pageviews({ properties: [firefox] }));
    const firefoxByHand = countsByDay('$pageview', (e) => e.properties.$browser === 'Firefox');
    expect(filtered.results[0].data).toEqual(firefoxByHand);
    await expect.poll(tableRows).toEqual([['$pageview', '3', ...firefoxByHand.map(String)]]);

    // The filter moved onto the series, a second series of unique signed-up persons beside it.
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByRole('button', { name: 'Add filter' }).first().click();
    await textbox('Series 1 filter 1 property').fill('$browser');
    await textbox('Series 1 filter 1 property').press('Enter');
    await textbox('Series 1 filter 1 property').press('Escape');
    await page.getByLabel('Series 1 filter 1 operator').selectOption('is_not');
    await textbox('Series 1 filter 1 value').fill('Firefox');
    await textbox('Series 1 filter 1 value').press('Enter');
    await page.getByRole('button', { name: 'Add series' }).click();
    await textbox('Series 2 event').click();
    await textbox('Series 2 event').fill('signed_up');
    await page.getByRole('option', { name: 'signed_up', exact: true }).click();
    await page.getByLabel('Series 2 math').selectOption('dau');
    const seriesQuery = pageviews({
      series: [
        { kind: 'EventsNode', event: '$pageview', math: 'total', properties: [{ ...firefox, operator: 'is_not' }] },
        { kind: 'EventsNode', event: 'signed_up', math: 'dau' },
      ],
    });
    const api = await ask(seriesQuery);
    const chromeByHand = countsByDay('$pageview', (e) => e.properties.$browser !== 'Firefox');
    // By hand: alice signs up on 7 Oct, bob on 8 Oct, carol on 10 Oct: one person each.
    const signupsByHand = countsByDay('signed_up');
    expect(api.results.map((r: any) => r.data)).toEqual([chromeByHand, signupsByHand]);
    await expect.poll(tableRows).toEqual([
      ['$pageview', '4', ...chromeByHand.map(String)],
      ['signed_up', '3', ...signupsByHand.map(String)],
    ]);
    await screenshot(page, 'insight-trends-filters');

    await page.getByLabel('Display').selectOption('ActionsBarValue');
    const totals = await ask({ ...seriesQuery, trendsFilter: { display: 'ActionsBarValue' } });
    const bars = page.getByTestId('trends-bar-value');
    await expect
      .poll(async () => JSON.parse((await bars.getAttribute('data-series')) ?? 'null'))
      .toEqual(totals.results.map((r: any) => ({ label: r.label, value: r.aggregated_value })));
    // By hand: 4 pageviews not from Firefox; alice, bob and carol signed up.
    expect(totals.results.map((r: any) => r.aggregated_value)).toEqual([4, 3]);

    // A pie: a slice per series of the same totals (the answer has no points to draw a line through).
    await page.getByLabel('Display').selectOption('ActionsPie');
    const pie = page.getByTestId('trends-pie');
    await expect
      .poll(async () => JSON.parse((await pie.getAttribute('data-series')) ?? 'null'))
      .toEqual(totals.results.map((r: any) => ({ label: r.label, value: r.aggregated_value })));
    await screenshot(page, 'insight-pie');
    expectNoPageErrors(watched);
  });

  it("opens the environment's default insights as they were saved", async () => {
    await page.goto(`${server.url}/project/${env}/insights`);
    await page.getByRole('link', { name: 'Referring domain (last 14 days)' }).click();
    await page.getByTestId('insight-viz').waitFor();
    expect(await page.getByLabel('Display').inputValue()).toBe('ActionsBarValue');
    expect(await page.getByLabel('Series 1 math').inputValue()).toBe('dau');
    expect(await textbox('Breakdown by').inputValue()).toBe('$referring_domain');
    await screenshot(page, 'insight-default');
    expectNoPageErrors(watched);
  });
});

describe('funnel insight', () => {
  it('shows the step counts and conversions worked out by hand, saved and reopened', async () => {
    await page.goto(`${server.url}/project/${env}/insights/new`);
    await page.getByText('Funnels', { exact: true }).click();
    await page.getByTestId('funnels-editor').waitFor();
    await setCustomRange();
    await textbox('Step 2 event').click();
    await textbox('Step 2 event').fill('signed_up');
    await page.getByRole('option', { name: 'signed_up', exact: true }).click();
    await page.getByRole('button', { name: 'Add step' }).click();
    await textbox('Step 3 event').click();
    await textbox('Step 3 event').fill('purchased');
    await page.getByRole('option', { name: 'purchased', exact: true }).click();

    const query = {
      kind: 'FunnelsQuery',
      series: ['$pageview', 'signed_up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
      dateRange: DATE_RANGE,
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'steps', funnelOrderType: 'ordered' },
    };
    const api = await ask(query);
    // By hand (insights-fixture.ts): 4 persons viewed, 3 of them signed up, 2 of those purchased.
    expect(api.results.map((s: any) => s.count)).toEqual([4, 3, 2]);
    const counts = () => page.getByTestId('funnel-count').allInnerTexts();
    await expect.poll(counts).toEqual(api.results.map((s: any) => String(s.count)));
    expect(await page.getByTestId('funnel-conversion').allInnerTexts()).toEqual(['100.0%', '75.0%', '50.0%']);
    expect(await page.getByTestId('funnel-from-previous').allInnerTexts()).toEqual(['75.0%', '66.7%']);
    const table = await page
      .getByTestId('funnel-table-row')
      .evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td')).map((td: any) => (td.textContent ?? '').trim())));
    expect(table.map((row) => row.slice(0, 5))).toEqual([
      ['1. $pageview', '4', '100.0%', '', ''],
      ['2. signed_up', '3', '75.0%', '75.0%', '1'],
      ['3. purchased', '2', '50.0%', '66.7%', '1'],
    ]);
    await screenshot(page, 'insight-funnel');

    await page.getByLabel('Name').fill('Signup funnel');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL(/\/insights\/[A-Za-z0-9]{8}$/);
    const shortId = page.url().split('/').pop()!;
    const saved = await server.request(`/api/environments/${env}/insights/?short_id=${shortId}`);
    expect(saved.body.results[0].query).toEqual({ kind: 'InsightVizNode', source: query });
    await page.reload();
    // The app loads again and asks for the insight and its query: wait for the steps, not a second.
    await page.getByTestId('funnel-count').first().waitFor();
    await expect.poll(counts).toEqual(['4', '3', '2']);
    expect(await textbox('Step 3 event').inputValue()).toBe('purchased');
    expectNoPageErrors(watched);
  });

  it('shows the time to convert as the server answers it', async () => {
    await page.getByLabel('View').selectOption('time_to_convert');
    const api = await ask({
      kind: 'FunnelsQuery',
      series: ['$pageview', 'signed_up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
      dateRange: DATE_RANGE,
      funnelsFilter: {
        funnelWindowInterval: 14,
        funnelWindowIntervalUnit: 'day',
        funnelVizType: 'time_to_convert',
        funnelOrderType: 'ordered',
      },
    });
    // By hand: alice's quickest attempt takes 1 h (7 Oct 01:00 → 02:00 UTC), carol's 43 h (8 Oct 06:00 → 10 Oct 01:00).
    expect(api.results.average_conversion_time).toBe((3600 + 43 * 3600) / 2);
    const bins = page.getByTestId('time-to-convert').locator('canvas');
    await expect.poll(async () => JSON.parse((await bins.getAttribute('data-bins')) ?? 'null')).toEqual(api.results.bins);
    expect(await page.getByTestId('average-conversion-time').innerText()).toBe('22h 0m');
    // The per-step times of the steps answer, under it.
    await expect.poll(() => page.getByTestId('funnel-table-row').count()).toBe(3);
    await screenshot(page, 'insight-time-to-convert');
    expectNoPageErrors(watched);
  });

  it("breaks the funnel down by the first step's property", async () => {
    await page.getByLabel('View').selectOption('steps');
    await textbox('Breakdown by').fill('$browser');
    await textbox('Breakdown by').press('Enter');
    await textbox('Breakdown by').press('Escape');
    const api = await ask({
      kind: 'FunnelsQuery',
      series: ['$pageview', 'signed_up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
      dateRange: DATE_RANGE,
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'steps', funnelOrderType: 'ordered' },
    });
    // By hand, by the browser of each person's first pageview: Chrome alice (all three) and dave
    // (the first only); Firefox bob (two) and carol (all three).
    const byHand = { Chrome: [2, 1, 1], Firefox: [2, 2, 1] };
    expect(Object.fromEntries(api.results.map((steps: any[]) => [steps[0].breakdown_value[0], steps.map((s) => s.count)]))).toEqual(byHand);
    const bars = async () =>
      page.getByTestId('funnel-bar').evaluateAll((rows) => rows.map((row: any) => [row.dataset.breakdown, Number(row.dataset.count)]));
    // Per step, a bar per browser, in the answer's order.
    const expected = [0, 1, 2].flatMap((i) => api.results.map((steps: any[]) => [steps[i].breakdown_value[0], steps[i].count]));
    await expect.poll(bars).toEqual(expected);
    expect(await page.getByTestId('funnel-from-previous').allInnerTexts()).toEqual(['50.0%', '100.0%', '100.0%', '50.0%']);
    await screenshot(page, 'insight-funnel-breakdown');
    expectNoPageErrors(watched);
  });

  it('shows the historical trends, a line per breakdown value', async () => {
    await page.getByLabel('View').selectOption('trends');
    const api = await ask({
      kind: 'FunnelsQuery',
      series: ['$pageview', 'signed_up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
      dateRange: DATE_RANGE,
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'trends', funnelOrderType: 'ordered' },
    });
    // By hand, by the local day of each first step: Chrome alice on 6 Oct and again on 7 Oct (both
    // converted), dave on 10 and 12 Oct (did not); Firefox bob on 6 Oct (signed up only), carol on 8 Oct.
    const byHand = [
      { label: 'Chrome', data: [100, 100, 0, 0, 0, 0, 0], days: DAYS },
      { label: 'Firefox', data: [0, 0, 100, 0, 0, 0, 0], days: DAYS },
    ];
    expect(api.results.map((r: any) => ({ label: r.breakdown_value[0], data: r.data, days: r.days }))).toEqual(byHand);
    await expect.poll(funnelTrendLines).toEqual(byHand);
    expect(await page.getByTestId('funnel-trend-row').evaluateAll((rows) => rows.map((r: any) => r.dataset.label))).toEqual([
      'Chrome',
      'Firefox',
    ]);
    expect(await page.getByTestId('funnel-steps').count()).toBe(0);
    await screenshot(page, 'insight-funnel-trends');
    expectNoPageErrors(watched);
  });

  it('deletes the funnel after asking', async () => {
    const shortId = page.url().split('/').pop()!;
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete insight' }).click();
    await page.waitForURL(/\/insights$/);
    await page.getByTestId('insights-table').waitFor();
    await expect
      .poll(async () => (await page.getByTestId('insight-row').allInnerTexts()).some((row) => row.includes('Signup funnel')))
      .toBe(false);
    const gone = await server.request(`/api/environments/${env}/insights/?short_id=${shortId}`);
    expect(gone.body.results).toEqual([]);
    expectNoPageErrors(watched);
  });

  it("opens a funnel's historical trends from its address, by the interval it asks", async () => {
    const source = {
      kind: 'FunnelsQuery',
      series: ['$pageview', 'signed_up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
      dateRange: DATE_RANGE,
      interval: 'week',
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'trends', funnelOrderType: 'ordered' },
    };
    await page.goto(`${server.url}/project/${env}/insights/new#q=${encodeURIComponent(JSON.stringify(source))}`);
    // By hand: the week of Sunday 5 Oct holds eve (5 Oct, viewed only), alice, bob, carol and dave
    // (10 Oct): alice and carol converted, 2 of 5; the week of 12 Oct dave again, who did not.
    const byWeek = await ask(source);
    expect(byWeek.results).toEqual([
      { count: 2, data: [40, 0], days: ['2025-10-05', '2025-10-12'], labels: ['5-Oct-2025', '12-Oct-2025'] },
    ]);
    await expect.poll(funnelTrendLines).toEqual([{ label: 'Conversion rate', data: [40, 0], days: ['2025-10-05', '2025-10-12'] }]);
    expect(await page.getByLabel('View').inputValue()).toBe('trends');
    expect(await page.getByLabel('Interval').inputValue()).toBe('week');
    expect(await page.getByTestId('funnel-steps').count()).toBe(0);

    // By day: alice converts from 6 and 7 Oct, bob (6 Oct) does not, carol (8 Oct) does, dave never.
    await page.getByLabel('Interval').selectOption('day');
    const byDay = await ask({ ...source, interval: 'day' });
    expect(byDay.results[0].data).toEqual([50, 100, 100, 0, 0, 0, 0]);
    await expect.poll(funnelTrendLines).toEqual([{ label: 'Conversion rate', data: byDay.results[0].data, days: DAYS }]);
    await screenshot(page, 'insight-funnel-trends-from-address');

    // To the second step: alice and bob sign up from 6 Oct, alice from 7 Oct, carol from 8 Oct;
    // dave never does.
    expect(await page.getByLabel('To step').inputValue()).toBe('2');
    await page.getByLabel('To step').selectOption({ label: '2. signed_up' });
    const toSignup = await ask({ ...source, interval: 'day', funnelsFilter: { ...source.funnelsFilter, funnelToStep: 1 } });
    expect(toSignup.results[0].data).toEqual([100, 100, 100, 0, 0, 0, 0]);
    await expect.poll(funnelTrendLines).toEqual([{ label: 'Conversion rate', data: [100, 100, 100, 0, 0, 0, 0], days: DAYS }]);
    // The from step cannot follow the to step: choosing the second moves the to step on.
    await page.getByLabel('From step').selectOption({ label: '2. signed_up' });
    expect(await page.getByLabel('To step').inputValue()).toBe('2');
    expectNoPageErrors(watched);
  });
});

describe('the pickers of another environment of the project', () => {
  it("offer the project's events and properties, its own and the first environment's", async () => {
    const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
      method: 'POST',
      body: { name: 'Second' },
    });
    expect(created.status, created.text).toBe(201);
    const second = created.body.id as number;
    const sent = await server.request('/batch/', {
      method: 'POST',
      key: null,
      body: {
        api_key: created.body.api_token,
        batch: [{ event: 'only in second', distinct_id: 'second-user', properties: { second_only_prop: 'x' } }],
      },
    });
    expect(sent.status, sent.text).toBe(200);
    await server.settle();

    await page.goto(`${server.url}/project/${second}/insights/new`);
    await textbox('Series 1 event').click();
    await page.getByRole('option', { name: 'only in second' }).waitFor();
    // Definitions are the project's (PostHog's): the first environment's events (the fixture's) too.
    expect(await page.getByRole('option', { name: 'signed_up' }).count()).toBe(1);
    await page.getByRole('option', { name: 'only in second' }).click();
    await textbox('Breakdown by').click();
    await textbox('Breakdown by').fill('second_only');
    await page.getByRole('option', { name: 'second_only_prop' }).waitFor();
    await screenshot(page, 'insight-second-environment-pickers');
    expectNoPageErrors(watched);
  });
});
