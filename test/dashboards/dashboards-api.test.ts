/**
 * The dashboard API beyond plain fields: tile layouts and removal through PATCH `tiles`, and the
 * dashboard's `filters` date range, which replaces every tile's own range in the results it
 * serves (PostHog's DashboardSerializer). The fixture's counts are worked out by hand below.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createDashboard, createInsight, env } from '../subscriptions/helpers.js';

const server = useTestServer();
const DAY = 86_400_000;

// 'order placed': 2 events 3 days ago, 1 event 20 days ago, 3 events 60 days ago. The insights'
// own range is -7d (2 events); -30d holds 3, -90d all 6.
function fixture(now = Date.now()) {
  const at = (daysAgo: number, i: number) => ({
    event: 'order placed',
    distinct_id: `u${daysAgo}-${i}`,
    timestamp: new Date(now - daysAgo * DAY).toISOString(),
    properties: {},
  });
  return [at(3, 0), at(3, 1), at(20, 0), at(60, 0), at(60, 1), at(60, 2)];
}

const total = (tile: any) => tile.insight.result[0].count;

describe('dashboard tiles and filters', () => {
  it('saves tile layouts, removes tiles, and applies the date filter to every tile', async () => {
    await server.ingest(fixture());
    const dashboard = await createDashboard(server, { name: 'Orders' });
    expect(dashboard.filters).toEqual({});
    const a = await createInsight(server, { name: 'A', dashboards: [dashboard.id] });
    await createInsight(server, { name: 'B', dashboards: [dashboard.id] });
    const other = await createDashboard(server, { name: 'Other' });
    await createInsight(server, { name: 'C', dashboards: [other.id] });
    const url = `${env(server)}/dashboards/${dashboard.id}/`;

    const got = (await server.request(url)).body;
    expect(got.tiles.map(total)).toEqual([2, 2]);
    const [tileA, tileB] = got.tiles;
    const otherTile = (await server.request(`${env(server)}/dashboards/${other.id}/`)).body.tiles[0];

    const layouts = { sm: { x: 6, y: 0, w: 6, h: 7 }, xs: { x: 0, y: 0, w: 1, h: 7 } };
    const patched = await server.request(url, {
      method: 'PATCH',
      body: {
        tiles: [
          { id: tileA.id, layouts },
          { id: otherTile.id, layouts },
        ],
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.tiles.find((t: any) => t.id === tileA.id).layouts).toEqual(layouts);
    expect(patched.body.tiles.find((t: any) => t.id === tileB.id).layouts).toEqual(tileB.layouts);
    // Another dashboard's tile is not this PATCH's to change.
    expect((await server.request(`${env(server)}/dashboards/${other.id}/`)).body.tiles[0].layouts).toEqual(otherTile.layouts);

    const filtered = await server.request(url, { method: 'PATCH', body: { filters: { date_from: '-30d', date_to: null } } });
    expect(filtered.status, filtered.text).toBe(200);
    expect(filtered.body.filters).toEqual({ date_from: '-30d', date_to: null });
    expect(filtered.body.tiles.map(total)).toEqual([3, 3]);
    expect(filtered.body.tiles[0].insight.query.source.dateRange).toMatchObject({ date_from: '-30d', date_to: null });
    const wider = (await server.request(url, { method: 'PATCH', body: { filters: { date_from: '-90d' } } })).body;
    expect(wider.tiles.map(total)).toEqual([6, 6]);
    // The insight itself keeps its own range.
    expect((await server.request(`${env(server)}/insights/${a.id}/`)).body.result[0].count).toBe(2);
    const cleared = (await server.request(url, { method: 'PATCH', body: { filters: {} } })).body;
    expect(cleared.tiles.map(total)).toEqual([2, 2]);

    const removed = await server.request(url, { method: 'PATCH', body: { tiles: [{ id: tileB.id, deleted: true }] } });
    expect(removed.body.tiles.map((t: any) => t.insight.name)).toEqual(['A']);
    expect((await server.request(`${env(server)}/insights/${tileB.insight.id}/`)).body.dashboards).toEqual([]);
  });

  it('answers bad filters and tiles with 400s in PostHog’s envelope', async () => {
    const dashboard = await createDashboard(server, { name: 'Bad input' });
    const url = `${env(server)}/dashboards/${dashboard.id}/`;
    const cases: Array<[unknown, string]> = [
      [{ filters: 'x' }, 'filters'],
      [{ filters: { date_from: 'yesterday-ish' } }, 'filters'],
      [{ tiles: {} }, 'tiles'],
      [{ tiles: [{ layouts: {} }] }, 'tiles__0__id'],
      [{ tiles: [{ id: 1, layouts: [] }] }, 'tiles__0__layouts'],
      [{ tiles: [{ id: 1, deleted: 'yes' }] }, 'tiles__0__deleted'],
    ];
    for (const [body, attr] of cases) {
      const res = await server.request(url, { method: 'PATCH', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', attr });
    }
    // DRF's ListField message names the Python type sent.
    for (const [body, attr, type] of [
      [{ tiles: {} }, 'tiles', 'dict'],
      [{ tags: 'a' }, 'tags', 'str'],
      [{ tags: 1 }, 'tags', 'int'],
    ] as const) {
      const res = await server.request(url, { method: 'PATCH', body });
      expect(res.body).toMatchObject({ code: 'not_a_list', detail: `Expected a list of items but got type "${type}".`, attr });
    }
    const item = await server.request(url, { method: 'PATCH', body: { tags: ['a', 1] } });
    expect(item.body).toMatchObject({ type: 'validation_error', detail: 'Not a valid string.', attr: 'tags' });
  });
});
