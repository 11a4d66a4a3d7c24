/**
 * The six-tile dashboard the analytics bench opens in the web app (bench/web-navigation.ts
 * `navigationToDashboard`): six saved trends insights over the last 30 days, drawn as PostHog's
 * displays draw them, and as its baseline the same six queries asked of the API at once, as the
 * page asks them.
 */
const pageview = { kind: 'EventsNode', event: '$pageview', name: '$pageview' };

function trends(display: string, series: unknown[], more: Record<string, unknown> = {}) {
  return { kind: 'TrendsQuery', series, dateRange: { date_from: '-30d' }, interval: 'day', trendsFilter: { display }, ...more };
}

export const DASHBOARD_TILES: Array<{ name: string; source: Record<string, unknown> }> = [
  { name: 'Pageviews', source: trends('ActionsLineGraph', [{ ...pageview, math: 'total' }]) },
  { name: 'Daily users', source: trends('ActionsLineGraph', [{ ...pageview, math: 'dau' }]) },
  {
    name: 'Pageviews by browser',
    source: trends('ActionsBar', [{ ...pageview, math: 'total' }], { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }),
  },
  {
    name: 'Pricing events',
    source: trends('ActionsLineGraph', [{ kind: 'EventsNode', event: null, name: 'All events', math: 'total' }], {
      properties: [{ key: '$current_url', value: 'pricing', operator: 'icontains', type: 'event' }],
    }),
  },
  { name: 'Pageviews, total', source: trends('BoldNumber', [{ ...pageview, math: 'total' }]) },
  { name: 'Users in the range', source: trends('ActionsTable', [{ ...pageview, math: 'dau' }]) },
];

/** Creates the dashboard and its six insights through the API; answers the dashboard's id. */
export async function createBenchDashboard(url: string, environmentId: number, headers: Record<string, string>): Promise<number> {
  const base = `${url}/api/environments/${environmentId}`;
  const created = await fetch(`${base}/dashboards/`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench: six tiles' }) });
  if (created.status !== 201) throw new Error(`dashboard: ${created.status} ${(await created.text()).slice(0, 300)}`);
  const { id } = (await created.json()) as { id: number };
  for (const tile of DASHBOARD_TILES) {
    const body = { name: tile.name, query: { kind: 'InsightVizNode', source: tile.source }, dashboards: [id] };
    const response = await fetch(`${base}/insights/`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`insight ${tile.name}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  }
  return id;
}

/** The baseline: the six tiles' queries through `POST /query/`, all at once. */
export async function tileQueriesAtOnce(url: string, environmentId: number, headers: Record<string, string>): Promise<void> {
  await Promise.all(
    DASHBOARD_TILES.map(async (tile) => {
      const response = await fetch(`${url}/api/environments/${environmentId}/query/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: tile.source }),
      });
      if (response.status !== 200) throw new Error(`${tile.name}: ${response.status} ${(await response.text()).slice(0, 300)}`);
      await response.arrayBuffer();
    }),
  );
}
