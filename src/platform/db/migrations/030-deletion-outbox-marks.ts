import type { HogletMigration } from './column-types.js';

/**
 * A background deletion's outbox mark: the highest `analytics_outbox` id when it was queued (0
 * for an empty outbox). Every outbox row committed before the deletion has an id at or below it,
 * so the deletion waits while such a row is left, on no clock. Deletions queued before this
 * (or by an older process still running) have none: the runner records one at its first look.
 */
export const deletionOutboxMarks: HogletMigration = {
  name: '030-deletion-outbox-marks',
  async up(db, t) {
    await db.schema.alterTable('background_deletions').addColumn('outbox_mark', t.bigint).execute();
  },
};
