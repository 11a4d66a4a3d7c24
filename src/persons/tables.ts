import type { Generated } from 'kysely';

export interface PersonsTable {
  id: Generated<number>;
  uuid: string;
  team_id: number;
  properties: unknown;
  is_identified: boolean | number;
  created_at: string;
  version: number;
}

export interface PersonDistinctIdsTable {
  team_id: number;
  distinct_id: string;
  person_id: number;
}

export interface PersonsTables {
  persons: PersonsTable;
  person_distinct_ids: PersonDistinctIdsTable;
}
