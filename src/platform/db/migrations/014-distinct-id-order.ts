import type { HogletMigration } from './column-types.js';

/**
 * The order a person's distinct ids were given to it, which PostHog reads as the order of its
 * mapping rows' ids: the first is the one `update_property` and `delete_property` send as and the
 * one a split keeps by default, and the persons API lists them in it. SQLite keeps it already in
 * the table's rowid (a merge or split updates a row, keeping its rowid, as PostHog keeps the
 * row's id); PostgreSQL keeps no such order, so it gets a sequence column (rows already there are
 * numbered in the order the table holds them). See distinctIdOrder in persons/store.ts.
 */
export const distinctIdOrder: HogletMigration = {
  name: '014-distinct-id-order',
  async up(db, types) {
    if (types.dialect === 'postgres') await db.schema.alterTable('person_distinct_ids').addColumn('seq', 'bigserial').execute();
  },
};
