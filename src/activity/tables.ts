export interface ActivityLogTable {
  id: string;
  organization_id: string | null;
  team_id: number | null;
  /** PostHog's scope names: `Team`, `FeatureFlag`, `Subscription`, … */
  scope: string;
  item_id: string;
  /** `created`, `updated`, `deleted`, or an action name. */
  activity: string;
  user_id: number | null;
  api_key_id: string | null;
  detail: unknown;
  created_at: string;
}

export interface ProductIntentsTable {
  team_id: number;
  product_type: string;
  contexts: unknown;
  onboarding_completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ActivityTables {
  activity_log: ActivityLogTable;
  product_intents: ProductIntentsTable;
}
