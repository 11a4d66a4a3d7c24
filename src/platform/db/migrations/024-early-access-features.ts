import type { HogletMigration } from './column-types.js';

/**
 * Early access features (PostHog's posthog_earlyaccessfeature): a named feature in a stage, linked
 * to the feature flag that turns it on for the persons who opt in. The id is a uuid (PostHog's
 * UUIDModel). A flag is linked to at most one feature (PostHog refuses a second one); the unique
 * index holds that for concurrent creates too (a NULL flag never conflicts).
 */
export const earlyAccessFeatures: HogletMigration = {
  name: '024-early-access-features',
  async up(db, t) {
    await db.schema
      .createTable('early_access_features')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', t.bigint, (c) => c.notNull())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('feature_flag_id', t.bigint)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('documentation_url', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('payload', t.json)
      .addColumn('created_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('early_access_features_project_idx')
      .on('early_access_features')
      .columns(['project_id', 'created_at'])
      .execute();
    await db.schema
      .createIndex('early_access_features_flag_unique')
      .on('early_access_features')
      .columns(['project_id', 'feature_flag_id'])
      .unique()
      .execute();
  },
};
