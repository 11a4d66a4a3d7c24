/**
 * Personal API key management, as PostHog's `posthog/api/personal_api_key.py` has it: its
 * serializer's input checks (field by field, in its order, with DRF's and its own messages), the
 * ten-key limit, the raw value made only on create and roll, and who may act on which key.
 */
import type { Database } from '../platform/db/database.js';
import { notFound, permissionDenied, validationError } from '../posthog/errors.js';
import { canonicalUuid } from '../lib/uuid.js';
import { DRF_MESSAGES, FieldError, fail, parseInteger, parseString } from '../posthog/drf-fields.js';
import { getMemberships, getTeam } from '../environments/tenancy-store.js';
import {
  countKeysOfUser,
  deleteKeyOfUser,
  getKeyOfUser,
  insertPersonalApiKey,
  listKeysOfUser,
  rollKeyOfUser,
  updateKeyOfUser,
  type KeyChanges,
  type PersonalApiKey,
} from './keys-store.js';
import { isValidScope } from './scopes.js';
import { generatePersonalApiKey } from './tokens.js';

/** PostHog's limit, with its message. */
export const MAX_API_KEYS_PER_USER = 10;
/** PersonalAPIKey.label's max_length. */
const LABEL_MAX_LENGTH = 40;
/** The detail route's name for the key making the request. */
export const CURRENT_KEY = '@current';
/** PersonalApiKeySelfAccessPermission's message (its own capitals, unlike APIScopePermission's). */
export const SELF_ACCESS_ONLY = 'This action does not support Personal API Key access';

/**
 * Whether a key may list, create, edit, revoke and roll its user's keys: every scope and no limit
 * to projects or organizations (docs/decisions/0001-personal-key-management.md). A limited key
 * could otherwise mint an unlimited one.
 */
export function mayManageKeys(key: PersonalApiKey): boolean {
  return key.scopes.includes('*') && !key.scopedTeams && !key.scopedOrganizations;
}

type Body = Record<string, unknown>;

/** A field's FieldError as PostHog's envelope: a list item's error names it `field__index`. */
function checked<T>(attr: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof FieldError)
      throw validationError(error.detail, error.subKey === null ? attr : `${attr}__${error.subKey}`, error.code);
    throw error;
  }
}

/** DRF ListField: a list (empty only when allowed), each item through the child field (never null). */
function parseList<T>(data: unknown, item: (value: unknown) => T, allowEmpty: boolean): T[] {
  if (data === null) fail('null', DRF_MESSAGES.null);
  if (!Array.isArray(data)) fail('not_a_list', DRF_MESSAGES.notAList(data));
  if (!allowEmpty && data.length === 0) fail('empty', 'This list may not be empty.');
  return data.map((value: unknown, index) => {
    try {
      if (value === null) fail('null', DRF_MESSAGES.null);
      return item(value);
    } catch (error) {
      if (error instanceof FieldError) throw new FieldError(error.code, error.detail, String(index));
      throw error;
    }
  });
}

const charItem = (value: unknown) => parseString(value, { allowBlank: false });
const integerItem = (value: unknown) => parseInteger(value, -Infinity, Infinity);

/** validate_scopes: each `*` or `<known object>:<read|write>`. */
function readScopes(data: unknown): string[] {
  const scopes = parseList(data, charItem, false);
  for (const scope of scopes) if (!isValidScope(scope)) fail('invalid', `Invalid scope: ${scope}`);
  return scopes;
}

/** validate_scoped_teams: every id an environment of one of the user's organizations, none twice. */
async function readScopedTeams(database: Database, memberships: Map<string, number>, data: unknown): Promise<number[]> {
  const ids = checked('scoped_teams', () => parseList(data, integerItem, true));
  const refuse = () => validationError('You must be a member of all teams that you are scoping the key to.', 'scoped_teams');
  // PostHog compares the count of environments found with the list's length: a repeated id fails.
  if (new Set(ids).size !== ids.length) throw refuse();
  for (const id of ids) {
    const team = Number.isSafeInteger(id) ? await getTeam(database.db, id) : undefined;
    if (!team || !memberships.has(team.organizationId)) throw refuse();
  }
  return ids;
}

/** validate_scoped_organizations: every one a uuid (kept in canonical form) of the user's organizations. */
function readScopedOrganizations(memberships: Map<string, number>, data: unknown): string[] {
  const given = checked('scoped_organizations', () => parseList(data, charItem, true));
  const ids = given.map(canonicalUuid);
  if (ids.some((id) => id === null)) throw validationError('Invalid organization UUID', 'scoped_organizations');
  for (const id of ids as string[]) {
    if (!memberships.get(id)) {
      throw validationError('You must be a member of all organizations that you are scoping the key to.', 'scoped_organizations');
    }
  }
  return ids as string[];
}

/**
 * PostHog's PersonalAPIKeySerializer input: label, scopes, scoped_teams, scoped_organizations, in
 * that order, the first failing one reported. All four are required unless `partial` (PATCH);
 * other fields (the read-only ones included) are ignored.
 */
export async function readKeyFields(database: Database, userId: number, body: unknown, partial: boolean): Promise<KeyChanges> {
  const data: Body = body === undefined ? {} : (body as Body);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw validationError(DRF_MESSAGES.notADict(data));
  }
  const present = (name: string) => {
    if (name in data) return true;
    if (!partial) throw validationError(DRF_MESSAGES.required, name, 'required');
    return false;
  };
  const changes: KeyChanges = {};
  if (present('label')) {
    changes.label = checked('label', () => {
      if (data.label === null) fail('null', DRF_MESSAGES.null);
      return parseString(data.label, { allowBlank: false, maxLength: LABEL_MAX_LENGTH });
    });
  }
  if (present('scopes')) changes.scopes = checked('scopes', () => readScopes(data.scopes));
  let memberships: Map<string, number> | undefined;
  const membershipsOfUser = async () => (memberships ??= await getMemberships(database.db, userId));
  if (present('scoped_teams')) changes.scopedTeams = await readScopedTeams(database, await membershipsOfUser(), data.scoped_teams);
  if (present('scoped_organizations')) {
    changes.scopedOrganizations = readScopedOrganizations(await membershipsOfUser(), data.scoped_organizations);
  }
  return changes;
}

export function listPersonalApiKeys(database: Database, userId: number): Promise<PersonalApiKey[]> {
  return listKeysOfUser(database.db, userId);
}

/** Creates a key from a create body; the raw value exists only in this answer. */
export async function createPersonalApiKey(
  database: Database,
  userId: number,
  body: unknown,
): Promise<{ key: PersonalApiKey; rawValue: string }> {
  const fields = await readKeyFields(database, userId, body, false);
  if ((await countKeysOfUser(database.db, userId)) >= MAX_API_KEYS_PER_USER) {
    throw validationError(
      `You can only have ${MAX_API_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
    );
  }
  return insertPersonalApiKey(database.db, {
    userId,
    label: fields.label!,
    scopes: fields.scopes!,
    scopedTeams: fields.scopedTeams ?? null,
    scopedOrganizations: fields.scopedOrganizations ?? null,
  });
}

/**
 * Who calls a key route: a personal API key (`key`), or a browser session of the user (no key),
 * which may manage the user's keys as PostHog's session may.
 */
export interface KeyCaller {
  userId: number;
  key?: PersonalApiKey | undefined;
}

/** The key a detail route names: one of the caller's user's keys, `@current` the calling key (none for a session). */
function keyIdOf(caller: KeyCaller, id: string): string {
  if (id !== CURRENT_KEY) return id;
  if (!caller.key) throw notFound();
  return caller.key.id;
}

async function existingKey(database: Database, caller: KeyCaller, id: string): Promise<PersonalApiKey> {
  const key = await getKeyOfUser(database.db, caller.userId, keyIdOf(caller, id));
  if (!key) throw notFound();
  return key;
}

/**
 * Any key may read itself; reading another of the user's keys takes one that may manage keys
 * (PersonalApiKeySelfAccessPermission's object check, after the lookup's 404).
 */
export async function retrievePersonalApiKey(database: Database, caller: KeyCaller, id: string): Promise<PersonalApiKey> {
  const key = await existingKey(database, caller, id);
  if (caller.key && key.id !== caller.key.id && !mayManageKeys(caller.key)) throw permissionDenied(SELF_ACCESS_ONLY);
  return key;
}

/** PATCH (`partial`) or PUT: the key is looked up before its body is read, as DRF's update does. */
export async function updatePersonalApiKey(
  database: Database,
  caller: KeyCaller,
  id: string,
  body: unknown,
  partial: boolean,
): Promise<PersonalApiKey> {
  const key = await existingKey(database, caller, id);
  const changes = await readKeyFields(database, caller.userId, body, partial);
  const updated = await updateKeyOfUser(database.db, caller.userId, key.id, changes);
  if (!updated) throw notFound();
  return updated;
}

/** A new raw value for the same key, shown once; the old value stops working at once. */
export async function rollPersonalApiKey(
  database: Database,
  caller: KeyCaller,
  id: string,
): Promise<{ key: PersonalApiKey; rawValue: string }> {
  const rawValue = generatePersonalApiKey();
  const key = await rollKeyOfUser(database.db, caller.userId, keyIdOf(caller, id), rawValue);
  if (!key) throw notFound();
  return { key, rawValue };
}

/** Revokes one of a user's keys: the key it was, or undefined when the user has none of that id. */
export function revokePersonalApiKey(database: Database, userId: number, id: string): Promise<PersonalApiKey | undefined> {
  return deleteKeyOfUser(database.db, userId, id);
}

/** DELETE of a detail route: 404 for a key the caller's user does not have. */
export async function deleteCallersKey(database: Database, caller: KeyCaller, id: string): Promise<void> {
  if (!(await revokePersonalApiKey(database, caller.userId, keyIdOf(caller, id)))) throw notFound();
}
