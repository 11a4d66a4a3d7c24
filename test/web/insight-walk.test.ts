/**
 * What a walk through the analytics pages as a PostHog user found wanting, in Chromium against a
 * real Hoglet: a saved insight put on a dashboard and taken off from its own page (the tile shows
 * on the dashboard, the insight's `dashboards` read back from the API).
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
