import { Anchor, Group, Paper, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { DashboardFilters, DashboardTile } from '../../api/dashboards';
import { ConfirmAction } from '../../components/ConfirmAction';
import { InsightViz, type InsightVizProps } from '../insights/viz/InsightViz';
import { tileDateRange } from './tile-cache';

export function tileName(tile: DashboardTile): string {
  return tile.insight.name || tile.insight.derived_name || 'Untitled';
}

/** The insight's chart over the dashboard's date range (the insight's own when the dashboard sets none). */
function TileBody({
  environmentId,
  tile,
  filters,
  height,
}: {
  environmentId: number;
  tile: DashboardTile;
  filters: DashboardFilters;
  height: number;
}) {
  const query = tile.insight.query as InsightVizProps['query'] | null;
  if (!query) return <Text c="dimmed">This insight has no query.</Text>;
  const dateRange = tileDateRange(filters);
  // Room under a line or bar chart for its legend of series totals; a long legend gets at most
  // 40% of the tile and scrolls, so the chart keeps most of it.
  const legend = Math.min(32 * Math.max(1, tile.insight.result?.length ?? 1), Math.round(height * 0.4));
  return <InsightViz environmentId={environmentId} query={query} dateRange={dateRange} height={Math.max(120, height - legend)} />;
}

/** One tile: the insight's name (a link to it), a remove action, and its chart. */
export function TileCard({
  tile,
  environmentId,
  filters,
  height,
  editing,
  onRemove,
}: {
  tile: DashboardTile;
  environmentId: number;
  filters: DashboardFilters;
  height: number;
  editing: boolean;
  onRemove: () => Promise<unknown>;
}) {
  const name = tileName(tile);
  return (
    <Paper
      withBorder
      p="sm"
      h="100%"
      data-testid="dashboard-tile"
      data-tile-id={tile.id}
      style={{ display: 'flex', flexDirection: 'column', overflow: 'hidden', cursor: editing ? 'move' : undefined }}
    >
      <Group justify="space-between" wrap="nowrap" mb="xs" className="tile-header">
        <Anchor component={Link} to={`/project/${environmentId}/insights/${tile.insight.short_id}`} fw={600} truncate miw={0}>
          {name}
        </Anchor>
        <ConfirmAction label="Remove" ariaLabel={`Remove ${name}`} title="Remove from dashboard?" variant="subtle" action={onRemove}>
          “{name}” will be taken off this dashboard. The insight stays saved.
        </ConfirmAction>
      </Group>
      <div style={{ flex: 1, minHeight: 0, overflow: 'auto' }} data-testid="tile-body">
        <TileBody environmentId={environmentId} tile={tile} filters={filters} height={height} />
      </div>
    </Paper>
  );
}
