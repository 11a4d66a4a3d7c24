import type { HogletMigration } from './column-types.js';
import { boolDefault } from './column-types.js';

/**
 * Session recordings: one metadata row per recording, kept up to date as chunks arrive, and the
 * rrweb events themselves in gzip chunks (one per ingested batch), so no recording is ever read or
 * written whole.
 */
export const recordings: HogletMigration = {
  name: '006-recordings',
  async up(db, t) {
    const blob = t.dialect === 'postgres' ? 'bytea' : 'blob';

    await db.schema
      .createTable('session_recordings')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('distinct_id', 'text', (c) => c.notNull())
      // Query columns, copied from the folded metadata for filtering and ordering.
      .addColumn('start_time', t.timestamp)
      .addColumn('end_time', t.timestamp)
      .addColumn('duration', 'integer', (c) => c.notNull().defaultTo(0))
      // The incremental fold state (recordings/core/metadata.ts); bounded in size.
      .addColumn('metadata', t.json, (c) => c.notNull())
      .addColumn('chunk_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('last_ingested_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('session_recordings_pkey', ['team_id', 'session_id'])
      .execute();
    await db.schema.createIndex('session_recordings_team_start_idx').on('session_recordings').columns(['team_id', 'start_time']).execute();
    await db.schema
      .createIndex('session_recordings_team_distinct_idx')
      .on('session_recordings')
      .columns(['team_id', 'distinct_id'])
      .execute();

    await db.schema
      .createTable('recording_chunks')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('window_id', 'text', (c) => c.notNull())
      .addColumn('first_timestamp', t.bigint, (c) => c.notNull())
      .addColumn('last_timestamp', t.bigint, (c) => c.notNull())
      .addColumn('event_count', 'integer', (c) => c.notNull())
      // gzip of JSON lines `[windowId, rrwebEvent]`, PostHog's blob_v2 line format.
      .addColumn('data', blob, (c) => c.notNull())
      .addPrimaryKeyConstraint('recording_chunks_pkey', ['team_id', 'session_id', 'seq'])
      .execute();

    // PostHog's SessionRecordingViewed: `viewed` is per requesting user.
    await db.schema
      .createTable('recording_views')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('user_id', t.bigint, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('recording_views_pkey', ['team_id', 'session_id', 'user_id'])
      .execute();

    // PostHog's SharingConfiguration, for recordings only.
    await db.schema
      .createTable('recording_sharing')
      .addColumn('team_id', t.bigint, (c) => c.notNull())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('access_token', 'text', (c) => c.notNull().unique())
      .addColumn('enabled', t.bool, (c) => c.notNull().defaultTo(boolDefault(t, false)))
      .addColumn('settings', t.json)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('recording_sharing_pkey', ['team_id', 'session_id'])
      .execute();
  },
};
