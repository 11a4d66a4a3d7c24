import type { HogletMigration } from './column-types.js';

/**
 * A dashboard's `filters` (PostHog's Dashboard.filters): the date range the app applies to every
 * tile, `{date_from, date_to}`. Null reads as `{}`, so rows from before need no backfill.
 */
export const dashboardFilters: HogletMigration = {
  name: '022-dashboard-filters',
  async up(db, t) {
    await db.schema.alterTable('dashboards').addColumn('filters', t.json).execute();
  },
};
