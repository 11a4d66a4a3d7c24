import type { HogletMigration } from './column-types.js';

/**
 * A queue row may hold all the events of one capture request (a chunk: its payload is a JSON
 * array), so a batch of a hundred events costs capture one row to write and the worker one row to
 * read and delete, not a hundred. `event_count` says how many events a row holds: the worker
 * sizes its batches in events, and `hoglet queue` counts events, not rows.
 *
 * The lane index covers what the worker's batch sizing reads (queue.ts readQueueRecords): both
 * columns come after the payload in a row, and reading them from a chunk's row would walk its
 * payload's overflow pages.
 */
export const queueChunks: HogletMigration = {
  name: '011-queue-chunks',
  async up(db) {
    await db.schema
      .alterTable('ingestion_queue')
      .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.dropIndex('ingestion_queue_lane_id_idx').execute();
    await db.schema
      .createIndex('ingestion_queue_lane_id_idx')
      .on('ingestion_queue')
      .columns(['lane', 'id', 'attempts', 'event_count'])
      .execute();
  },
};
