/**
 * What a walk through the analytics pages as a PostHog user found wanting, in Chromium against a
 * real Hoglet: a saved insight put on a dashboard and taken off from its own page (the tile shows
 * on the dashboard, the insight's `dashboards` read back from the API); its history's values as
 * text, not JSON; an unsaved insight's query kept in the address through a reload; a property
 * average that waits for its property (a hint shown, no query sent, saving refused in words); a
 * reversed custom range pointed out; the display picker wide enough for its names; the
 * breakdown's suggestions closed by Enter; the funnel's controls on one line at 1280×800; a Slack
 * subscription's way to the Slack webhook setting, which the settings page now has; web analytics
 * saying once why a range it cannot read shows nothing, not that there is nothing.
 */
import { describe, expect, it } from 'vitest';
import { expectNoPageErrors, screenshot } from '../helpers/browser.js';
import { useTestServer } from '../helpers/server.js';
import { useSignedIn } from './signed-in.js';

const server = useTestServer();
const ui = useSignedIn(server);

const api = (path: string) => `/api/environments/${ui.env}${path}`;

async function create(path: string, body: Record<string, unknown>) {
  const res = await server.request(api(path), { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function dashboardsOf(insightId: number): Promise<number[]> {
  const res = await server.request(api(`/insights/${insightId}/`));
  expect(res.status, res.text).toBe(200);
  return res.body.dashboards;
}

describe('a saved insight', () => {
  it('goes on a dashboard and comes off it from its own page', async () => {
    const { page } = ui;
    await server.ingest([{ event: 'order placed', distinct_id: 'buyer', properties: {} }]);
    const insight = await create('/insights/', {
      name: 'Orders',
      query: {
        kind: 'InsightVizNode',
        source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'order placed', math: 'total' }] },
      },
    });
    // Markup in a name is text, in the list and in the buttons' names.
    const board = '<b>Weekly</b> review';
    const dashboard = await create('/dashboards/', { name: board });
    await create('/dashboards/', { name: 'Other board' });

    await page.goto(`${server.url}/project/${ui.env}/insights/${insight.short_id}`);
    await page.getByRole('button', { name: 'Add to dashboard' }).click();
    await page.getByTestId('dashboard-option').first().waitFor();
    expect(await page.getByTestId('dashboard-option').allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining(board), expect.stringContaining('Other board')]),
    );
    await page.getByRole('button', { name: `Add to ${board}`, exact: true }).click();
    await page.getByRole('button', { name: `Remove from ${board}`, exact: true }).waitFor();
    await screenshot(page, 'insight-add-to-dashboard');
    expect(await dashboardsOf(insight.id)).toEqual([dashboard.id]);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'On 1 dashboard' }).waitFor();
    expectNoPageErrors(ui.watched);

    await page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboard.id}`);
    await page.getByTestId('dashboard-tile').getByRole('link', { name: 'Orders', exact: true }).waitFor();

    await page.goto(`${server.url}/project/${ui.env}/insights/${insight.short_id}`);
    await page.getByRole('button', { name: 'On 1 dashboard' }).click();
    await page.getByRole('button', { name: `Remove from ${board}`, exact: true }).click();
    await page.getByRole('button', { name: `Add to ${board}`, exact: true }).waitFor();
    expect(await dashboardsOf(insight.id)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Add to dashboard' }).waitFor();

    await page.goto(`${server.url}/project/${ui.env}/dashboard/${dashboard.id}`);
    await page.getByTestId('dashboard-empty').waitFor();
    expectNoPageErrors(ui.watched);
  });
});

describe('a long name without spaces', () => {
  it('wraps or is cut, on its page, in the list and on a tile, and leaves the buttons whole', async () => {
    const { page } = ui;
    const name = `Long ${'x'.repeat(300)}`;
    const insight = await create('/insights/', {
      name,
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }] } },
    });
    const board = await create('/dashboards/', { name: 'Long names' });
    const added = await server.request(api(`/insights/${insight.id}/`), { method: 'PATCH', body: { dashboards: [board.id] } });
    expect(added.status, added.text).toBe(200);
    const overflow = () => page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);

    await page.goto(`${server.url}/project/${ui.env}/insights/${insight.short_id}`);
    await page.getByTestId('insight-title').getByText(name).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${server.url}/project/${ui.env}/insights?search=Long`);
    await page.getByTestId('insight-row').getByText(name).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${server.url}/project/${ui.env}/dashboard/${board.id}`);
    const remove = page.getByTestId('dashboard-tile').getByRole('button', { name: `Remove ${name}` });
    await remove.waitFor();
    expect(await remove.evaluate((button) => button.scrollWidth - button.clientWidth)).toBeLessThanOrEqual(1);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(page, 'long-name-tile');
    expectNoPageErrors(ui.watched);
  });
});

describe("a saved insight's history", () => {
  it('shows a changed string as its text, markup and quotes as typed, and other values as JSON', async () => {
    const { page } = ui;
    const insight = await create('/insights/', {
      name: 'Signups "EU"',
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }] } },
    });
    const renamed = 'Say "hi" <b>now</b>';
    const res = await server.request(api(`/insights/${insight.id}/`), {
      method: 'PATCH',
      body: { name: renamed, favorited: true, tags: ['eu', 'growth'] },
    });
    expect(res.status, res.text).toBe(200);
    const cleared = await server.request(api(`/insights/${insight.id}/`), { method: 'PATCH', body: { name: null } });
    expect(cleared.status, cleared.text).toBe(200);
    await page.goto(`${server.url}/project/${ui.env}/insights/${insight.short_id}`);
    const history = page.getByTestId('insight-history');
    await history.getByTestId('history-change').first().waitFor();
    const changes = await history.getByTestId('history-change').allInnerTexts();
    expect(changes).toEqual(
      expect.arrayContaining([
        `Changed name from Signups "EU" to ${renamed}`,
        'Changed favorited from false to true',
        'Changed tags from [] to ["eu","growth"]',
        // No name is said in words, not shown as JSON's null.
        `Changed name from ${renamed} to (none)`,
      ]),
    );
    // Text, never markup: the name's <b> is not an element.
    expect(await history.locator('code b').count()).toBe(0);
    await screenshot(page, 'insight-history-values');
    expectNoPageErrors(ui.watched);
  });
});

describe('a new insight', () => {
  it('keeps its unsaved query in the address through a reload, and saves it', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/project/${ui.env}/insights/new`);
    await page.getByLabel('Interval').waitFor();
    // Untouched, the address stays bare.
    expect(new URL(page.url()).hash).toBe('');

    await page.getByLabel('Interval').selectOption('week');
    await page.getByLabel('Display').selectOption('ActionsTable');
    await page.getByLabel('Series 1 math').selectOption('dau');
    await page.waitForURL((url) => url.hash.includes('ActionsTable') && url.hash.includes('dau'));
    await page.reload();
    await page.getByLabel('Interval').waitFor();
    expect(await page.getByLabel('Interval').inputValue()).toBe('week');
    expect(await page.getByLabel('Display').inputValue()).toBe('ActionsTable');
    expect(await page.getByLabel('Series 1 math').inputValue()).toBe('dau');
    await page.getByTestId('trends-table').waitFor();

    // A funnel is kept the same way.
    await page.getByText('Funnels', { exact: true }).click();
    await page.getByLabel('Conversion window', { exact: true }).fill('3');
    await page.waitForURL((url) => url.hash.includes('FunnelsQuery') && url.hash.includes('%22funnelWindowInterval%22%3A3'));
    await page.reload();
    await page.getByLabel('Conversion window', { exact: true }).waitFor();
    expect(await page.getByLabel('Conversion window', { exact: true }).inputValue()).toBe('3');

    await page.getByLabel('Name').fill('Kept funnel');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/new'));
    expect(new URL(page.url()).hash).toBe('');
    const shortId = new URL(page.url()).pathname.split('/').pop();
    const saved = await server.request(api(`/insights/?short_id=${shortId}`));
    expect(saved.body.results[0].query.source).toMatchObject({ kind: 'FunnelsQuery', funnelsFilter: { funnelWindowInterval: 3 } });
    expectNoPageErrors(ui.watched);
  });

  it('keeps the query of a link without the environment in its path', async () => {
    const { page } = ui;
    const source = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'signup', name: 'signup', math: 'dau' }],
      interval: 'week',
    };
    await page.goto(`${server.url}/insights/new#q=${encodeURIComponent(JSON.stringify(source))}`);
    await page.waitForURL((url) => url.pathname === `/project/${ui.env}/insights/new`);
    await page.getByLabel('Interval').waitFor();
    expect(await page.getByLabel('Interval').inputValue()).toBe('week');
    expect(await page.getByLabel('Series 1 math').inputValue()).toBe('dau');
    expectNoPageErrors(ui.watched);
  });

  it('takes in a query from an address changed in its hash alone', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/project/${ui.env}/insights/new`);
    await page.getByLabel('Interval').waitFor();
    await page.getByLabel('Interval').selectOption('week');
    await page.waitForURL((url) => url.hash.includes('%22interval%22%3A%22week%22'));
    const weekly = new URL(page.url()).hash;
    // The same page with another query in its hash, as a pasted link or the address bar gives it.
    await page.goto(`${server.url}/project/${ui.env}/insights/new${weekly.replace('week', 'month')}`);
    await expect.poll(() => page.getByLabel('Interval').inputValue()).toBe('month');
    await page.waitForURL((url) => url.hash.includes('%22interval%22%3A%22month%22'));
    // And edits go on from there.
    await page.getByLabel('Interval').selectOption('hour');
    await page.waitForURL((url) => url.hash.includes('%22interval%22%3A%22hour%22'));
    // Edits can outrun the address: two in a row on a slowed CPU, neither taken for one from outside.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 20 });
    try {
      await page.getByText('Funnels', { exact: true }).click();
      await page.getByLabel('Conversion window', { exact: true }).fill('3');
      await page.waitForURL((url) => url.hash.includes('FunnelsQuery') && url.hash.includes('%22funnelWindowInterval%22%3A3'));
    } finally {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await cdp.detach();
    }
    expectNoPageErrors(ui.watched);
  });

  it('starts from the default when the address carries no query it can read', async () => {
    const { page } = ui;
    for (const hash of ['#q=%7Bbroken', '#q=%7B%22kind%22%3A%22RetentionQuery%22%7D']) {
      await page.goto(`${server.url}/project/${ui.env}/insights`);
      await page.goto(`${server.url}/project/${ui.env}/insights/new${hash}`);
      await page.getByLabel('Interval').waitFor();
      expect(await page.getByLabel('Interval').inputValue()).toBe('day');
      await page.getByTestId('trends-chart').waitFor();
    }
    expectNoPageErrors(ui.watched);
  });

  it('averages a property only once it is picked: no query and no save before, a hint instead', async () => {
    const { page } = ui;
    await server.ingest([
      { event: 'refund', distinct_id: 'r1', properties: { amount: 5 } },
      { event: 'refund', distinct_id: 'r2', properties: { amount: 8 } },
    ]);
    await page.goto(`${server.url}/project/${ui.env}/insights/new`);
    await page.getByLabel('Display').selectOption('BoldNumber');
    await page.getByRole('textbox', { name: 'Series 1 event' }).click();
    await page.getByRole('option', { name: 'refund', exact: true }).click();
    await expect.poll(() => page.getByTestId('bold-number-value').innerText()).toBe('2');

    const sent: string[] = [];
    const record = (request: { method(): string; url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (request.method() === 'POST' && /\/(query|insights)\/$/.test(path)) sent.push(path);
    };
    page.on('request', record);
    try {
      await page.getByLabel('Series 1 math').selectOption('avg');
      const hint = page.getByTestId('insight-unfinished');
      await expect.poll(() => hint.innerText()).toBe('Choose the property to aggregate for series 1.');
      expect(await page.getByTestId('bold-number-value').count()).toBe(0);
      const property = page.getByRole('textbox', { name: 'Series 1 math property' });
      await property.waitFor();
      // Saving now is refused in the page, in words, not by the server naming a field.
      await page.getByRole('button', { name: 'Save insight' }).click();
      await expect
        .poll(() => page.getByRole('alert').allInnerTexts())
        .toContainEqual(expect.stringContaining('Choose the property to aggregate for series 1.'));
      expect((await page.getByRole('alert').allInnerTexts()).join(' ')).not.toContain('math_property');
      await screenshot(page, 'insight-property-math-unfinished');
      // Had the math's change sent the query, it would have gone out before the save's alert was drawn.
      expect(sent).toEqual([]);

      await property.fill('amount');
      await property.press('Enter');
      await expect.poll(() => page.getByTestId('bold-number-value').innerText()).toBe('6.5');
      expect(sent).toContain(`/api/environments/${ui.env}/query/`);
      expect(await hint.count()).toBe(0);
      expect(await page.getByRole('alert').count()).toBe(0);
    } finally {
      page.off('request', record);
    }
    expectNoPageErrors(ui.watched);
  });

  it('says when the custom range ends before it starts, and shows each display whole', async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/project/${ui.env}/insights/new`);
    await page.getByLabel('Date range').first().selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill('2026-11-20');
    await page.getByLabel('To', { exact: true }).fill('2026-11-10');
    await expect.poll(() => page.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Before the start date').waitFor();
    await page.getByLabel('To', { exact: true }).fill('2026-11-25');
    await expect.poll(() => page.getByLabel('To', { exact: true }).getAttribute('aria-invalid')).not.toBe('true');

    // Each display's name fits its picker (a select cuts a long one short).
    const display = page.getByLabel('Display');
    for (const value of await display.locator('option').evaluateAll((options: any[]) => options.map((o) => o.value as string))) {
      await display.selectOption(value);
      const fits = await display.evaluate((select: any) => {
        const { document, getComputedStyle } = globalThis as any;
        const probe = document.createElement('span');
        probe.style.font = getComputedStyle(select).font;
        probe.style.position = 'absolute';
        probe.textContent = select.selectedOptions[0].text;
        document.body.append(probe);
        const width: number = probe.getBoundingClientRect().width;
        probe.remove();
        const style = getComputedStyle(select);
        return width <= select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      });
      expect(fits, value).toBe(true);
    }
    expectNoPageErrors(ui.watched);
  });

  it('closes the breakdown suggestions once Enter applies the typed property', async () => {
    const { page } = ui;
    await server.ingest([{ event: 'signup', distinct_id: 'planner', properties: { plan_tier: 'pro', plan_seats: 3 } }]);
    await page.goto(`${server.url}/project/${ui.env}/insights/new`);
    const field = page.getByRole('textbox', { name: 'Breakdown by' });
    const shownOptions = page.locator('[role="listbox"]:visible [role="option"]');
    await field.click();
    await field.fill('plan_');
    await page.getByRole('option', { name: 'plan_tier', exact: true }).waitFor();
    await field.fill('plan_tier');
    await field.press('Enter');
    await page.waitForURL((url) => decodeURIComponent(url.hash).includes('"breakdown":"plan_tier"'));
    await expect.poll(() => shownOptions.count()).toBe(0);
    expect(await field.inputValue()).toBe('plan_tier');
    // Typing again offers the names again.
    await field.fill('plan_');
    await expect.poll(() => shownOptions.count()).toBeGreaterThan(0);
    expectNoPageErrors(ui.watched);
  });

  it("shows the funnel's controls on one line at 1280×800", async () => {
    const { page } = ui;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/project/${ui.env}/insights/new`);
    await page.getByText('Funnels', { exact: true }).click();
    const window = page.locator('label', { hasText: 'Conversion window' });
    const view = page.locator('label', { hasText: /^View$/ });
    await window.waitFor();
    const [a, b] = [(await window.boundingBox())!, (await view.boundingBox())!];
    expect(a.height).toBe(b.height);
    expect(a.y).toBe(b.y);
  });
});

describe('a Slack subscription', () => {
  it("links to the environment's Slack webhook setting, and is made once it is set", async () => {
    const { page } = ui;
    const insight = await create('/insights/', {
      name: 'Refunds',
      query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'refund' }] } },
    });
    const newSubscription = `${server.url}/project/${ui.env}/insights/${insight.short_id}/subscriptions/new`;
    const fillSlack = async () => {
      await page.getByLabel('Send to').selectOption('slack');
      await page.getByLabel('Slack channel').fill('C0123456789|#sales');
    };
    await page.goto(newSubscription);
    await fillSlack();
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await expect.poll(() => page.getByLabel('Send to').getAttribute('aria-invalid')).toBe('true');

    await page.getByRole('link', { name: 'Slack incoming webhook' }).click();
    await page.waitForURL(/\/settings\/environment#slack$/);
    const field = page.getByLabel('Slack incoming webhook');
    await field.fill('not a url');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    // Deliveries stay on this machine: the address is the test server's, where nothing answers it.
    const hook = `${server.url}/nowhere/slack-hook`;
    await field.fill(hook);
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByRole('form', { name: 'Slack' }).getByText('Saved').waitFor();
    const environment = await server.request(api('/'));
    expect(environment.body.slack_incoming_webhook).toBe(hook);
    await screenshot(page, 'settings-slack-webhook');

    await page.goto(newSubscription);
    await fillSlack();
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await page.waitForURL(/\/subscriptions\/\d+$/);
    const id = new URL(page.url()).pathname.split('/').pop();
    const subscription = await server.request(api(`/subscriptions/${id}/`));
    expect(subscription.body).toMatchObject({ target_type: 'slack', target_value: 'C0123456789|#sales', insight: insight.id });
    expectNoPageErrors(ui.watched, [400]);
  });
});

describe('web analytics', () => {
  it('says once why a range it cannot read shows nothing, instead of that there is nothing', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/project/${ui.env}/web?from=nonsense`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').allInnerTexts()).toEqual([expect.stringContaining('nonsense')]);
    expect(await page.getByText('No web vitals in this range').count()).toBe(0);
    expect(await page.getByText('No data in this range').count()).toBe(0);
    // Asked nothing, so nothing was refused.
    expectNoPageErrors(ui.watched);
  });
});
