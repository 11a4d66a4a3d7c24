/**
 * A dashboard's answer carries every tile's result over the dashboard's range (PostHog's
 * DashboardSerializer does the same). Put into the query cache under the key InsightViz asks
 * with, a tile draws at once instead of asking the query endpoint the same question again; the
 * refresh button asks again. What the answer does not carry is asked for as it arrives, and the
 * dashboard itself as the navigation to it begins.
 */
import { hashKey, type QueryClient } from '@tanstack/react-query';
import { dashboardQuery, type Dashboard, type DashboardFilters } from '../../api/dashboards';
import { chartSources, insightQuery, sourceOf, withDateRange, type InsightSource, type InsightVizNode } from '../../api/insights';
import { prefetch, queryClient } from '../../query-client';

/** How long a tile's result from the dashboard stands before a tile that mounts asks again. */
const TILE_RESULT_FRESH_MS = 5 * 60_000;

/** The date range the tiles pass to InsightViz: the dashboard's, or none (each insight's own). */
export function tileDateRange(filters: DashboardFilters): { date_from: string; date_to: string | null } | null {
  return filters.date_from ? { date_from: filters.date_from, date_to: filters.date_to ?? null } : null;
}

/**
 * Seeds the cache with the tiles' results; answers the hashes of the query keys it seeded. Starts
 * the queries the answer does not carry (a table's dates, a funnel), so that no tile waits until
 * it is drawn to ask for them.
 */
export function seedTileResults(client: QueryClient, environmentId: number, dashboard: Dashboard): Set<string> {
  const seeded = new Set<string>();
  const range = tileDateRange(dashboard.filters);
  for (const tile of dashboard.tiles) {
    const found = sourceOf(tile.insight.query as InsightVizNode | InsightSource | null);
    if (!found) continue;
    const source = withDateRange(found, range);
    // Hoglet's insight serializer computes trends; other kinds are left to InsightViz.
    if (source.kind === 'TrendsQuery' && tile.insight.result) {
      const key = insightQuery(environmentId, source).queryKey;
      client.setQueryDefaults(key, { staleTime: TILE_RESULT_FRESH_MS });
      client.setQueryData(key, { results: tile.insight.result, timezone: tile.insight.timezone });
      seeded.add(hashKey(key));
    }
    for (const asked of chartSources(source)) {
      const query = insightQuery(environmentId, asked);
      if (client.getQueryData(query.queryKey) === undefined) void client.prefetchQuery(query);
    }
  }
  return seeded;
}

/**
 * Asks for the dashboard as the navigation to its page begins (routes.tsx), its tiles' results
 * seeded on arrival as the page seeds them.
 */
export function prefetchDashboard(environmentId: number, dashboardId: number): void {
  prefetch(dashboardQuery(environmentId, dashboardId, (d) => seedTileResults(queryClient, environmentId, d)));
}
