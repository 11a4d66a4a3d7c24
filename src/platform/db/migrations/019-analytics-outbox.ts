import type { HogletMigration } from './column-types.js';

/**
 * Events move to ClickHouse (issue 28). What stays transactional beside persons: which event uuids
 * are stored (the worker's dedupe, written in the batch's transaction), the person overrides that
 * merges leave, and the outbox: a batch's event rows, committed with the batch and then written to
 * ClickHouse with the row's token, so a crash in between repeats an insert ClickHouse drops.
 */
export const analyticsOutbox: HogletMigration = {
  name: '019-analytics-outbox',
  async up(db, t) {
    await t
      .serialId(db.schema.createTable('analytics_outbox'))
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('person_overrides', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('event_uuids')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('uuid', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('event_uuids_pkey', ['team_id', 'uuid'])
      .execute();
    // Events stored before this version are moved to ClickHouse on start (events/upgrade.ts); their uuids are known already.
    await db.insertInto('event_uuids').columns(['team_id', 'uuid']).expression(db.selectFrom('events').select(['team_id', 'uuid'])).execute();
    await db.schema
      .createTable('person_overrides')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('old_person_id', 'text', (c) => c.notNull())
      .addColumn('override_person_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('person_overrides_pkey', ['team_id', 'old_person_id'])
      .execute();
    await db.schema.createIndex('person_overrides_target_idx').on('person_overrides').columns(['team_id', 'override_person_id']).execute();
  },
};
