import { useMemo } from 'react';
import { Responsive, useContainerWidth, type ResponsiveLayouts } from 'react-grid-layout';
import type { DashboardFilters, DashboardTile } from '../../api/dashboards';
import { BREAKPOINTS, COLS, type Breakpoint } from './layouts';
import { TileCard } from './TileCard';

const ROW_HEIGHT = 60;
const MARGIN = 16;
/** Pixels of a tile's card above its chart: padding, the title row and its gap. */
const TILE_CHROME = 64;

/**
 * The tiles on react-grid-layout's responsive grid. Dragging and resizing are on only while
 * arranging (PostHog's edit mode), so a click on a tile is a click; links and buttons inside a
 * tile never start a drag.
 */
export function DashboardGrid({
  tiles,
  layouts,
  editing,
  environmentId,
  filters,
  onLayoutsChange,
  onRemove,
}: {
  tiles: DashboardTile[];
  layouts: ResponsiveLayouts<Breakpoint>;
  editing: boolean;
  environmentId: number;
  filters: DashboardFilters;
  onLayoutsChange: (layouts: ResponsiveLayouts<Breakpoint>) => void;
  onRemove: (tile: DashboardTile) => Promise<unknown>;
}) {
  // The grid is laid out once its container is measured: laid out at a guessed width first, every
  // tile and chart was drawn twice, the second time at the real width.
  const { width, containerRef, mounted } = useContainerWidth({ measureBeforeMount: true });
  const heights = useMemo(() => {
    const byId = new Map<string, number>();
    for (const item of layouts.sm ?? []) byId.set(item.i, item.h * ROW_HEIGHT + (item.h - 1) * MARGIN - TILE_CHROME);
    return byId;
  }, [layouts]);
  return (
    // While arranging, no text is selectable: a press on selected text would start the browser's
    // own drag of it, which swallows the mouse moves the grid follows.
    <div ref={containerRef} data-testid="dashboard-grid" data-editing={editing} style={editing ? { userSelect: 'none' } : undefined}>
      {mounted && (
        <Responsive
          width={width}
          layouts={layouts}
          breakpoints={BREAKPOINTS}
          cols={COLS}
          rowHeight={ROW_HEIGHT}
          margin={[MARGIN, MARGIN]}
          containerPadding={[0, 0]}
          dragConfig={{ enabled: editing, cancel: 'a, button' }}
          resizeConfig={{ enabled: editing, handles: ['se'] }}
          onLayoutChange={(_layout, all) => {
            if (editing) onLayoutsChange(all as ResponsiveLayouts<Breakpoint>);
          }}
        >
          {tiles.map((tile) => (
            <div key={String(tile.id)}>
              <TileCard
                tile={tile}
                environmentId={environmentId}
                filters={filters}
                height={heights.get(String(tile.id)) ?? 240}
                editing={editing}
                onRemove={() => onRemove(tile)}
              />
            </div>
          ))}
        </Responsive>
      )}
    </div>
  );
}
