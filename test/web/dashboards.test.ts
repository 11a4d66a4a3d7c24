/**
 * Dashboards in Chromium against a real Hoglet holding a small fixture whose counts are worked
 * out by hand below: a dashboard made in the list, two saved insights added as tiles, one resized
 * and one moved in the arrange mode (the saved `layouts` read back from the API), the date filter
 * over every tile (the tiles' numbers equal the query endpoint's and the hand counts), refresh
 * after a new event, the dashboard made the home page, and a dashboard deleted from the list.
 * No console errors; a screenshot of each page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);
const DAY = 86_400_000;

let dashboardId: number;

// 'order placed': 2 three days ago, 1 twenty days ago, 3 sixty days ago.
// 'signed up': 1 two days ago, 2 forty days ago.
// Over each insight's own -7d: orders 2, signups 1. Last 30 days: 3 and 1. Last 90 days: 6 and 3.
// From 25 days ago through today: 3 and 1.
const FIXTURE: Array<[string, number, number]> = [
  ['order placed', 3, 2],
  ['order placed', 20, 1],
  ['order placed', 60, 3],
  ['signed up', 2, 1],
  ['signed up', 40, 2],
];

function fixtureEvents(now: number) {
  return FIXTURE.flatMap(([event, daysAgo, n]) =>
    Array.from({ length: n }, (_, i) => ({
      event,
      distinct_id: `${event}-${daysAgo}-${i}`,
      timestamp: new Date(now - daysAgo * DAY).toISOString(),
      properties: {},
    })),
  );
}

const trends = (event: string, dateRange: Record<string, unknown> = { date_from: '-7d' }, display = 'ActionsLineGraph') => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event, name: event, math: 'total' }],
  interval: 'day',
  dateRange,
  trendsFilter: { display },
});

const api = (path: string) => `/api/environments/${ui.env}${path}`;
// Orders draws a line with its legend of totals; Signups is a bold number.
const INSIGHTS: Array<[name: string, event: string, display: string]> = [
  ['Orders', 'order placed', 'ActionsLineGraph'],
  ['Signups', 'signed up', 'BoldNumber'],
];

beforeAll(async () => {
  await server.ingest(fixtureEvents(Date.now()));
  for (const [name, event, display] of INSIGHTS) {
    const res = await server.request(api('/insights/'), {
      method: 'POST',
      body: { name, query: { kind: 'InsightVizNode', source: trends(event, { date_from: '-7d' }, display) } },
    });
    expect(res.status, res.text).toBe(201);
  }
});

const tile = (name: string) => ui.page.getByTestId('dashboard-tile').filter({ has: ui.page.getByRole('link', { name, exact: true }) });
const gridItem = (name: string) => ui.page.locator('.react-grid-item').filter({ has: tile(name) });

/** The totals the query endpoint gives each insight's event over a range. */
async function queryTotals(dateRange: Record<string, unknown>) {
  const totals: Record<string, number> = {};
  for (const [name, event] of INSIGHTS) {
    const res = await server.request(api('/query/'), { method: 'POST', body: { query: trends(event, dateRange) } });
    expect(res.status, res.text).toBe(200);
    totals[name] = res.body.results[0].count;
  }
  return totals;
}

/** The total a tile's chart shows: the line chart's legend, or the bold number. */
const shownTotal = (name: string) =>
  tile(name).locator('[data-testid="series-total"], [data-testid="bold-number-value"]').first().innerText();

/** What the tiles show, once they show `expected` (polled: a filter change runs the tiles' queries again). */
async function expectTiles(expected: Record<string, number>) {
  for (const [name, count] of Object.entries(expected)) {
    await expect.poll(() => shownTotal(name), { timeout: 15_000 }).toBe(count.toLocaleString('en-US'));
    await expect.poll(() => tile(name).getByTestId('insight-viz').getAttribute('aria-busy')).toBe('false');
  }
}

async function dashboard() {
  const res = await server.request(api(`/dashboards/${dashboardId}/`));
  expect(res.status).toBe(200);
  return res.body;
}

const layoutsOf = async () =>
  Object.fromEntries(((await dashboard()).tiles as any[]).map((t) => [t.insight.name, t.layouts])) as Record<string, any>;

describe('dashboards', () => {
  it('creates a dashboard from the list and adds two saved insights as tiles', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}`);
    await ui.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Dashboards' }).click();
    await ui.page.waitForURL(`${server.url}/project/${ui.env}/dashboard`);
    await ui.page.getByTestId('dashboard-row').first().waitFor();
    await ui.page.getByRole('button', { name: 'New dashboard' }).click();
    const form = ui.page.getByRole('form', { name: 'New dashboard' });
    await form.getByLabel('Name').fill('Sales');
    await form.getByLabel('Description').fill('Orders and signups');
    await form.getByRole('button', { name: 'Create' }).click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/dashboard/\\d+$`));
    dashboardId = Number(ui.page.url().split('/').pop());
    await ui.page.getByRole('heading', { name: 'Sales' }).waitFor();
    await ui.page.getByTestId('dashboard-empty').waitFor();

    await ui.page.getByRole('button', { name: 'Add insight' }).click();
    const picker = ui.page.getByRole('dialog', { name: 'Add insight' });
    await picker.getByRole('button', { name: 'Add Orders' }).click();
    await picker.getByRole('button', { name: 'Remove Orders from this dashboard' }).waitFor();
    await picker.getByLabel('Search insights').fill('sign');
    await picker.getByRole('button', { name: 'Add Signups' }).click();
    // The picker takes an insight off as well, as PostHog's does.
    await picker.getByRole('button', { name: 'Remove Signups from this dashboard' }).click();
    await picker.getByRole('button', { name: 'Add Signups' }).waitFor();
    await expect.poll(async () => ((await dashboard()).tiles as any[]).map((t) => t.insight.name)).toEqual(['Orders']);
    await picker.getByRole('button', { name: 'Add Signups' }).click();
    await picker.getByRole('button', { name: 'Remove Signups from this dashboard' }).waitFor();
    await ui.page.keyboard.press('Escape');
    await tile('Signups').waitFor();
    expect(((await dashboard()).tiles as any[]).map((t) => t.insight.name)).toEqual(['Orders', 'Signups']);

    // Each insight's own range (-7d) until the dashboard sets one.
    const own = await queryTotals({ date_from: '-7d' });
    expect(own).toEqual({ Orders: 2, Signups: 1 });
    await expectTiles(own);
    await screenshot(ui.page, 'dashboard-tiles');
    expectNoPageErrors(ui.watched);
  });

  it("says in an insight's history which dashboards it was added to and removed from", async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboardId}`);
    await tile('Orders').getByRole('link', { name: 'Orders', exact: true }).click();
    await ui.page.waitForURL(new RegExp(`/project/${ui.env}/insights/\\w+$`));
    const history = ui.page.getByTestId('insight-history');
    await expect.poll(() => history.getByTestId('history-change').allInnerTexts()).toEqual(['Added to dashboard Sales']);
    const link = history.getByRole('link', { name: 'Sales' });
    expect(await link.getAttribute('href')).toBe(`/project/${ui.env}/dashboard/${dashboardId}`);

    // Removed from one (through the insight's `dashboards`, as PostHog's "Add to dashboard" does).
    const orders = (await server.request(api('/insights/?search=Orders'))).body.results.find((i: any) => i.name === 'Orders');
    const weekly = (await server.request(api('/dashboards/'), { method: 'POST', body: { name: 'Weekly' } })).body;
    for (const dashboards of [[dashboardId, weekly.id], [dashboardId]]) {
      const res = await server.request(api(`/insights/${orders.id}/`), { method: 'PATCH', body: { dashboards } });
      expect(res.status, res.text).toBe(200);
    }
    await ui.page.reload();
    await expect
      .poll(() => history.getByTestId('history-change').allInnerTexts())
      .toEqual(['Removed from dashboard Weekly', 'Added to dashboard Weekly', 'Added to dashboard Sales']);
    await screenshot(ui.page, 'insight-history-dashboards');
    expectNoPageErrors(ui.watched);
    // Back on the dashboard, where the next tests start.
    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboardId}`);
    await tile('Signups').waitFor();
  });

  it('moves and resizes tiles only in the arrange mode, and saves their layouts', async () => {
    const before = await layoutsOf();
    // Outside the arrange mode a drag is not a move.
    const box = (await tile('Signups').getByTestId('tile-body').boundingBox())!;
    await ui.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await ui.page.mouse.down();
    await ui.page.mouse.move(box.x - 300, box.y + 400, { steps: 8 });
    await ui.page.mouse.up();
    expect(await gridItem('Signups').getAttribute('class')).not.toContain('react-draggable-dragging');

    await ui.page.getByRole('button', { name: 'Edit layout' }).click();
    await ui.page.getByTestId('dashboard-grid').and(ui.page.locator('[data-editing="true"]')).waitFor();
    // Move Signups from beside Orders to under it, at the left edge.
    const o = (await gridItem('Orders').boundingBox())!;
    const s = (await tile('Signups').getByTestId('tile-body').boundingBox())!;
    await ui.page.mouse.move(s.x + 20, s.y + 20);
    await ui.page.mouse.down();
    await ui.page.mouse.move(o.x + 20, o.y + o.height + 60, { steps: 12 });
    await ui.page.mouse.up();
    // Resize Orders by its corner handle (once it is back in place: tiles slide while others pass over them).
    await expect.poll(async () => (await gridItem('Orders').boundingBox())!.y).toBe(o.y);
    const handle = gridItem('Orders').locator('.react-resizable-handle');
    const h = (await handle.boundingBox())!;
    await ui.page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await ui.page.mouse.down();
    await ui.page.mouse.move(h.x + 200, h.y + 100, { steps: 10 });
    await ui.page.mouse.up();
    await ui.page.getByRole('button', { name: 'Save layout' }).click();
    await ui.page.getByRole('button', { name: 'Edit layout' }).waitFor();

    const after = await layoutsOf();
    expect(before.Orders).toEqual({});
    expect(after.Orders.sm.w).toBeGreaterThan(6);
    expect(after.Orders.sm.h).toBeGreaterThan(5);
    expect(after.Signups.sm.x).toBe(0);
    expect(after.Signups.sm.y).toBeGreaterThanOrEqual(after.Orders.sm.y + after.Orders.sm.h);

    // After a reload the page places the tiles where they were saved: on the grid's 12 columns
    // with 16 px gaps and 60 px rows (DashboardGrid).
    await ui.page.reload();
    await tile('Signups').waitFor();
    const grid = (await ui.page.getByTestId('dashboard-grid').boundingBox())!;
    const column = (grid.width - 11 * 16) / 12;
    const near = (actual: number, expected: number) => Math.abs(actual - expected) <= 1;
    const place = async (name: string) => {
      const box = (await gridItem(name).boundingBox())!;
      return { x: box.x - grid.x, y: box.y - grid.y, width: box.width, height: box.height };
    };
    const expected = (l: { x: number; y: number; w: number; h: number }) => ({
      x: l.x * (column + 16),
      y: l.y * (60 + 16),
      width: l.w * column + (l.w - 1) * 16,
      height: l.h * 60 + (l.h - 1) * 16,
    });
    for (const name of ['Orders', 'Signups']) {
      const want = expected(after[name].sm);
      // Polled: the tiles slide into place once the grid has measured its width.
      await expect
        .poll(async () => {
          const got = await place(name);
          return (['x', 'y', 'width', 'height'] as const).every((k) => near(got[k], want[k]));
        })
        .toBe(true);
    }
    await screenshot(ui.page, 'dashboard-arranged');
    expectNoPageErrors(ui.watched);
  });

  it('applies the date filter to every tile and saves it on the dashboard', async () => {
    const range = ui.page.getByLabel('Date range', { exact: true });
    await range.selectOption('-30d');
    await expect.poll(async () => (await dashboard()).filters).toEqual({ date_from: '-30d', date_to: null });
    const thirty = await queryTotals({ date_from: '-30d' });
    expect(thirty).toEqual({ Orders: 3, Signups: 1 });
    await expectTiles(thirty);

    await range.selectOption('-90d');
    await expect.poll(async () => (await dashboard()).filters).toEqual({ date_from: '-90d', date_to: null });
    const ninety = await queryTotals({ date_from: '-90d' });
    expect(ninety).toEqual({ Orders: 6, Signups: 3 });
    await expectTiles(ninety);

    // A custom range: from 25 days ago through today (UTC, the environment's zone).
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
    await range.selectOption('custom');
    const custom = ui.page.getByRole('form', { name: 'Custom date range' });
    // A range that ends before it starts is pointed out and cannot be applied.
    await custom.getByLabel('From').fill(day(0));
    await custom.getByLabel('To').fill(day(25));
    await custom.getByText('Before the start date').waitFor();
    expect(await custom.getByRole('button', { name: 'Apply' }).isDisabled()).toBe(true);
    await custom.getByLabel('From').fill(day(25));
    await custom.getByLabel('To').fill(day(0));
    expect(await custom.getByText('Before the start date').count()).toBe(0);
    await custom.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(async () => (await dashboard()).filters).toEqual({ date_from: day(25), date_to: day(0) });
    const customTotals = await queryTotals({ date_from: day(25), date_to: day(0) });
    expect(customTotals).toEqual({ Orders: 3, Signups: 1 });
    await expectTiles(customTotals);

    // The page opened afresh shows the saved filter.
    await ui.page.reload();
    await tile('Orders').waitFor();
    expect(await ui.page.getByLabel('Date range', { exact: true }).inputValue()).toBe('custom');
    await expectTiles(customTotals);
    await screenshot(ui.page, 'dashboard-date-filter');
    expectNoPageErrors(ui.watched);
  });

  it('refreshes the tiles', async () => {
    await server.ingest([{ event: 'order placed', distinct_id: 'late', timestamp: new Date().toISOString(), properties: {} }]);
    // Shown as loaded until asked again.
    await expectTiles({ Orders: 3 });
    await ui.page.getByRole('button', { name: 'Refresh' }).click();
    await ui.page.getByTestId('refreshed-at').waitFor();
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
    const totals = await queryTotals({ date_from: day(25), date_to: day(0) });
    expect(totals).toEqual({ Orders: 4, Signups: 1 });
    await expectTiles(totals);
    expectNoPageErrors(ui.watched);
  });

  it('sets the dashboard as the home page', async () => {
    await ui.page.getByRole('button', { name: 'Set as home' }).click();
    await ui.page.getByTestId('home-badge').waitFor();
    expect((await server.request(api('/'))).body.primary_dashboard).toBe(dashboardId);
    await ui.page.goto(`${server.url}/project/${ui.env}`);
    await ui.page.getByRole('heading', { name: 'Sales' }).waitFor();
    expect(ui.page.url()).toBe(`${server.url}/project/${ui.env}`);
    await expectTiles({ Orders: 4, Signups: 1 });
    await screenshot(ui.page, 'dashboard-home');
    expectNoPageErrors(ui.watched);
  });

  it("shows a funnel tile's bars in the tile's width, and the picker's buttons whole", async () => {
    const funnel = await server.request(api('/insights/'), {
      method: 'POST',
      body: {
        name: 'Signups to orders',
        description: 'A long description that takes the whole width of the picker, so the button next to it must keep its own',
        query: {
          kind: 'InsightVizNode',
          source: {
            kind: 'FunnelsQuery',
            series: ['signed up', 'order placed'].map((event) => ({ kind: 'EventsNode', event, name: event })),
            dateRange: { date_from: '-90d' },
            funnelsFilter: { funnelVizType: 'steps' },
          },
        },
      },
    });
    expect(funnel.status, funnel.text).toBe(201);
    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboardId}`);
    await ui.page.getByRole('button', { name: 'Add insight' }).click();
    const picker = ui.page.getByRole('dialog', { name: 'Add insight' });
    await picker.getByRole('button', { name: 'Add Signups to orders' }).click();
    const added = picker.getByRole('button', { name: 'Remove Signups to orders from this dashboard' });
    await added.waitFor();
    // The button's label fits in it beside the long description (within a pixel: the two widths
    // are rounded apart from a fractional layout; a cut label loses a letter or more).
    expect(await added.evaluate((button) => button.scrollWidth - button.clientWidth)).toBeLessThanOrEqual(1);
    await ui.page.keyboard.press('Escape');
    // The first step's bar is filled across the tile: the step's text gives way to it.
    const firstBar = tile('Signups to orders').getByTestId('funnel-bar').first();
    await firstBar.waitFor();
    const fill = await firstBar.evaluate((row: any) => {
      const track = row.children[1];
      return { track: track.clientWidth as number, filled: track.firstElementChild.clientWidth as number };
    });
    expect(fill.track).toBeGreaterThanOrEqual(80);
    expect(fill.filled).toBe(fill.track);
    await screenshot(ui.page, 'dashboard-funnel-tile');
    expectNoPageErrors(ui.watched);
  });

  it('keeps most of a tile for the chart when its legend is long', async () => {
    const series = Array.from({ length: 8 }, () => ({ kind: 'EventsNode', event: 'order placed', name: 'order placed', math: 'total' }));
    const many = await server.request(api('/insights/'), {
      method: 'POST',
      body: { name: 'Eight lines', query: { kind: 'InsightVizNode', source: { ...trends('order placed'), series } } },
    });
    expect(many.status, many.text).toBe(201);
    const added = await server.request(api(`/insights/${many.body.id}/`), { method: 'PATCH', body: { dashboards: [dashboardId] } });
    expect(added.status, added.text).toBe(200);
    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboardId}`);
    await expect.poll(() => tile('Eight lines').getByTestId('series-row').count()).toBe(8);
    const chart = await tile('Eight lines').getByTestId('trends-chart').boundingBox();
    const body = await tile('Eight lines').getByTestId('tile-body').boundingBox();
    // The legend scrolls in the tile instead of squeezing the chart to a strip.
    expect(chart!.height).toBeGreaterThanOrEqual(body!.height * 0.5);
    await screenshot(ui.page, 'dashboard-long-legend');
    expectNoPageErrors(ui.watched);
  });

  it('keeps the page its width with a long dashboard name and a long breakdown value', async () => {
    // No spaces in either: nothing for the browser to wrap at.
    const value = 'v'.repeat(5000);
    const name = 'N'.repeat(300);
    await server.ingest([{ event: 'long value', distinct_id: 'long-1', timestamp: new Date().toISOString(), properties: { note: value } }]);
    const board = await server.request(api('/dashboards/'), { method: 'POST', body: { name } });
    expect(board.status, board.text).toBe(201);
    const insight = await server.request(api('/insights/'), {
      method: 'POST',
      body: {
        name: 'Long breakdown',
        dashboards: [board.body.id],
        query: {
          kind: 'InsightVizNode',
          source: { ...trends('long value'), breakdownFilter: { breakdown: 'note', breakdown_type: 'event' } },
        },
      },
    });
    expect(insight.status, insight.text).toBe(201);
    const label = `long value - ${value}`;
    const overflow = () => ui.page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);

    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard/${board.body.id}`);
    await ui.page.getByRole('heading', { name, exact: true }).waitFor();
    await expect.poll(() => tile('Long breakdown').getByTestId('series-label').getAttribute('title')).toBe(label);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(ui.page, 'dashboard-long-name');

    await ui.page.goto(`${server.url}/project/${ui.env}/insights/${insight.body.short_id}`);
    const legendLabel = ui.page.getByTestId('series-label');
    await expect.poll(() => legendLabel.getAttribute('title')).toBe(label);
    expect(await legendLabel.innerText()).toBe(label);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(ui.page, 'insight-long-breakdown');

    await ui.page.getByLabel('Display').selectOption('ActionsTable');
    await expect.poll(() => ui.page.getByTestId('trends-table-label').getAttribute('title')).toBe(label);
    expect(await overflow()).toBeLessThanOrEqual(0);

    await ui.page.getByLabel('Display').selectOption('BoldNumber');
    await expect.poll(() => ui.page.getByTestId('bold-number-label').getAttribute('title')).toBe(label);
    expect(await overflow()).toBeLessThanOrEqual(0);
    expectNoPageErrors(ui.watched);
  });

  it('renames the dashboard and edits its description, refusing an empty name', async () => {
    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboardId}`);
    const before = await dashboard();
    const edit = async (name: string, description: string) => {
      await ui.page.getByRole('button', { name: 'Edit', exact: true }).click();
      const form = ui.page.getByRole('form', { name: 'Edit dashboard' });
      expect(await form.getByLabel('Name').inputValue()).toBe((await dashboard()).name);
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('Description').fill(description);
      await form.getByRole('button', { name: 'Save' }).click();
      return form;
    };
    const refused = await edit('   ', 'x');
    await refused.getByText('A dashboard needs a name.').waitFor();
    await refused.getByRole('button', { name: 'Cancel' }).click();
    await edit('Sales <i>2026</i>', 'Orders, signups and more');
    await ui.page.getByRole('heading', { name: 'Sales <i>2026</i>' }).waitFor();
    expect(await dashboard()).toMatchObject({ name: 'Sales <i>2026</i>', description: 'Orders, signups and more' });
    await edit(before.name, before.description);
    await ui.page.getByRole('heading', { name: before.name }).waitFor();
    expectNoPageErrors(ui.watched);
  });

  it('searches the list and deletes a dashboard after confirmation', async () => {
    const scratch = await server.request(api('/dashboards/'), { method: 'POST', body: { name: 'Scratch', description: 'to delete' } });
    expect(scratch.status).toBe(201);
    await ui.page.goto(`${server.url}/project/${ui.env}/dashboard`);
    await ui.page.getByLabel('Search').fill('scra');
    const rows = ui.page.getByTestId('dashboard-row');
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().getByText('Scratch').waitFor();
    await screenshot(ui.page, 'dashboards-list');
    await rows.first().getByRole('button', { name: 'Delete Scratch' }).click();
    await ui.page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await ui.page.getByTestId('dashboards-empty').waitFor();
    expect((await server.request(api(`/dashboards/${scratch.body.id}/`))).body.deleted).toBe(true);
    await ui.page.getByLabel('Search').fill('');
    await rows.filter({ hasText: 'Sales' }).waitFor();
    expectNoPageErrors(ui.watched);
  });
});
