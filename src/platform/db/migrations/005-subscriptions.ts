import type { HogletMigration } from './column-types.js';
import { boolDefault } from './column-types.js';

/** Insights, dashboards with their tiles, and subscriptions (scheduled deliveries of either). */
export const subscriptions: HogletMigration = {
  name: '005-subscriptions',
  async up(db, t) {
    await t
      .serialId(db.schema.createTable('insights'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('short_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('query', t.json, (c) => c.notNull())
      .addColumn('tags', t.json, (c) => c.notNull())
      .addColumn('favorited', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('deleted', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('created_by_id', t.bigint)
      .addColumn('last_modified_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_modified_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('insights_team_idx').on('insights').columns(['team_id', 'id']).execute();
    await db.schema.createIndex('insights_short_id_idx').on('insights').columns(['team_id', 'short_id']).unique().execute();

    await t
      .serialId(db.schema.createTable('dashboards'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('pinned', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('tags', t.json, (c) => c.notNull())
      .addColumn('deleted', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('created_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_modified_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('dashboards_team_idx').on('dashboards').columns(['team_id', 'id']).execute();

    await t
      .serialId(db.schema.createTable('dashboard_tiles'))
      .addColumn('dashboard_id', t.bigint, (c) => c.notNull().references('dashboards.id').onDelete('cascade'))
      .addColumn('insight_id', t.bigint, (c) => c.notNull().references('insights.id').onDelete('cascade'))
      .addColumn('layouts', t.json, (c) => c.notNull())
      .addColumn('color', 'text')
      .addColumn('deleted', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('dashboard_tiles_dashboard_idx').on('dashboard_tiles').columns(['dashboard_id', 'id']).execute();
    await db.schema.createIndex('dashboard_tiles_insight_idx').on('dashboard_tiles').column('insight_id').execute();

    // The claim columns make delivery safe with several worker processes: a process takes a due
    // row with a conditional UPDATE (token + lease expiry), delivers, then advances it.
    await t
      .serialId(db.schema.createTable('subscriptions'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('dashboard_id', t.bigint)
      .addColumn('insight_id', t.bigint)
      .addColumn('title', 'text')
      .addColumn('target_type', 'text', (c) => c.notNull())
      .addColumn('target_value', 'text', (c) => c.notNull())
      .addColumn('frequency', 'text', (c) => c.notNull())
      .addColumn('interval', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('byweekday', t.json)
      .addColumn('bysetpos', 'integer')
      .addColumn('count', 'integer')
      .addColumn('start_date', t.timestamp, (c) => c.notNull())
      .addColumn('until_date', t.timestamp)
      .addColumn('next_delivery_date', t.timestamp)
      .addColumn('deleted', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('created_by_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('pending_invite', t.json)
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('retry_at', t.timestamp)
      .addColumn('last_error', 'text')
      // E-mail recipients already served for the due occurrence, so a retry after a partial failure skips them.
      .addColumn('sent_to', t.json)
      .addColumn('claim_token', 'text')
      .addColumn('claim_expires_at', t.timestamp)
      .execute();
    await db.schema.createIndex('subscriptions_team_idx').on('subscriptions').columns(['team_id', 'id']).execute();
    await db.schema.createIndex('subscriptions_due_idx').on('subscriptions').columns(['deleted', 'next_delivery_date']).execute();

    // One row per delivery attempt: what was sent where, or why it failed.
    await t
      .serialId(db.schema.createTable('subscription_deliveries'))
      .addColumn('subscription_id', t.bigint, (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('occurrence', t.timestamp)
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('skipped_occurrences', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('subscription_deliveries_subscription_idx')
      .on('subscription_deliveries')
      .columns(['subscription_id', 'id'])
      .execute();
  },
};
