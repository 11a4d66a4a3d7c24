import type { Kysely } from 'kysely';
import type { Schema } from '../db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../db/values.js';
import { toUser } from '../tenancy/store.js';
import type { User } from '../tenancy/models.js';
import { generatePersonalApiKey, generateRandomToken, hashPersonalApiKey, maskKey } from './tokens.js';

type Db = Kysely<Schema>;

export interface PersonalApiKey {
  id: string;
  userId: number;
  label: string;
  maskValue: string;
  scopes: string[];
  scopedTeams: number[] | null;
  scopedOrganizations: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface NewPersonalApiKey {
  userId: number;
  label: string;
  scopes: string[];
  scopedTeams?: number[] | null;
  scopedOrganizations?: string[] | null;
  /** A chosen raw value (bootstrap automation); a random `phx_` key otherwise. */
  rawValue?: string;
}

/** Creates a key and returns its raw value: the only moment the raw value exists outside the caller. */
export async function insertPersonalApiKey(
  db: Db,
  input: NewPersonalApiKey,
): Promise<{ key: PersonalApiKey; rawValue: string }> {
  const rawValue = input.rawValue ?? generatePersonalApiKey();
  const key: PersonalApiKey = {
    id: generateRandomToken(16),
    userId: input.userId,
    label: input.label,
    maskValue: maskKey(rawValue),
    scopes: input.scopes,
    scopedTeams: input.scopedTeams?.length ? input.scopedTeams : null,
    scopedOrganizations: input.scopedOrganizations?.length ? input.scopedOrganizations : null,
    createdAt: nowIso(),
    lastUsedAt: null,
  };
  await db
    .insertInto('personal_api_keys')
    .values({
      id: key.id,
      user_id: key.userId,
      label: key.label,
      mask_value: key.maskValue,
      secure_value: hashPersonalApiKey(rawValue),
      scopes: toJson(key.scopes),
      scoped_teams: key.scopedTeams ? toJson(key.scopedTeams) : null,
      scoped_organizations: key.scopedOrganizations ? toJson(key.scopedOrganizations) : null,
      created_at: key.createdAt,
    })
    .execute();
  return { key, rawValue };
}

function toKey(row: {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  scopes: unknown;
  scoped_teams: unknown;
  scoped_organizations: unknown;
  created_at: string;
  last_used_at: string | null;
}): PersonalApiKey {
  const scopes = fromJson<string[] | null>(row.scopes);
  return {
    id: row.id,
    userId: Number(row.user_id),
    label: row.label,
    maskValue: row.mask_value,
    // A key stored without scopes is a legacy all-access key, shown as ["*"] as PostHog does.
    scopes: scopes && scopes.length > 0 ? scopes : ['*'],
    scopedTeams: fromJson<number[] | null>(row.scoped_teams)?.map(Number) ?? null,
    scopedOrganizations: fromJson<string[] | null>(row.scoped_organizations) ?? null,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/**
 * The key whose hash matches and the active user holding it, in one read. The lookup is by hash,
 * so the time it takes says nothing about how close a guess was to a real key.
 */
export async function findActiveKeyHolder(db: Db, rawValue: string): Promise<{ key: PersonalApiKey; user: User } | undefined> {
  // The two tables share only the column `id`: the user's keeps the name, the key's is renamed.
  const row = await db
    .selectFrom('personal_api_keys')
    .innerJoin('users', 'users.id', 'personal_api_keys.user_id')
    .selectAll('users')
    .select([
      'personal_api_keys.id as key_id',
      'personal_api_keys.user_id',
      'personal_api_keys.label',
      'personal_api_keys.mask_value',
      'personal_api_keys.scopes',
      'personal_api_keys.scoped_teams',
      'personal_api_keys.scoped_organizations',
      'personal_api_keys.created_at',
      'personal_api_keys.last_used_at',
    ])
    .where('personal_api_keys.secure_value', '=', hashPersonalApiKey(rawValue))
    .executeTakeFirst();
  if (!row || !fromBool(row.is_active)) return undefined;
  return { key: toKey({ ...row, id: row.key_id }), user: toUser(row) };
}

export async function listKeysOfUser(db: Db, userId: number): Promise<PersonalApiKey[]> {
  const rows = await db
    .selectFrom('personal_api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .execute();
  return rows.map(toKey);
}

const HOUR_MS = 3_600_000;

/** PostHog refreshes last_used_at at most once an hour, sparing a write on every request. */
export async function touchKey(db: Db, key: PersonalApiKey, now = new Date()): Promise<void> {
  if (key.lastUsedAt && now.getTime() - Date.parse(key.lastUsedAt) < HOUR_MS) return;
  await db
    .updateTable('personal_api_keys')
    .set({ last_used_at: now.toISOString() })
    .where('id', '=', key.id)
    .execute();
}
