import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import { toUser } from '../environments/tenancy-store.js';
import type { User } from '../environments/models.js';
import type { PersonalApiKeysTable } from './tables.js';
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
  lastRolledAt: string | null;
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
export async function insertPersonalApiKey(db: Db, input: NewPersonalApiKey): Promise<{ key: PersonalApiKey; rawValue: string }> {
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
    lastRolledAt: null,
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

/** A key from its row; the hash (`secure_value`) is not needed and not kept. */
function toKey(row: Omit<Selectable<PersonalApiKeysTable>, 'secure_value'>): PersonalApiKey {
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
    lastRolledAt: row.last_rolled_at,
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
      'personal_api_keys.last_rolled_at',
    ])
    .where('personal_api_keys.secure_value', '=', hashPersonalApiKey(rawValue))
    .executeTakeFirst();
  if (!row || !fromBool(row.is_active)) return undefined;
  return { key: toKey({ ...row, id: row.key_id }), user: toUser(row) };
}

/** A user's keys, newest first (PostHog orders them `-created_at`). */
export async function listKeysOfUser(db: Db, userId: number): Promise<PersonalApiKey[]> {
  const rows = await db
    .selectFrom('personal_api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map(toKey);
}

export async function countKeysOfUser(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('personal_api_keys')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** One of the user's keys; another user's key is as absent as an unknown one. */
export async function getKeyOfUser(db: Db, userId: number, id: string): Promise<PersonalApiKey | undefined> {
  const row = await db.selectFrom('personal_api_keys').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return row && toKey(row);
}

export interface KeyChanges {
  label?: string;
  scopes?: string[];
  scopedTeams?: number[] | null;
  scopedOrganizations?: string[] | null;
}

/** Writes the given fields of one of the user's keys; the key as it is then, or undefined if gone. */
export async function updateKeyOfUser(db: Db, userId: number, id: string, changes: KeyChanges): Promise<PersonalApiKey | undefined> {
  const set: { label?: string; scopes?: string; scoped_teams?: string | null; scoped_organizations?: string | null } = {};
  if (changes.label !== undefined) set.label = changes.label;
  if (changes.scopes !== undefined) set.scopes = toJson(changes.scopes);
  // An empty limit is no limit, stored as none, as insertPersonalApiKey stores it.
  if (changes.scopedTeams !== undefined) set.scoped_teams = changes.scopedTeams?.length ? toJson(changes.scopedTeams) : null;
  if (changes.scopedOrganizations !== undefined) {
    set.scoped_organizations = changes.scopedOrganizations?.length ? toJson(changes.scopedOrganizations) : null;
  }
  if (Object.keys(set).length === 0) return getKeyOfUser(db, userId, id);
  const row = await db
    .updateTable('personal_api_keys')
    .set(set)
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toKey(row);
}

/** Gives one of the user's keys a new value: the old value stops matching with this write. */
export async function rollKeyOfUser(
  db: Db,
  userId: number,
  id: string,
  rawValue: string,
  now = new Date(),
): Promise<PersonalApiKey | undefined> {
  const row = await db
    .updateTable('personal_api_keys')
    .set({ secure_value: hashPersonalApiKey(rawValue), mask_value: maskKey(rawValue), last_rolled_at: now.toISOString() })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toKey(row);
}

/** Revokes one of the user's keys: the key it was, or undefined when the user has none of that id. */
export async function deleteKeyOfUser(db: Db, userId: number, id: string): Promise<PersonalApiKey | undefined> {
  const row = await db.deleteFrom('personal_api_keys').where('user_id', '=', userId).where('id', '=', id).returningAll().executeTakeFirst();
  return row && toKey(row);
}

const HOUR_MS = 3_600_000;

/** PostHog refreshes last_used_at at most once an hour, sparing a write on every request. */
export async function touchKey(db: Db, key: PersonalApiKey, now = new Date()): Promise<void> {
  if (key.lastUsedAt && now.getTime() - Date.parse(key.lastUsedAt) < HOUR_MS) return;
  await db.updateTable('personal_api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', key.id).execute();
}
