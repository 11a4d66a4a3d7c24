/**
 * Tiles' places on the grid, as PostHog keeps them in each tile's `layouts`: one place per
 * breakpoint, `sm` on 12 columns and `xs` on one. A tile placed through the insight's `dashboards`
 * field has no place yet: it goes below the others, two to a row, as PostHog's app puts it.
 */
// Structural shapes (those of api/dashboards.ts and react-grid-layout's LayoutItem), so this file
// stands alone and tests load it directly, without the DOM's types.
interface TilePlace {
  x: number;
  y: number;
  w: number;
  h: number;
  minW?: number;
  minH?: number;
}
type TileLayouts = Partial<Record<'sm' | 'xs', TilePlace>>;
interface PlacedTile {
  id: number;
  layouts: TileLayouts;
}
/** react-grid-layout's LayoutItem, the fields used here. */
interface LayoutItem {
  i: string;
  x: number;
  y: number;
  w: number;
  h: number;
  minW?: number;
  minH?: number;
}
type Layout = readonly LayoutItem[];
type GridLayouts = Partial<Record<Breakpoint, Layout>>;
interface LayoutChange {
  id: number;
  layouts: TileLayouts;
}

export type Breakpoint = 'sm' | 'xs';
/** The sm grid needs room for two 6-column tiles side by side; below it, one column. */
export const BREAKPOINTS: Record<Breakpoint, number> = { sm: 768, xs: 0 };
export const COLS: Record<Breakpoint, number> = { sm: 12, xs: 1 };
const DEFAULT_W: Record<Breakpoint, number> = { sm: 6, xs: 1 };
const DEFAULT_H = 5;

function readPlace(value: unknown): TilePlace | null {
  if (typeof value !== 'object' || value === null) return null;
  const place = value as Record<string, unknown>;
  const numbers = ['x', 'y', 'w', 'h'].every((k) => typeof place[k] === 'number' && Number.isFinite(place[k]));
  return numbers ? (place as unknown as TilePlace) : null;
}

function layoutFor(tiles: PlacedTile[], breakpoint: Breakpoint): Layout {
  const cols = COLS[breakpoint];
  const placed: LayoutItem[] = [];
  const unplaced: PlacedTile[] = [];
  for (const tile of tiles) {
    const place = readPlace(tile.layouts?.[breakpoint]);
    if (!place) {
      unplaced.push(tile);
      continue;
    }
    const w = Math.min(Math.max(1, place.w), cols);
    placed.push({
      i: String(tile.id),
      x: Math.min(Math.max(0, place.x), cols - w),
      y: Math.max(0, place.y),
      w,
      h: Math.max(1, place.h),
      minW: Math.min(place.minW ?? 1, cols),
      minH: place.minH,
    });
  }
  const bottom = placed.reduce((max, item) => Math.max(max, item.y + item.h), 0);
  const perRow = Math.max(1, Math.floor(cols / DEFAULT_W[breakpoint]));
  unplaced.forEach((tile, n) => {
    placed.push({
      i: String(tile.id),
      x: (n % perRow) * DEFAULT_W[breakpoint],
      y: bottom + Math.floor(n / perRow) * DEFAULT_H,
      w: DEFAULT_W[breakpoint],
      h: DEFAULT_H,
    });
  });
  return placed;
}

/** The grid's layouts for every breakpoint, from the tiles' saved places. */
export function gridLayouts(tiles: PlacedTile[]): GridLayouts {
  return { sm: layoutFor(tiles, 'sm'), xs: layoutFor(tiles, 'xs') };
}

/** The PATCH `tiles` for the tiles whose place on some breakpoint differs from the saved one. */
export function tileChanges(tiles: PlacedTile[], layouts: GridLayouts): LayoutChange[] {
  const changes: LayoutChange[] = [];
  for (const tile of tiles) {
    const next: TileLayouts = { ...tile.layouts };
    let changed = false;
    for (const breakpoint of Object.keys(COLS) as Breakpoint[]) {
      const item = layouts[breakpoint]?.find((l) => l.i === String(tile.id));
      if (!item) continue;
      const saved = readPlace(tile.layouts?.[breakpoint]);
      const place: TilePlace = { x: item.x, y: item.y, w: item.w, h: item.h };
      if (item.minW !== undefined) place.minW = item.minW;
      if (item.minH !== undefined) place.minH = item.minH;
      if (saved && saved.x === place.x && saved.y === place.y && saved.w === place.w && saved.h === place.h) continue;
      next[breakpoint] = place;
      changed = true;
    }
    if (changed) changes.push({ id: tile.id, layouts: next });
  }
  return changes;
}
