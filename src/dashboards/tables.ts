import type { Generated } from 'kysely';

export interface DashboardsTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  pinned: boolean | number;
  tags: unknown;
  /** PostHog's Dashboard.filters (`{date_from, date_to}`); null reads as `{}`. */
  filters: unknown;
  deleted: boolean | number;
  created_by_id: number | null;
  created_at: string;
  last_modified_at: string;
}

/** An insight placed on a dashboard. */
export interface DashboardTilesTable {
  id: Generated<number>;
  dashboard_id: number;
  insight_id: number;
  layouts: unknown;
  color: string | null;
  deleted: boolean | number;
  created_at: string;
}

export interface DashboardsTables {
  dashboards: DashboardsTable;
  dashboard_tiles: DashboardTilesTable;
}
