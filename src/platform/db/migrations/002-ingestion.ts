import type { HogletMigration } from './column-types.js';
import { boolDefault } from './column-types.js';

export const ingestion: HogletMigration = {
  name: '002-ingestion',
  async up(db, t) {
    // Accepted, not yet processed events. A 200 from capture means the row is committed here.
    await t
      .serialId(db.schema.createTable('ingestion_queue'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('lane', 'text', (c) => c.notNull())
      .addColumn('distinct_id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('received_at', t.timestamp, (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('ingestion_queue_lane_id_idx').on('ingestion_queue').columns(['lane', 'id']).execute();

    // Which worker process owns a lane right now (renewed while it runs, taken over when it lapses).
    await db.schema
      .createTable('worker_leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('expires_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('events')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('uuid', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('distinct_id', 'text', (c) => c.notNull())
      .addColumn('person_id', 'text')
      .addColumn('properties', t.json, (c) => c.notNull())
      .addColumn('timestamp', t.timestamp, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('session_id', 'text')
      .addColumn('elements_chain', 'text')
      .addPrimaryKeyConstraint('events_pkey', ['team_id', 'uuid'])
      .execute();
    await db.schema.createIndex('events_team_timestamp_idx').on('events').columns(['team_id', 'timestamp']).execute();
    await db.schema.createIndex('events_team_event_timestamp_idx').on('events').columns(['team_id', 'event', 'timestamp']).execute();
    await db.schema.createIndex('events_team_distinct_id_idx').on('events').columns(['team_id', 'distinct_id', 'timestamp']).execute();
    await db.schema.createIndex('events_team_session_idx').on('events').columns(['team_id', 'session_id']).execute();

    await t
      .serialId(db.schema.createTable('persons'))
      .addColumn('uuid', 'text', (c) => c.notNull().unique())
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('properties', t.json, (c) => c.notNull())
      .addColumn('is_identified', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('version', t.bigint, (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('persons_team_idx').on('persons').columns(['team_id', 'id']).execute();

    await db.schema
      .createTable('person_distinct_ids')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('distinct_id', 'text', (c) => c.notNull())
      .addColumn('person_id', t.bigint, (c) => c.notNull().references('persons.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('person_distinct_ids_pkey', ['team_id', 'distinct_id'])
      .execute();
    await db.schema.createIndex('person_distinct_ids_person_idx').on('person_distinct_ids').column('person_id').execute();

    await db.schema
      .createTable('group_type_mappings')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('group_type', 'text', (c) => c.notNull())
      .addColumn('group_type_index', 'integer', (c) => c.notNull())
      .addColumn('name_singular', 'text')
      .addColumn('name_plural', 'text')
      .addPrimaryKeyConstraint('group_type_mappings_pkey', ['team_id', 'group_type'])
      .addUniqueConstraint('group_type_mappings_index_key', ['team_id', 'group_type_index'])
      .execute();

    await db.schema
      .createTable('groups')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('group_type_index', 'integer', (c) => c.notNull())
      .addColumn('group_key', 'text', (c) => c.notNull())
      .addColumn('group_properties', t.json, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('version', t.bigint, (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('groups_pkey', ['team_id', 'group_type_index', 'group_key'])
      .execute();

    await t
      .serialId(db.schema.createTable('ingestion_warnings'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('details', t.json, (c) => c.notNull())
      .addColumn('timestamp', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('ingestion_warnings_team_idx').on('ingestion_warnings').columns(['team_id', 'timestamp']).execute();
  },
};
