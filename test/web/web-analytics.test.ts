/**
 * The web analytics page in Chromium against a server holding the hand-computed fixture
 * (test/web-analytics/fixture.ts): the tiles, tables and web vitals show what the query endpoint
 * answers (and what the fixture's comment works out); the path, country and device filters and
 * the date range (PostHog's presets or custom dates), kept in the address, apply to every tile; a
 * clicked row sets its filter and clicked again clears it. No console errors; a screenshot.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { screenshot, unexpectedErrors } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { useSignedIn } from './signed-in.js';
import { DATE_RANGE, webFixture, ZONE } from '../web-analytics/fixture.js';

const server = useTestServer();
const ui = useSignedIn(server);

beforeAll(async () => {
  const zone = await server.request(`/api/environments/${ui.env}/`, { method: 'PATCH', body: { timezone: ZONE } });
  expect(zone.status).toBe(200);
  await server.ingest(webFixture());
});

function expectNoErrors() {
  expect(unexpectedErrors(ui.watched)).toEqual([]);
  expect(ui.watched.dialogs).toEqual([]);
  ui.watched.errors.length = 0;
}

async function ask(query: Record<string, unknown>) {
  const res = await server.request(`/api/environments/${ui.env}/query/`, {
    method: 'POST',
    body: { query: { dateRange: DATE_RANGE, ...query } },
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** The page's tiles, once shown: key → [value text, change text]. */
async function tiles(): Promise<Record<string, [string, string]>> {
  const overview = ui.page.getByTestId('web-overview');
  await overview.locator('[data-testid^="tile-"]').first().waitFor();
  await expect.poll(() => overview.getAttribute('aria-busy')).toBe('false');
  const shown: Record<string, [string, string]> = {};
  for (const tile of await overview
    .locator('[data-testid^="tile-"]:not([data-testid="tile-value"]):not([data-testid="tile-change"])')
    .all()) {
    const key = (await tile.getAttribute('data-testid'))!.slice('tile-'.length);
    const change = tile.getByTestId('tile-change');
    shown[key] = [
      (await tile.getByTestId('tile-value').innerText()).trim(),
      (await change.count()) ? (await change.innerText()).trim() : '',
    ];
  }
  return shown;
}

/** A table's rows as shown: [value, visitors, views]. */
async function tableRows(breakdownBy: string): Promise<string[][]> {
  const table = ui.page.getByTestId(`table-${breakdownBy}`);
  await expect.poll(() => table.getAttribute('aria-busy')).toBe('false');
  return Promise.all(
    (await table.locator('tbody tr').all()).map(async (row) => (await row.locator('td').allInnerTexts()).map((t) => t.trim())),
  );
}

const range = `from=${DATE_RANGE.date_from}&to=${DATE_RANGE.date_to}`;

describe('web analytics page', () => {
  it('shows the numbers the query endpoint returns for the fixture', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
    await ui.page.getByRole('heading', { name: 'Web analytics' }).waitFor();
    const api = await ask({ kind: 'WebOverviewQuery', compareFilter: { compare: true } });
    const byKey = Object.fromEntries(api.results.map((r: any) => [r.key.replace(' ', '-'), r]));
    // The API's numbers are the fixture's, worked out by hand.
    expect([byKey.visitors.value, byKey.views.value, byKey.sessions.value]).toEqual([2, 4, 3]);
    const shown = await tiles();
    expect(shown).toEqual({
      visitors: ['2', '= 0%'],
      views: ['4', '▲ 33%'],
      sessions: ['3', '▲ 50%'],
      'session-duration': [`${Math.round(byKey['session-duration'].value)}s`, '▼ 44%'],
      'bounce-rate': [`${byKey['bounce-rate'].value.toFixed(1)}%`, '▼ 33%'],
    });
    expect(shown['session-duration']![0]).toBe('17s');
    expect(shown['bounce-rate']![0]).toBe('33.3%');
    // A fall in bounce rate is good news: green; a fall in duration is not: red.
    const colour = (key: string) =>
      ui.page
        .getByTestId(`tile-${key}`)
        .getByTestId('tile-change')
        .evaluate((el) => (globalThis as any).getComputedStyle(el).color);
    expect(await colour('bounce-rate')).not.toBe(await colour('session-duration'));

    const pages = await ask({ kind: 'WebStatsTableQuery', breakdownBy: 'Page', limit: 10 });
    expect(await tableRows('Page')).toEqual(pages.results.map((r: any) => [r[0], String(r[1][0]), String(r[2][0])]));
    expect(await tableRows('Page')).toEqual([
      ['/', '2', '2'],
      ['/blog', '1', '1'],
      ['/pricing', '1', '1'],
    ]);
    expect(await tableRows('InitialChannelType')).toEqual([
      ['Organic Search', '1', '2'],
      ['Direct', '1', '1'],
      ['Organic Social', '1', '1'],
    ]);
    for (const breakdownBy of ['InitialPage', 'InitialReferringDomain', 'Country', 'Browser', 'DeviceType', 'OS']) {
      const answer = await ask({ kind: 'WebStatsTableQuery', breakdownBy, limit: 10 });
      expect(await tableRows(breakdownBy), breakdownBy).toEqual(answer.results.map((r: any) => [r[0], String(r[1][0]), String(r[2][0])]));
    }

    const vitals = ui.page.getByTestId('web-vitals');
    await expect.poll(() => vitals.getAttribute('aria-busy')).toBe('false');
    const home = vitals.locator('tr[data-path="/"]');
    const cell = (metric: string) => home.locator(`td[data-metric="${metric}"]`);
    expect(await cell('LCP p75').innerText()).toBe('4.00s');
    expect(await cell('LCP p75').getAttribute('data-band')).toBe('needs_improvements');
    expect(await cell('LCP p90').innerText()).toBe('4.60s');
    expect(await cell('LCP p90').getAttribute('data-band')).toBe('poor');
    expect(await cell('CLS p75').innerText()).toBe('0.050');
    expect(await cell('CLS p75').getAttribute('data-band')).toBe('good');
    expect(await vitals.locator('tr[data-path="/pricing"] td[data-metric="LCP p75"]').getAttribute('data-band')).toBe('good');
    expect(await cell('LCP p90').evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor)).not.toBe(
      await cell('CLS p75').evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor),
    );
    await screenshot(ui.page, 'web-analytics');
    expectNoErrors();
  });

  it('asks each of its queries once, though their answers arrive before the page mounts', async () => {
    // The page's code is held back until every query it started at navigation has its answer, so
    // the page mounts onto answered queries: it must use them, not ask again.
    const bodies: string[] = [];
    let answered = 0;
    let allAnswered!: () => void;
    const answers = new Promise<void>((resolve) => (allAnswered = resolve));
    const isQuery = (request: { url(): string; method(): string }) =>
      request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/query/');
    const sent = (request: { url(): string; method(): string; postData(): string | null }) => {
      if (isQuery(request)) bodies.push(request.postData() ?? '');
    };
    const finished = (request: { url(): string; method(): string }) => {
      if (isQuery(request) && ++answered === bodies.length) allAnswered();
    };
    ui.page.on('request', sent);
    ui.page.on('requestfinished', finished);
    await ui.page.route('**/app-assets/WebAnalyticsPage-*.js', async (route) => {
      await answers;
      await route.continue();
    });
    try {
      await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
      await ui.page.getByTestId('tile-visitors').waitFor();
      await expect.poll(() => ui.page.getByTestId('web-vitals').getAttribute('aria-busy')).toBe('false');
      await expect.poll(() => ui.page.locator('[aria-busy="true"]').count()).toBe(0);
    } finally {
      ui.page.off('request', sent);
      ui.page.off('requestfinished', finished);
      await ui.page.unroute('**/app-assets/WebAnalyticsPage-*.js');
    }
    const kinds = bodies.map((b) => (JSON.parse(b) as { query: { kind: string } }).query.kind);
    expect(new Set(kinds)).toEqual(new Set(['WebOverviewQuery', 'WebStatsTableQuery', 'WebVitalsPathBreakdownQuery']));
    expect(bodies.length).toBe(new Set(bodies).size);
    expectNoErrors();
  });

  it('applies the path, country and device filters to every tile, kept in the address', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
    await tiles();
    // The device type is picked from PostHog's values, not typed.
    await ui.page.getByRole('textbox', { name: 'Device type' }).click();
    expect(await ui.page.getByRole('listbox').getByRole('option').allTextContents()).toEqual(['Desktop', 'Mobile', 'Tablet']);
    await ui.page.getByRole('option', { name: 'Mobile' }).click();
    await ui.page.waitForURL(/device=Mobile/);
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('1');
    expect((await tiles()).visitors?.[0]).toBe('1');
    await ui.page.reload();
    await expect.poll(() => ui.page.getByRole('textbox', { name: 'Device type' }).inputValue()).toBe('Mobile');
    expect(await tableRows('Page')).toEqual([['/', '1', '1']]);
    expect(await tableRows('Country')).toEqual([['DE', '1', '1']]);
    // The vitals are all from a desktop: none left.
    await expect.poll(() => ui.page.getByTestId('web-vitals').locator('tbody tr').count()).toBe(0);

    // The address carries the filters: a fresh load with country and path shows the same as the API.
    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}&country=US&path=%2Fpricing`);
    await expect.poll(() => ui.page.getByLabel('Country code').inputValue()).toBe('US');
    await expect.poll(() => ui.page.getByRole('textbox', { name: 'Device type' }).inputValue()).toBe('');
    const filtered = await ask({
      kind: 'WebOverviewQuery',
      properties: [
        { key: '$pathname', value: '/pricing', operator: 'exact', type: 'event' },
        { key: '$geoip_country_code', value: 'US', operator: 'exact', type: 'event' },
      ],
    });
    const views = filtered.results.find((r: any) => r.key === 'views').value;
    expect(views).toBe(1);
    await expect.poll(async () => (await tiles()).views?.[0]).toBe(String(views));
    expect(await tableRows('Page')).toEqual([['/pricing', '1', '1']]);
    expect(await tableRows('InitialPage')).toEqual([['/', '1', '1']]);
    await screenshot(ui.page, 'web-analytics-filtered');

    // Another range: nothing before the fixture's first day.
    await ui.page.getByLabel('From', { exact: true }).fill('2025-10-14');
    await ui.page.getByLabel('To', { exact: true }).fill('2025-10-20');
    await ui.page.waitForURL((url) => url.searchParams.get('from') === '2025-10-14' && url.searchParams.get('to') === '2025-10-20');
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('0');
    // 0 before and 0 now is no change, not missing data; no duration at all is.
    const empty = await ask({ kind: 'WebOverviewQuery', dateRange: { date_from: '2025-10-14', date_to: '2025-10-20' } });
    const emptyViews = empty.results.find((r: any) => r.key === 'views');
    expect([emptyViews.value, emptyViews.previous, emptyViews.changeFromPreviousPct]).toEqual([0, 0, null]);
    expect((await tiles()).views).toEqual(['0', 'no change']);
    expect((await tiles())['session-duration']?.[1]).toBe('no previous data');
    expectNoErrors();
  });

  it('sets the path, country or device filter from a clicked row, and every tile follows', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
    expect((await tiles()).views?.[0]).toBe('4');
    const value = (breakdownBy: string, name: string) =>
      ui.page.getByTestId(`table-${breakdownBy}`).getByRole('button', { name, exact: true });

    await value('Page', '/pricing').click();
    await ui.page.waitForURL(/path=%2Fpricing/);
    await expect.poll(() => ui.page.getByLabel('Path').inputValue()).toBe('/pricing');
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('1');
    await expect.poll(() => tableRows('Page')).toEqual([['/pricing', '1', '1']]);
    await expect.poll(() => tableRows('Country')).toEqual([['US', '1', '1']]);

    // Another filter is added beside the first one.
    await value('Country', 'US').click();
    await ui.page.waitForURL((url) => url.searchParams.get('country') === 'US' && url.searchParams.get('path') === '/pricing');
    await expect.poll(() => ui.page.getByLabel('Country code').inputValue()).toBe('US');

    // An entry page sets the path too, in place of the one set.
    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
    await value('InitialPage', '/blog').click();
    await ui.page.waitForURL(/path=%2Fblog/);
    await expect.poll(() => ui.page.getByLabel('Path').inputValue()).toBe('/blog');
    await expect.poll(() => tableRows('InitialPage')).toEqual([['/blog', '1', '1']]);
    await expect.poll(async () => (await tiles()).sessions?.[0]).toBe('1');

    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
    await value('DeviceType', 'Mobile').click();
    await ui.page.waitForURL(/device=Mobile/);
    await expect.poll(() => ui.page.getByRole('textbox', { name: 'Device type' }).inputValue()).toBe('Mobile');
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('1');
    await expect.poll(() => tableRows('Page')).toEqual([['/', '1', '1']]);
    await expect.poll(() => tableRows('Country')).toEqual([['DE', '1', '1']]);
    // Only the page's own filters are offered: a browser is not a filter here.
    expect(await ui.page.getByTestId('table-Browser').getByRole('button').count()).toBe(0);
    expectNoErrors();
  });

  it('says once what is wrong with a range it cannot use, and asks nothing until it is fixed', async () => {
    const bodies: string[] = [];
    const sent = (request: { url(): string; method(): string; postData(): string | null }) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/query/')) bodies.push(request.postData() ?? '');
    };
    const picker = ui.page.getByLabel('Date range', { exact: true });
    const from = ui.page.getByLabel('From', { exact: true });
    const to = ui.page.getByLabel('To', { exact: true });
    ui.page.on('request', sent);
    try {
      await ui.page.goto(`${server.url}/project/${ui.env}/web?from=nonsense`);
      const problem = ui.page.getByTestId('web-range-problem');
      await problem.waitFor();
      expect(await problem.innerText()).toContain('"nonsense" is not a date');
      expect(await ui.page.getByRole('alert').count()).toBe(1);
      // The address's range is shown as it is, and marked.
      await expect.poll(() => picker.evaluate((el) => (el as any).selectedOptions[0].textContent)).toBe('From nonsense');
      await expect.poll(() => picker.getAttribute('aria-invalid')).toBe('true');
      expect(await ui.page.getByTestId('web-overview').count()).toBe(0);
      expect(bodies).toEqual([]);

      // Fixed in the page, every tile asks and shows the range's numbers.
      await picker.selectOption('custom');
      await expect.poll(() => from.getAttribute('aria-invalid')).toBe('true');
      await from.fill(DATE_RANGE.date_from);
      await to.fill(DATE_RANGE.date_to);
      await ui.page.waitForURL(
        (url) => url.searchParams.get('from') === DATE_RANGE.date_from && url.searchParams.get('to') === DATE_RANGE.date_to,
      );
      await expect.poll(async () => (await tiles()).views?.[0]).toBe('4');
      expect(await problem.count()).toBe(0);
      await expect.poll(() => from.getAttribute('aria-invalid')).not.toBe('true');
      expect(bodies.length).toBeGreaterThan(0);

      // A range that ends before it starts is pointed out at its end, and not asked either.
      await to.fill('2025-11-01');
      await problem.waitFor();
      expect(await problem.innerText()).toContain('ends (2025-11-01) before it starts (2025-11-10)');
      expect(await ui.page.getByRole('alert').count()).toBe(1);
      await expect.poll(() => to.getAttribute('aria-invalid')).toBe('true');
      expect(await from.getAttribute('aria-invalid')).not.toBe('true');
      // A date the calendar has not is no date (a date input cannot hold one: an address can).
      await ui.page.goto(`${server.url}/project/${ui.env}/web?from=2025-11-10&to=2025-11-31`);
      await expect.poll(() => problem.innerText()).toContain('"2025-11-31" is not a date');
      await expect.poll(() => picker.evaluate((el) => (el as any).selectedOptions[0].textContent)).toBe('2025-11-10 – 2025-11-31');
      await expect.poll(() => picker.getAttribute('aria-invalid')).toBe('true');
      expect(bodies.filter((b) => b.includes('2025-11-01') || b.includes('2025-11-31') || b.includes('nonsense'))).toEqual([]);
    } finally {
      ui.page.off('request', sent);
    }
    await screenshot(ui.page, 'web-analytics-bad-range');
    // No request failed: nothing was refused.
    expectNoErrors();
  });

  it("offers PostHog's date presets and custom dates, each kept in the address, the tiles as the API answers", async () => {
    const statuses: number[] = [];
    const answered = (response: { url(): string; status(): number; request(): { method(): string } }) => {
      if (response.request().method() === 'POST' && new URL(response.url()).pathname.endsWith('/query/')) statuses.push(response.status());
    };
    const picker = ui.page.getByLabel('Date range', { exact: true });
    /** The counting tiles as the query endpoint answers them for the address's range, and as the page shows them. */
    const expectTilesAsApi = async (label: string) => {
      const url = new URL(ui.page.url());
      const dateRange = { date_from: url.searchParams.get('from'), date_to: url.searchParams.get('to') };
      const api = await ask({ kind: 'WebOverviewQuery', dateRange, compareFilter: { compare: true } });
      const expected = Object.fromEntries(
        api.results.filter((r: any) => r.kind === 'unit').map((r: any) => [r.key, r.value === null ? '–' : String(r.value)]),
      );
      expect(Object.keys(expected)).toEqual(['visitors', 'views', 'sessions']);
      await expect
        .poll(
          async () => {
            const shown = await tiles();
            return Object.fromEntries(Object.keys(expected).map((key) => [key, shown[key]?.[0]]));
          },
          { message: label },
        )
        .toEqual(expected);
      return expected;
    };
    ui.page.on('response', answered);
    try {
      await ui.page.goto(`${server.url}/project/${ui.env}/web`);
      await tiles();
      const options = await picker.locator('option').evaluateAll((els) => els.map((el) => [(el as any).value, el.textContent]));
      expect(options.map(([, label]) => label)).toEqual([
        'Today',
        'Yesterday',
        'Last 24 hours',
        'Last 7 days',
        'Last 14 days',
        'Last 30 days',
        'Last 90 days',
        'Last 180 days',
        'This month',
        'Year to date',
        'All time',
        'Custom dates',
      ]);
      await expect.poll(() => picker.inputValue()).toBe('-7d');
      for (const [value, label] of options.filter(([value]) => value !== 'custom')) {
        await picker.selectOption(value!);
        const [from, to = null] = value!.split('/');
        await ui.page.waitForURL((url) => url.searchParams.get('from') === from && url.searchParams.get('to') === to);
        const expected = await expectTilesAsApi(label!);
        // The fixture is in 2025: all time holds it, with no period before it to compare with.
        if (value === 'all') {
          expect(Number(expected.views)).toBeGreaterThanOrEqual(4);
          expect(Object.values(await tiles()).map(([, change]) => change)).toEqual(['', '', '', '', '']);
        } else expect(Object.values(await tiles()).every(([, change]) => change !== '')).toBe(true);
      }

      // PostHog's own link names its range date_from: read alike, and a range picked replaces it.
      await ui.page.goto(`${server.url}/project/${ui.env}/web?date_from=-30d`);
      await expect.poll(() => picker.inputValue()).toBe('-30d');
      await picker.selectOption('-14d');
      await ui.page.waitForURL((url) => url.searchParams.get('from') === '-14d' && !url.searchParams.has('date_from'));
      await expectTilesAsApi('Last 14 days');

      // Custom dates: a date input for each end.
      await picker.selectOption('custom');
      await ui.page.getByLabel('From', { exact: true }).fill(DATE_RANGE.date_from);
      await ui.page.getByLabel('To', { exact: true }).fill(DATE_RANGE.date_to);
      await ui.page.waitForURL(
        (url) => url.searchParams.get('from') === DATE_RANGE.date_from && url.searchParams.get('to') === DATE_RANGE.date_to,
      );
      expect((await expectTilesAsApi('custom dates')).views).toBe('4');
      await screenshot(ui.page, 'web-analytics-custom-dates');
      // A reload keeps the custom range.
      await ui.page.reload();
      await expect.poll(() => ui.page.getByLabel('From', { exact: true }).inputValue()).toBe(DATE_RANGE.date_from);
      await expect.poll(() => picker.inputValue()).toBe('custom');
      // The sidebar's link holds no range: the page shows its default, not the custom one it left.
      await ui.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Web analytics' }).click();
      await ui.page.waitForURL((url) => url.searchParams.get('from') === null);
      await expect.poll(() => picker.inputValue()).toBe('-7d');
      await expect.poll(() => ui.page.getByLabel('From', { exact: true }).count()).toBe(0);

      // An old link's relative date that is no preset is shown as it is, and used.
      await ui.page.goto(`${server.url}/project/${ui.env}/web?from=-3d`);
      await expect.poll(() => picker.evaluate((el) => (el as any).selectedOptions[0].textContent)).toBe('Last 3 days');
      await expectTilesAsApi('-3d');
      expect(new URL(ui.page.url()).searchParams.get('from')).toBe('-3d');
      await picker.selectOption('-30d');
      await ui.page.waitForURL((url) => url.searchParams.get('from') === '-30d');
      await expect.poll(() => picker.locator('option', { hasText: 'Last 3 days' }).count()).toBe(0);
    } finally {
      ui.page.off('response', answered);
    }
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expectNoErrors();
  });

  it('clears a filter when its row is clicked again, and marks the row holding it', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/web?${range}`);
    expect((await tiles()).views?.[0]).toBe('4');
    const value = (breakdownBy: string, name: string) =>
      ui.page.getByTestId(`table-${breakdownBy}`).getByRole('button', { name, exact: true });
    await expect.poll(() => value('Page', '/pricing').getAttribute('aria-pressed')).toBe('false');

    await value('Page', '/pricing').click();
    await ui.page.waitForURL(/path=%2Fpricing/);
    await expect.poll(() => value('Page', '/pricing').getAttribute('aria-pressed')).toBe('true');
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('1');
    const row = ui.page
      .getByTestId('table-Page')
      .locator('tbody tr')
      .filter({ has: ui.page.getByRole('button', { name: '/pricing', exact: true }) });
    expect(await row.evaluate((el) => (globalThis as any).getComputedStyle(el).backgroundColor)).not.toBe('rgba(0, 0, 0, 0)');
    // A row of another value is not marked.
    await expect.poll(() => value('InitialPage', '/').getAttribute('aria-pressed')).toBe('false');
    await screenshot(ui.page, 'web-analytics-filter-active');

    await value('Page', '/pricing').click();
    await ui.page.waitForURL((url) => !url.searchParams.has('path'));
    await expect.poll(() => ui.page.getByLabel('Path').inputValue()).toBe('');
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('4');
    await expect.poll(() => value('Page', '/pricing').getAttribute('aria-pressed')).toBe('false');

    // Each filter toggles on its own: clearing the device leaves the country.
    await value('Country', 'DE').click();
    await ui.page.waitForURL(/country=DE/);
    await expect.poll(() => tableRows('DeviceType')).toEqual([['Mobile', '1', '1']]);
    await value('DeviceType', 'Mobile').click();
    await ui.page.waitForURL(/device=Mobile/);
    await expect.poll(() => value('DeviceType', 'Mobile').getAttribute('aria-pressed')).toBe('true');
    await value('DeviceType', 'Mobile').click();
    await ui.page.waitForURL((url) => !url.searchParams.has('device') && url.searchParams.get('country') === 'DE');
    await expect.poll(() => value('Country', 'DE').getAttribute('aria-pressed')).toBe('true');
    await value('Country', 'DE').click();
    await ui.page.waitForURL((url) => !url.searchParams.has('country'));
    await expect.poll(async () => (await tiles()).views?.[0]).toBe('4');
    expectNoErrors();
  });

  it('labels a row without a value as PostHog does: (direct) for no referrer, else (not set)', async () => {
    // One pageview without a referrer, a country or a device, on a day of its own.
    await server.ingest([
      {
        event: '$pageview',
        distinct_id: 'no-props',
        timestamp: '2025-09-01T10:00:00Z',
        properties: { $session_id: 'no-props-1', $pathname: '/' },
      },
    ]);
    await ui.page.goto(`${server.url}/project/${ui.env}/web?from=2025-09-01&to=2025-09-01`);
    await expect.poll(() => tableRows('InitialReferringDomain')).toEqual([['(direct)', '1', '1']]);
    expect(await tableRows('Country')).toEqual([['(not set)', '1', '1']]);
    expect(await tableRows('DeviceType')).toEqual([['(not set)', '1', '1']]);
    // Nothing could match "(not set)" exactly: it is no filter button.
    expect(await ui.page.getByTestId('table-Country').getByRole('button').count()).toBe(0);
    expectNoErrors();
  });
});
