export interface SessionRecordingsTable {
  team_id: number;
  session_id: string;
  distinct_id: string;
  start_time: string | null;
  end_time: string | null;
  duration: number;
  /** JSON of `RecordingMetadata` (the fold state). */
  metadata: unknown;
  chunk_count: number;
  created_at: string;
  last_ingested_at: string;
}

export interface RecordingChunksTable {
  team_id: number;
  session_id: string;
  seq: number;
  window_id: string;
  first_timestamp: number;
  last_timestamp: number;
  event_count: number;
  data: Buffer;
}

export interface RecordingViewsTable {
  team_id: number;
  session_id: string;
  user_id: number;
  created_at: string;
}

export interface RecordingSharingTable {
  team_id: number;
  session_id: string;
  access_token: string;
  enabled: boolean | number;
  settings: unknown;
  created_at: string;
}

export interface RecordingsTables {
  session_recordings: SessionRecordingsTable;
  recording_chunks: RecordingChunksTable;
  recording_views: RecordingViewsTable;
  recording_sharing: RecordingSharingTable;
}
