import { Anchor, Group, Paper, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import type { DashboardFilters, DashboardTile } from '../../api/dashboards';
import { ConfirmAction } from '../../components/ConfirmAction';

export function tileName(tile: DashboardTile): string {
  return tile.insight.name || tile.insight.derived_name || 'Untitled';
}

/** The insight's series and their totals over the dashboard's range, as the dashboard API computed them. */
function TileBody({ tile }: { tile: DashboardTile; filters: DashboardFilters; height: number }) {
  const result = tile.insight.result;
  if (!result) return <Text c="dimmed">This insight cannot be shown here.</Text>;
  return (
    <Stack gap={4}>
      {result.map((series, n) => (
        <Group key={n} justify="space-between" wrap="nowrap" data-testid="tile-series">
          <Text size="sm" truncate>
            {series.label}
            {series.breakdown_value !== undefined && series.breakdown_value !== null ? ` — ${String(series.breakdown_value)}` : ''}
          </Text>
          <Text fw={700} fz={22} data-testid="tile-count">
            {series.count.toLocaleString()}
          </Text>
        </Group>
      ))}
    </Stack>
  );
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
        <Anchor component={Link} to={`/project/${environmentId}/insights/${tile.insight.short_id}`} fw={600} truncate>
          {name}
        </Anchor>
        <ConfirmAction label="Remove" ariaLabel={`Remove ${name}`} title="Remove from dashboard?" variant="subtle" action={onRemove}>
          “{name}” will be taken off this dashboard. The insight stays saved.
        </ConfirmAction>
      </Group>
      <div style={{ flex: 1, minHeight: 0 }} data-testid="tile-body">
        <TileBody tile={tile} filters={filters} height={height} />
      </div>
    </Paper>
  );
}
