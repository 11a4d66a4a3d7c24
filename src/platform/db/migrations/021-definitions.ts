import type { HogletMigration } from './column-types.js';

/**
 * Event and property definitions (PostHog's posthog_eventdefinition, posthog_propertydefinition
 * and posthog_eventproperty), written by the worker when a batch meets a name it has not met.
 * `group_type_index` is -1 for event and person properties, so one unique key holds on both
 * backends (a NULL in a unique key never conflicts).
 */
export const definitions: HogletMigration = {
  name: '021-definitions',
  async up(db, t) {
    await db.schema
      .createTable('event_definitions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_seen_at', t.timestamp)
      .addColumn('description', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addUniqueConstraint('event_definitions_team_name', ['team_id', 'name'])
      .execute();
    await db.schema
      .createTable('property_definitions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('group_type_index', 'integer', (c) => c.notNull())
      .addColumn('property_type', 'text')
      .addColumn('is_numerical', t.bool, (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addUniqueConstraint('property_definitions_team_kind_name', ['team_id', 'type', 'group_type_index', 'name'])
      .execute();
    await db.schema
      .createTable('event_properties')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('property', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_properties_pkey', ['team_id', 'event', 'property'])
      .execute();
    await db.schema.createIndex('event_properties_property_idx').on('event_properties').columns(['team_id', 'property']).execute();
  },
};
