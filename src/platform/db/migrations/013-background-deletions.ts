import type { HogletMigration } from './column-types.js';

/**
 * `pending_deletions` becomes `background_deletions` as it gains a kind (`person_recordings`)
 * that a runner of an older version would take for an environment deletion (its only fallback):
 * under the new name, an older process still running finds no table and deletes nothing, instead
 * of deleting a whole environment's data. Foreign keys follow the rename on both backends.
 */
export const backgroundDeletions: HogletMigration = {
  name: '013-background-deletions',
  async up(db) {
    await db.schema.alterTable('pending_deletions').renameTo('background_deletions').execute();
  },
};
