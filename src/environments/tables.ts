import type { Generated } from 'kysely';

export interface OrganizationsTable {
  id: string; // UUID
  name: string;
  slug: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectsTable {
  /** Equal to the id of the project's first environment (see platform/db/counters.ts). */
  id: number;
  organization_id: string;
  name: string;
  created_at: string;
}

/** An environment; PostHog calls it a team. */
export interface TeamsTable {
  id: number;
  uuid: string;
  organization_id: string;
  project_id: number;
  name: string;
  api_token: string;
  /** The project secret API key (`phs_…`); null until the first rotation. */
  secret_api_token: string | null;
  /** The key the last rotation replaced, still accepted until it is deleted. */
  secret_api_token_backup: string | null;
  /** The configurable fields of team-fields.ts, stored as one JSON document. */
  settings: unknown;
  ingested_event: boolean | number;
  created_at: string;
  updated_at: string;
  /** `generating` while demo data is being written (is_demo environments). */
  demo_data_status: string | null;
}

export interface UsersTable {
  id: Generated<number>;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_active: boolean | number;
  is_staff: boolean | number;
  is_email_verified: boolean | number;
  current_organization_id: string | null;
  current_team_id: number | null;
  role_at_organization: string | null;
  date_joined: string;
  /** `scrypt$N$r$p$salt$hash` (auth/passwords.ts); null: no password set yet (020-accounts). */
  password: string | null;
  last_login: string | null;
}

export interface OrganizationMembershipsTable {
  id: Generated<number>;
  organization_id: string;
  user_id: number;
  /** PostHog's levels: 1 member, 8 admin, 15 owner. */
  level: number;
  joined_at: string;
  /** PostHog's membership id (020-accounts); every row has one. */
  uuid: string | null;
  updated_at: string | null;
}

/** Secrets of the installation (018-instance-secrets), such as the JWT signing key. */
export interface InstanceSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface TenancyTables {
  instance_secrets: InstanceSecretsTable;
  organizations: OrganizationsTable;
  projects: ProjectsTable;
  teams: TeamsTable;
  users: UsersTable;
  organization_memberships: OrganizationMembershipsTable;
}
