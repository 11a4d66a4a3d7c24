export interface EarlyAccessFeaturesTable {
  id: string;
  project_id: number;
  team_id: number;
  feature_flag_id: number | null;
  name: string;
  description: string;
  /** draft, concept, alpha, beta, general-availability or archived (core/stages.ts). */
  stage: string;
  documentation_url: string;
  /** Arbitrary JSON handed to posthog-js with the feature; null reads as `{}`. */
  payload: unknown;
  created_by_id: number | null;
  created_at: string;
}

export interface EarlyAccessTables {
  early_access_features: EarlyAccessFeaturesTable;
}
