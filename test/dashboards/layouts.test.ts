/**
 * The pure parts of dashboards, tested directly: where tiles without a saved place go and which
 * places a save sends (web/src/pages/dashboards/layouts.ts), and how the dashboard's date range
 * replaces a tile's own (src/dashboards/dashboard-body.ts).
 */
import { describe, expect, it } from 'vitest';
import { applyDashboardFilters } from '../../src/dashboards/dashboard-body.js';
import { gridLayouts, tileChanges } from '../../web/src/pages/dashboards/layouts.js';

type Layouts = Parameters<typeof gridLayouts>[0][number]['layouts'];
const tile = (id: number, layouts: Layouts = {}) => ({ id, layouts });

describe('tile layouts', () => {
  it('places tiles without a place below the placed ones, two to a row on sm', () => {
    const tiles = [tile(1, { sm: { x: 0, y: 0, w: 12, h: 4 } }), tile(2), tile(3), tile(4)];
    const { sm, xs } = gridLayouts(tiles);
    expect(sm!.map(({ i, x, y, w, h }) => ({ i, x, y, w, h }))).toEqual([
      { i: '1', x: 0, y: 0, w: 12, h: 4 },
      { i: '2', x: 0, y: 4, w: 6, h: 5 },
      { i: '3', x: 6, y: 4, w: 6, h: 5 },
      { i: '4', x: 0, y: 9, w: 6, h: 5 },
    ]);
    expect(xs!.map(({ i, y, w }) => [i, y, w])).toEqual([
      ['1', 0, 1],
      ['2', 5, 1],
      ['3', 10, 1],
      ['4', 15, 1],
    ]);
  });

  it('keeps a saved place inside the grid', () => {
    const [item] = gridLayouts([tile(1, { sm: { x: 10, y: -2, w: 20, h: 0, minW: 3 } })]).sm!;
    expect(item).toMatchObject({ x: 0, y: 0, w: 12, h: 1, minW: 3 });
  });

  it('sends only the tiles whose place changed, keeping their other breakpoints', () => {
    const tiles = [
      tile(1, { sm: { x: 0, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 0, w: 1, h: 5 } }),
      tile(2, { sm: { x: 6, y: 0, w: 6, h: 5 } }),
    ];
    const layouts = gridLayouts(tiles);
    expect(tileChanges(tiles, layouts)).toEqual([{ id: 2, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 }, xs: { x: 0, y: 5, w: 1, h: 5 } } }]);
    const moved = { ...layouts, sm: layouts.sm!.map((l) => (l.i === '1' ? { ...l, w: 8, h: 7 } : l)) };
    const changes = tileChanges(tiles, moved);
    expect(changes.find((c) => c.id === 1)).toEqual({
      id: 1,
      layouts: { sm: { x: 0, y: 0, w: 8, h: 7, minW: 1 }, xs: { x: 0, y: 0, w: 1, h: 5 } },
    });
  });
});

describe('dashboard date filter', () => {
  const viz = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [], dateRange: { date_from: '-7d', explicitDate: true } } };

  it('replaces the range of a wrapped or bare query, keeping its other keys', () => {
    expect(applyDashboardFilters(viz, { date_from: '-30d', date_to: null })).toEqual({
      ...viz,
      source: { ...viz.source, dateRange: { date_from: '-30d', date_to: null, explicitDate: true } },
    });
    expect(applyDashboardFilters(viz.source, { date_from: '2026-11-01', date_to: '2026-11-15' })).toEqual({
      ...viz.source,
      dateRange: { date_from: '2026-11-01', date_to: '2026-11-15', explicitDate: true },
    });
  });

  it('leaves the query alone when the dashboard sets no range', () => {
    expect(applyDashboardFilters(viz, {})).toBe(viz);
    expect(applyDashboardFilters(viz, { date_from: null, date_to: null })).toBe(viz);
  });
});
