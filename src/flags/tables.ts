import type { Generated } from 'kysely';

export interface FeatureFlagsTable {
  id: Generated<number>;
  project_id: number;
  team_id: number;
  key: string;
  /** PostHog keeps the description here (legacy naming). */
  name: string;
  filters: unknown;
  active: boolean | number;
  deleted: boolean | number;
  version: number;
  ensure_experience_continuity: boolean | number;
  is_remote_configuration: boolean | number;
  has_encrypted_payloads: boolean | number;
  evaluation_runtime: string;
  bucketing_identifier: string | null;
  tags: unknown;
  created_by_id: number | null;
  last_modified_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface FlagHashKeyOverridesTable {
  team_id: number;
  person_id: number;
  feature_flag_key: string;
  hash_key: string;
}

export interface FlagsTables {
  feature_flags: FeatureFlagsTable;
  flag_hash_key_overrides: FlagHashKeyOverridesTable;
}
