/**
 * A dashboard's answer carries every tile's result over the dashboard's range (PostHog's
 * DashboardSerializer does the same). Put into the query cache under the key InsightViz asks
 * with, a tile draws at once instead of asking the query endpoint the same question again; the
 * refresh button asks again.
 */
import { hashKey, type QueryClient } from '@tanstack/react-query';
import type { Dashboard, DashboardFilters } from '../../api/dashboards';
import { sourceOf, type InsightSource, type InsightVizNode } from '../../api/insights';
import { withDateRange } from '../insights/viz/InsightViz';

/** How long a tile's result from the dashboard stands before a tile that mounts asks again. */
const TILE_RESULT_FRESH_MS = 5 * 60_000;

/** The date range the tiles pass to InsightViz: the dashboard's, or none (each insight's own). */
export function tileDateRange(filters: DashboardFilters): { date_from: string; date_to: string | null } | null {
  return filters.date_from ? { date_from: filters.date_from, date_to: filters.date_to ?? null } : null;
}

/** Seeds the cache with the tiles' results; answers the hashes of the query keys it seeded. */
export function seedTileResults(client: QueryClient, environmentId: number, dashboard: Dashboard): Set<string> {
  const seeded = new Set<string>();
  const range = tileDateRange(dashboard.filters);
  for (const tile of dashboard.tiles) {
    const found = sourceOf(tile.insight.query as InsightVizNode | InsightSource | null);
    // Hoglet's insight serializer computes trends; other kinds are left to InsightViz.
    if (!found || found.kind !== 'TrendsQuery' || !tile.insight.result) continue;
    const key = ['insights', environmentId, 'query', withDateRange(found, range)];
    client.setQueryDefaults(key, { staleTime: TILE_RESULT_FRESH_MS });
    client.setQueryData(key, { results: tile.insight.result, timezone: tile.insight.timezone });
    seeded.add(hashKey(key));
  }
  return seeded;
}
