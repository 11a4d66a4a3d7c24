import type { Generated } from 'kysely';

export interface CohortsTable {
  id: Generated<number>;
  project_id: number;
  team_id: number;
  name: string;
  description: string;
  /** `{"properties": {"type": "AND"|"OR", "values": [...]}}`; null for static cohorts. */
  filters: unknown;
  is_static: boolean | number;
  deleted: boolean | number;
  count: number | null;
  version: number | null;
  created_by_id: number | null;
  created_at: string;
  last_calculation: string | null;
  /** Asked for or running (migration 031, as the columns below; calculator.ts). */
  is_calculating: Generated<boolean | number>;
  errors_calculating: Generated<number>;
  last_error_at: string | null;
  calculation_requests: Generated<number>;
  calculation_retry_at: string | null;
  calculation_owner: string | null;
  calculation_lease_until: string | null;
}

export interface CohortPeopleTable {
  cohort_id: number;
  person_id: number;
}

export interface CohortsTables {
  cohorts: CohortsTable;
  cohort_people: CohortPeopleTable;
}
