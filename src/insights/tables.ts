import type { Generated } from 'kysely';

export interface InsightsTable {
  id: Generated<number>;
  team_id: number;
  short_id: string;
  name: string | null;
  description: string;
  /** The insight's query (an InsightVizNode around a TrendsQuery), as PostHog stores it. */
  query: unknown;
  tags: unknown;
  favorited: boolean | number;
  deleted: boolean | number;
  created_by_id: number | null;
  last_modified_by_id: number | null;
  created_at: string;
  last_modified_at: string;
}

export interface InsightsTables {
  insights: InsightsTable;
}
