import { sql } from 'kysely';
import type { HogletMigration } from './column-types.js';

/**
 * `event_uuids` (the worker's dedupe) keeps a uuid for a window of days instead of forever
 * (docs/decisions/0012-event-uuid-window.md): each row says on which day it was stored (days since
 * 1970-01-01 UTC), and an index on that day lets the pruner delete the expired rows a batch at a
 * time.
 *
 * Rows stored before this migration count as stored on the day it ran: they are kept one window
 * from the upgrade. A constant default makes adding the column cheap on both backends (no row is
 * rewritten); the worker always writes the day itself.
 */
export const eventUuidWindow: HogletMigration = {
  name: '026-event-uuid-window',
  async up(db) {
    const today = Math.floor(Date.now() / 86_400_000);
    await db.schema
      .alterTable('event_uuids')
      .addColumn('stored_day', 'integer', (c) => c.notNull().defaultTo(sql.lit(today)))
      .execute();
    await db.schema.createIndex('event_uuids_stored_day_idx').on('event_uuids').column('stored_day').execute();
  },
};
