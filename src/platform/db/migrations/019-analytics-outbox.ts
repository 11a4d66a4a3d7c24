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
    await db
      .insertInto('event_uuids')
      .columns(['team_id', 'uuid'])
      .expression(db.selectFrom('events').select(['team_id', 'uuid']))
      .execute();
    await db.schema
      .createTable('person_overrides')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('old_person_id', 'text', (c) => c.notNull())
      .addColumn('override_person_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('person_overrides_pkey', ['team_id', 'old_person_id'])
      .execute();
    await db.schema.createIndex('person_overrides_target_idx').on('person_overrides').columns(['team_id', 'override_person_id']).execute();
    // Distinct ids that sent events without a person (PostHog's posthog_personlessdistinctid): when
    // one joins a person, its earlier events (of the uuid derived from it) are overridden to that person.
    await db.schema
      .createTable('personless_distinct_ids')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('distinct_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('personless_distinct_ids_pkey', ['team_id', 'distinct_id'])
      .execute();
    await db
      .insertInto('personless_distinct_ids')
      .columns(['team_id', 'distinct_id'])
      .expression(
        db
          .selectFrom('events as e')
          .select(['e.team_id', 'e.distinct_id'])
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('persons as p').select('p.id').whereRef('p.team_id', '=', 'e.team_id').whereRef('p.uuid', '=', 'e.person_id'),
              ),
            ),
          )
          .distinct(),
      )
      .execute();
  },
};
