import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { personUuidFromDistinctId } from '../persons/person-uuid.js';
import { minimalPersonsByDistinctId, type MinimalPerson } from '../persons/minimal-persons.js';
import type { Team } from '../environments/models.js';
import { isOngoing, summarizeMetadata } from './core/index.js';
import { viewedBy, type RecordingRow } from './store.js';

type Db = Kysely<Schema>;

/**
 * The person PostHog embeds in a recording: its MinimalPersonSerializer (at most ten distinct
 * ids, named as the persons API names one), or its MissingPerson for a distinct id without one.
 */
export type RecordingPerson = MinimalPerson;

/** Where recordings live, in PostHog's vocabulary (its SDK-facing value for blob storage). */
export const RECORDING_STORAGE = 'object_storage';

/** The session recording object of the contract (PostHog's SessionRecordingSerializer fields). */
export function recordingObject(row: RecordingRow, person: RecordingPerson | undefined, viewed: boolean, now = Date.now()) {
  const s = summarizeMetadata(row.meta);
  return {
    id: row.sessionId,
    distinct_id: row.distinctId,
    viewed,
    viewers: [] as string[],
    recording_duration: s.recording_duration,
    // Integers, as PostHog's model stores them (IntegerField: DRF's int() drops the fraction).
    active_seconds: Math.trunc(s.active_seconds),
    inactive_seconds: Math.trunc(s.inactive_seconds),
    start_time: s.start_time,
    end_time: s.end_time,
    click_count: s.click_count,
    keypress_count: s.keypress_count,
    mouse_activity_count: s.mouse_activity_count,
    console_log_count: s.console_log_count,
    console_warn_count: s.console_warn_count,
    console_error_count: s.console_error_count,
    start_url: s.start_url,
    person: person ?? {
      id: null,
      name: null,
      distinct_ids: [row.distinctId],
      properties: {},
      created_at: null,
      // PostHog's MissingPerson: the uuid its personless events carry (uuidFromDistinctId).
      uuid: personUuidFromDistinctId(row.teamId, row.distinctId),
    },
    storage: RECORDING_STORAGE,
    snapshot_source: s.snapshot_source,
    snapshot_library: s.snapshot_library,
    ongoing: isOngoing(Date.parse(row.lastIngestedAt), now),
    activity_score: s.activity_score,
  };
}

export type RecordingObject = ReturnType<typeof recordingObject>;

/** Serializes recordings for one user: persons and `viewed` loaded in batch. */
export async function serializeRecordings(db: Db, team: Team, userId: number, rows: RecordingRow[]): Promise<RecordingObject[]> {
  const persons = await minimalPersonsByDistinctId(
    db,
    team,
    rows.map((r) => r.distinctId),
  );
  const viewed = await viewedBy(
    db,
    team.id,
    userId,
    rows.map((r) => r.sessionId),
  );
  const now = Date.now();
  return rows.map((r) => recordingObject(r, persons.get(r.distinctId), viewed.has(r.sessionId), now));
}
