import type { AuthTables } from '../auth/tables.js';
import type { TenancyTables } from '../tenancy/tables.js';

/** Shared id allocation (see db/counters.ts). */
export interface CountersTable {
  name: string;
  value: number;
}

/** Every table Hoglet has, for Kysely's typing. Each feature declares its own tables. */
export interface Schema extends TenancyTables, AuthTables {
  counters: CountersTable;
}
