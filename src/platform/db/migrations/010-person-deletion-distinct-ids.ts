import type { HogletMigration } from './column-types.js';

/**
 * The distinct ids a deleted person had, kept with the deletion of its events: an event belongs to
 * the person its distinct id belongs to (events read that way), not only to the person it was
 * processed with, so events sent before a merge, or personless, go with the person too.
 */
export const personDeletionDistinctIds: HogletMigration = {
  name: '010-person-deletion-distinct-ids',
  async up(db, t) {
    await db.schema
      .createTable('pending_deletion_distinct_ids')
      .addColumn('deletion_id', t.bigint, (c) => c.notNull().references('pending_deletions.id').onDelete('cascade'))
      .addColumn('distinct_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('pending_deletion_distinct_ids_pkey', ['deletion_id', 'distinct_id'])
      .execute();
  },
};
