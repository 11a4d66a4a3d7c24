import type { HogletMigration } from './column-types.js';

/**
 * The groups list (newest first, a page at a time) read every group of the type and sorted them
 * for each page: nothing indexed `created_at`. This index gives the order directly. Groups are
 * written rarely next to events, and updates do not touch `created_at`.
 */
export const groupsListOrder: HogletMigration = {
  name: '008-groups-list-order',
  async up(db) {
    await db.schema
      .createIndex('groups_team_type_created_idx')
      .on('groups')
      .columns(['team_id', 'group_type_index', 'created_at'])
      .execute();
  },
};
