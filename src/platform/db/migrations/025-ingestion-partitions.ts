import type { HogletMigration } from './column-types.js';
import { fnv1a32 } from '../../../lib/fnv1a.js';

/** Queue rows given their partition per statement. */
const ROWS_PER_READ = 1000;

/**
 * ingestion/core/partition.ts queuePartition as it is (a migration stays as it shipped, and
 * platform/ does not import ingestion/): 16 partitions on PostgreSQL.
 */
const POSTGRES_PARTITIONS = 16;
const partitionOf = (teamId: number, distinctId: string) => fnv1a32(`${teamId}:${distinctId}`) % POSTGRES_PARTITIONS;

/**
 * The ingestion queue is split into partitions by a hash of (environment, distinct id), so several
 * workers share it on PostgreSQL while each distinct id's events stay in order (one worker holds
 * a partition at a time, worker/partition-leases.ts). SQLite's queue is one partition: 0.
 *
 * The lane index covers `partition` too: a worker reads its partitions' rows of a lane in id
 * order from the index alone, skipping the others' (queue-records.ts).
 *
 * Rows queued before this migration on PostgreSQL get the partition of the distinct id they name
 * (a chunk's first event's). A chunk from before may hold other distinct ids' events: these are
 * processed in that partition, once, possibly beside later events of theirs in another partition.
 */
export const ingestionPartitions: HogletMigration = {
  name: '025-ingestion-partitions',
  async up(db, t) {
    await db.schema
      .alterTable('ingestion_queue')
      .addColumn('partition', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.dropIndex('ingestion_queue_lane_id_idx').execute();
    await db.schema
      .createIndex('ingestion_queue_lane_id_idx')
      .on('ingestion_queue')
      .columns(['lane', 'id', 'attempts', 'event_count', 'partition'])
      .execute();
    if (t.dialect !== 'postgres') return; // SQLite's queue is one partition
    let after = 0;
    for (;;) {
      const rows = (await db
        .selectFrom('ingestion_queue')
        .select(['id', 'team_id', 'distinct_id'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(ROWS_PER_READ)
        .execute()) as Array<{ id: number | string; team_id: number | string; distinct_id: string }>;
      if (rows.length === 0) return;
      const byPartition = new Map<number, number[]>();
      for (const row of rows) {
        const partition = partitionOf(Number(row.team_id), row.distinct_id);
        if (partition === 0) continue;
        const ids = byPartition.get(partition) ?? [];
        ids.push(Number(row.id));
        byPartition.set(partition, ids);
      }
      for (const [partition, ids] of byPartition)
        await db.updateTable('ingestion_queue').set({ partition }).where('id', 'in', ids).execute();
      after = Number(rows[rows.length - 1]!.id);
    }
  },
};
