import type { HogletMigration } from './column-types.js';

export const environments: HogletMigration = {
  name: '004-environments',
  async up(db, t) {
    // The shared change history: every resource records create, update and delete here.
    await db.schema
      .createTable('activity_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text')
      .addColumn('team_id', t.bigint)
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('item_id', 'text', (c) => c.notNull())
      .addColumn('activity', 'text', (c) => c.notNull())
      .addColumn('user_id', t.bigint)
      .addColumn('api_key_id', 'text')
      .addColumn('detail', t.json, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('activity_log_item_idx').on('activity_log').columns(['scope', 'item_id', 'created_at']).execute();
    await db.schema.createIndex('activity_log_team_idx').on('activity_log').columns(['team_id', 'created_at']).execute();

    await db.schema
      .createTable('product_intents')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('product_type', 'text', (c) => c.notNull())
      .addColumn('contexts', t.json, (c) => c.notNull())
      .addColumn('onboarding_completed_at', t.timestamp)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('product_intents_pkey', ['team_id', 'product_type'])
      .execute();

    // How SQLite processes tell each other that cached data changed (PostgreSQL uses NOTIFY).
    await t
      .serialId(db.schema.createTable('change_notices'))
      .addColumn('origin', 'text', (c) => c.notNull())
      .addColumn('topic', 'text', (c) => c.notNull())
      .addColumn('item_id', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();

    // 'generating' while the demo data of an is_demo environment is being written.
    await db.schema.alterTable('teams').addColumn('demo_data_status', 'text').execute();
  },
};
