import type { Kysely } from 'kysely';
import type { Schema } from '../db/schema.js';
import { fromJson } from '../db/values.js';
import { drfDateTime } from '../lib/python-datetime.js';
import { personUuidFromDistinctId } from '../persons/person-uuid.js';
import { distinctIdsOf } from '../persons/store.js';
import { isOngoing, summarizeMetadata } from './core/index.js';
import { viewedBy, type RecordingRow } from './store.js';

type Db = Kysely<Schema>;

/** The minimal person PostHog embeds in a recording. */
export interface RecordingPerson {
  id: number | null;
  name: string | null;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string | null;
  uuid: string;
}

/** PostHog shows at most this many distinct ids of the embedded person. */
const MAX_PERSON_DISTINCT_IDS = 10;

/** Where recordings live, in PostHog's vocabulary (its SDK-facing value for blob storage). */
export const RECORDING_STORAGE = 'object_storage';

/** PostHog's display name of a person: e-mail, name or username, else its first distinct id. */
function personName(properties: Record<string, unknown>, distinctIds: string[]): string | null {
  for (const key of ['email', 'name', 'username']) {
    const value = properties[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return distinctIds[0] ?? null;
}

/** The persons behind these distinct ids, looked up in one query. */
export async function personsOf(db: Db, teamId: number, distinctIds: string[]): Promise<Map<string, RecordingPerson>> {
  const out = new Map<string, RecordingPerson>();
  const unique = [...new Set(distinctIds)];
  if (unique.length === 0) return out;
  const rows = await db
    .selectFrom('person_distinct_ids as d')
    .innerJoin('persons as p', 'p.id', 'd.person_id')
    .select(['d.distinct_id', 'p.id', 'p.uuid', 'p.properties', 'p.created_at'])
    .where('d.team_id', '=', teamId)
    .where('d.distinct_id', 'in', unique)
    .execute();
  const ids = await distinctIdsOf(db, [...new Set(rows.map((r) => Number(r.id)))]);
  for (const row of rows) {
    const properties = fromJson<Record<string, unknown>>(row.properties) ?? {};
    const all = ids.get(Number(row.id)) ?? [row.distinct_id];
    out.set(row.distinct_id, {
      id: Number(row.id),
      name: personName(properties, all),
      distinct_ids: all.slice(0, MAX_PERSON_DISTINCT_IDS),
      properties,
      created_at: drfDateTime(row.created_at),
      uuid: row.uuid,
    });
  }
  return out;
}

/** The session recording object of the contract (PostHog's SessionRecordingSerializer fields). */
export function recordingObject(row: RecordingRow, person: RecordingPerson | undefined, viewed: boolean, now = Date.now()) {
  const s = summarizeMetadata(row.meta);
  return {
    id: row.sessionId,
    distinct_id: row.distinctId,
    viewed,
    viewers: [] as string[],
    recording_duration: s.recording_duration,
    active_seconds: s.active_seconds,
    inactive_seconds: s.inactive_seconds,
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
export async function serializeRecordings(db: Db, teamId: number, userId: number, rows: RecordingRow[]): Promise<RecordingObject[]> {
  const persons = await personsOf(db, teamId, rows.map((r) => r.distinctId));
  const viewed = await viewedBy(db, teamId, userId, rows.map((r) => r.sessionId));
  const now = Date.now();
  return rows.map((r) => recordingObject(r, persons.get(r.distinctId), viewed.has(r.sessionId), now));
}
