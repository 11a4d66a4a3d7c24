/**
 * Dashboards: PostHog's `/api/environments/:id/dashboards/` (list, create, PATCH for fields, tile
 * layouts and removal, the date filter, soft delete), the saved insights a tile can show (placed
 * through the insight's `dashboards` field), and the environment's `primary_dashboard`.
 */
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import type { UserBasic } from './flags';
import { PREFETCHED_FRESH_MS } from '../query-client';

/** One breakpoint's place of a tile (react-grid-layout's units: columns and rows). */
export interface TilePlace {
  x: number;
  y: number;
  w: number;
  h: number;
  minW?: number;
  minH?: number;
}

/** PostHog keeps a place per breakpoint: `sm` (12 columns) and `xs` (1 column). */
export type TileLayouts = Partial<Record<'sm' | 'xs', TilePlace>>;

export interface DashboardBasic {
  id: number;
  name: string | null;
  description: string;
  pinned: boolean;
  created_at: string;
  created_by: UserBasic | null;
  deleted: boolean;
  tags: string[];
}

export interface DashboardFilters {
  date_from?: string | null;
  date_to?: string | null;
}

/** An insight's trends series as its serializer computes it. */
export interface TrendsSeriesResult {
  label: string;
  count: number;
  data: number[];
  labels: string[];
  breakdown_value?: unknown;
}

export interface SavedInsight {
  id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string;
  query: Record<string, unknown> | null;
  dashboards: number[];
  result: TrendsSeriesResult[] | null;
  timezone: string;
  last_modified_at: string;
}

/** An insight as the list's `?basic=true` gives it: without its result. */
export type SavedInsightBasic = Pick<SavedInsight, 'id' | 'short_id' | 'name' | 'derived_name' | 'description' | 'query' | 'dashboards'>;

export interface DashboardTile {
  id: number;
  layouts: TileLayouts;
  color: string | null;
  insight: SavedInsight;
}

export interface Dashboard extends DashboardBasic {
  filters: DashboardFilters;
  tiles: DashboardTile[];
}

export interface TileChange {
  id: number;
  layouts?: TileLayouts;
  deleted?: boolean;
}

export type DashboardWrite = Partial<Pick<Dashboard, 'name' | 'description' | 'pinned' | 'deleted' | 'filters'>> & {
  tiles?: TileChange[];
};

const dashboardsPath = (environmentId: number) => `/api/environments/${environmentId}/dashboards/`;
const insightsPath = (environmentId: number) => `/api/environments/${environmentId}/insights/`;

/** Every live dashboard (PostHog's list loads them all and searches in the page). */
export function useDashboards(environmentId: number) {
  return useQuery({
    queryKey: ['dashboards', environmentId, 'list'],
    queryFn: ({ signal }) => api<Paginated<DashboardBasic>>(`${dashboardsPath(environmentId)}?limit=1000`, { signal }),
  });
}

export function dashboardKey(environmentId: number, id: number) {
  return ['dashboards', environmentId, 'one', id] as const;
}

/** Sees each dashboard answer as it arrives (the page puts the tiles' results in the cache). */
type OnDashboard = (dashboard: Dashboard) => void;

/** A dashboard with its tiles, their insights and results (over the dashboard's date filter). */
export const dashboardQuery = (environmentId: number, id: number, onDashboard?: OnDashboard) =>
  queryOptions({
    staleTime: PREFETCHED_FRESH_MS,
    queryKey: dashboardKey(environmentId, id),
    queryFn: async ({ signal }) => {
      const dashboard = await api<Dashboard>(`${dashboardsPath(environmentId)}${id}/`, { signal });
      onDashboard?.(dashboard);
      return dashboard;
    },
  });

export function useDashboard(environmentId: number, id: number | undefined, onDashboard?: OnDashboard) {
  return useQuery({ ...dashboardQuery(environmentId, id ?? -1, onDashboard), enabled: id !== undefined });
}

/** Asks again with PostHog's `refresh` flag: Hoglet computes the tiles' results on every read. */
export function refreshDashboard(environmentId: number, id: number) {
  return api<Dashboard>(`${dashboardsPath(environmentId)}${id}/?refresh=true`);
}

export function useCreateDashboard(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description: string }) => api<Dashboard>(dashboardsPath(environmentId), { method: 'POST', body }),
    onSuccess: (dashboard) => {
      client.setQueryData(dashboardKey(environmentId, dashboard.id), dashboard);
      void client.invalidateQueries({ queryKey: ['dashboards', environmentId, 'list'] });
    },
  });
}

export function useSaveDashboard(environmentId: number, onDashboard?: OnDashboard) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: DashboardWrite }) =>
      api<Dashboard>(`${dashboardsPath(environmentId)}${id}/`, { method: 'PATCH', body }),
    onSuccess: (dashboard) => {
      onDashboard?.(dashboard);
      client.setQueryData(dashboardKey(environmentId, dashboard.id), dashboard);
      void client.invalidateQueries({ queryKey: ['dashboards', environmentId, 'list'] });
    },
  });
}

/** The environment's saved insights matching `search`, for the "add insight" picker. */
export function useSavedInsights(environmentId: number, search: string, enabled: boolean) {
  return useQuery({
    queryKey: ['dashboards', environmentId, 'insights', search],
    queryFn: ({ signal }) =>
      api<Paginated<SavedInsightBasic>>(`${insightsPath(environmentId)}?${new URLSearchParams({ limit: '100', search, basic: 'true' })}`, {
        signal,
      }),
    enabled,
  });
}

/**
 * Puts a saved insight on the dashboard, or takes it off (the dashboard's add-insight picker):
 * its `dashboards` field is the whole list.
 */
export function useToggleInsightOnDashboard(environmentId: number, dashboardId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ insight, add }: { insight: SavedInsightBasic; add: boolean }) =>
      api<SavedInsight>(`${insightsPath(environmentId)}${insight.id}/`, {
        method: 'PATCH',
        body: {
          dashboards: add ? [...new Set([...insight.dashboards, dashboardId])] : insight.dashboards.filter((id) => id !== dashboardId),
        },
      }),
    onSuccess: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: dashboardKey(environmentId, dashboardId) }),
        client.invalidateQueries({ queryKey: ['dashboards', environmentId, 'insights'] }),
      ]),
  });
}

/**
 * Puts an insight on exactly these dashboards (its `dashboards` field), from the insight's page;
 * the dashboards it joins or leaves are asked again.
 */
export function useSetInsightDashboards(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ insight, dashboards }: { insight: Pick<SavedInsight, 'id' | 'short_id'>; dashboards: number[]; changed: number }) =>
      api<SavedInsight>(`${insightsPath(environmentId)}${insight.id}/`, { method: 'PATCH', body: { dashboards } }),
    onSuccess: (insight, { changed }) => {
      client.setQueryData(['insights', environmentId, 'short', insight.short_id], insight);
      return Promise.all([
        client.invalidateQueries({ queryKey: dashboardKey(environmentId, changed) }),
        client.invalidateQueries({ queryKey: ['dashboards', environmentId, 'insights'] }),
      ]);
    },
  });
}

/** The environment's `primary_dashboard` (its home page); null when none. */
export function usePrimaryDashboard(environmentId: number, enabled = true) {
  return useQuery({
    enabled,
    queryKey: ['dashboards', environmentId, 'primary'],
    queryFn: async ({ signal }) =>
      (await api<{ primary_dashboard: number | null }>(`/api/environments/${environmentId}/`, { signal })).primary_dashboard,
  });
}

export function useSetPrimaryDashboard(environmentId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (dashboardId: number | null) =>
      api<{ primary_dashboard: number | null }>(`/api/environments/${environmentId}/`, {
        method: 'PATCH',
        body: { primary_dashboard: dashboardId },
      }),
    onSuccess: (team) => client.setQueryData(['dashboards', environmentId, 'primary'], team.primary_dashboard),
  });
}
