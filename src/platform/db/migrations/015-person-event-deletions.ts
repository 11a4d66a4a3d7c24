import type { HogletMigration } from './column-types.js';

/**
 * What became of each person's queued event deletion, for the persons API's `deletion_status`
 * (PostHog lists its AsyncDeletion rows of persons): one row per deleted person, pending until the
 * background deletion carrying it (`deletion_id`, a `background_deletions` row that goes when it
 * is done, so no foreign key) has walked the events, then `verified_at`. The `team_id` column
 * makes an environment's deletion take these rows with it.
 */
export const personEventDeletions: HogletMigration = {
  name: '015-person-event-deletions',
  async up(db, t) {
    await t
      .serialId(db.schema.createTable('person_event_deletions'))
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('person_uuid', 'text', (c) => c.notNull())
      .addColumn('deletion_id', t.bigint)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('verified_at', t.timestamp)
      .execute();
    await db.schema
      .createIndex('person_event_deletions_person')
      .on('person_event_deletions')
      .columns(['team_id', 'person_uuid'])
      .unique()
      .execute();
    await db.schema.createIndex('person_event_deletions_deletion').on('person_event_deletions').column('deletion_id').execute();
  },
};
