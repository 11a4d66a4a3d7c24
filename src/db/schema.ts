import type { AuthTables } from '../auth/tables.js';
import type { EventsTables } from '../events/tables.js';
import type { GroupsTables } from '../groups/tables.js';
import type { IngestionTables } from '../ingestion/tables.js';
import type { PersonsTables } from '../persons/tables.js';
import type { TenancyTables } from '../tenancy/tables.js';

/** Shared id allocation (see db/counters.ts). */
export interface CountersTable {
  name: string;
  value: number;
}

/** Every table Hoglet has, for Kysely's typing. Each feature declares its own tables. */
export interface Schema extends TenancyTables, AuthTables, IngestionTables, EventsTables, PersonsTables, GroupsTables {
  counters: CountersTable;
}
