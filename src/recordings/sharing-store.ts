import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, toJson } from '../platform/db/values.js';

type Db = Kysely<Schema>;

export interface RecordingSharing {
  teamId: number;
  sessionId: string;
  accessToken: string;
  enabled: boolean;
  settings: Record<string, unknown> | null;
  createdAt: string;
}

/** PostHog's `secrets.token_urlsafe(22)`: 30 URL-safe characters. */
export function newAccessToken(): string {
  return randomBytes(22).toString('base64url');
}

function toSharing(row: Schema['recording_sharing']): RecordingSharing {
  return {
    teamId: Number(row.team_id),
    sessionId: row.session_id,
    accessToken: row.access_token,
    enabled: fromBool(row.enabled),
    settings: fromJson<Record<string, unknown> | null>(row.settings),
    createdAt: row.created_at,
  };
}

export async function getSharing(db: Db, teamId: number, sessionId: string): Promise<RecordingSharing | undefined> {
  const row = await db
    .selectFrom('recording_sharing')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('session_id', '=', sessionId)
    .executeTakeFirst();
  return row && toSharing(row);
}

/** Saves the configuration; the token is made once, on first save, and kept when disabling. */
export async function saveSharing(
  db: Db,
  teamId: number,
  sessionId: string,
  change: { enabled?: boolean; settings?: Record<string, unknown> | null },
): Promise<RecordingSharing> {
  await db
    .insertInto('recording_sharing')
    .values({
      team_id: teamId,
      session_id: sessionId,
      access_token: newAccessToken(),
      enabled: change.enabled ?? false,
      settings: change.settings === undefined || change.settings === null ? null : toJson(change.settings),
      created_at: new Date().toISOString(),
    })
    .onConflict((oc) => {
      const set = {
        ...(change.enabled !== undefined && { enabled: change.enabled }),
        ...(change.settings !== undefined && { settings: change.settings === null ? null : toJson(change.settings) }),
      };
      const target = oc.columns(['team_id', 'session_id']);
      return Object.keys(set).length === 0 ? target.doNothing() : target.doUpdateSet(set);
    })
    .execute();
  return (await getSharing(db, teamId, sessionId))!;
}

/** The recording an enabled token opens; nothing for a disabled or unknown token. */
export async function findEnabledSharing(db: Db, accessToken: string): Promise<RecordingSharing | undefined> {
  const row = await db.selectFrom('recording_sharing').selectAll().where('access_token', '=', accessToken).executeTakeFirst();
  const sharing = row && toSharing(row);
  return sharing?.enabled ? sharing : undefined;
}
