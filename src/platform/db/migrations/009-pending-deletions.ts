import type { HogletMigration } from './column-types.js';

/**
 * Deletions too large for one request's transaction, carried out in the background a batch at a
 * time (src/deletions/): an environment's data, a person's events. A row stays until its
 * deletion is complete, with how far it got, so a restart resumes it.
 */
export const pendingDeletions: HogletMigration = {
  name: '009-pending-deletions',
  async up(db, t) {
    await t
      .serialId(db.schema.createTable('pending_deletions'))
      // Not `team_id`: environment deletion clears every table with that column, this one last.
      .addColumn('owner_team_id', t.bigint, (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('cursor_timestamp', 'text')
      .addColumn('cursor_uuid', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
  },
};
