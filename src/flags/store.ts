import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import type { FeatureFlagsTable } from './tables.js';

type Db = Kysely<Schema>;

/** A stored feature flag (PostHog's FeatureFlag model). */
export interface FeatureFlag {
  id: number;
  projectId: number;
  teamId: number;
  key: string;
  name: string;
  filters: Record<string, unknown>;
  active: boolean;
  deleted: boolean;
  version: number;
  ensureExperienceContinuity: boolean;
  isRemoteConfiguration: boolean;
  hasEncryptedPayloads: boolean;
  evaluationRuntime: string;
  bucketingIdentifier: string | null;
  tags: string[];
  createdById: number | null;
  lastModifiedById: number | null;
  createdAt: string;
  updatedAt: string;
}

function toFlag(row: Selectable<FeatureFlagsTable>): FeatureFlag {
  return {
    id: Number(row.id),
    projectId: Number(row.project_id),
    teamId: Number(row.team_id),
    key: row.key,
    name: row.name,
    filters: fromJson<Record<string, unknown>>(row.filters) ?? {},
    active: fromBool(row.active),
    deleted: fromBool(row.deleted),
    version: Number(row.version),
    ensureExperienceContinuity: fromBool(row.ensure_experience_continuity),
    isRemoteConfiguration: fromBool(row.is_remote_configuration),
    hasEncryptedPayloads: fromBool(row.has_encrypted_payloads),
    evaluationRuntime: row.evaluation_runtime,
    bucketingIdentifier: row.bucketing_identifier,
    tags: fromJson<string[]>(row.tags) ?? [],
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    lastModifiedById: row.last_modified_by_id === null ? null : Number(row.last_modified_by_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every flag of a project, newest first (PostHog's default `-created_at`), deleted ones included on request. */
export async function listProjectFlags(db: Db, projectId: number, options: { includeDeleted?: boolean } = {}): Promise<FeatureFlag[]> {
  let query = db.selectFrom('feature_flags').selectAll().where('project_id', '=', projectId);
  if (!options.includeDeleted) query = query.where('deleted', '=', false);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map(toFlag);
}

export async function getFlag(db: Db, projectId: number, id: number): Promise<FeatureFlag | undefined> {
  const row = await db.selectFrom('feature_flags').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return row && toFlag(row);
}

/** The non-deleted flag with this key, if any (keys are unique among non-deleted flags). */
/** No stored key holds a NUL (PostgreSQL's text cannot): such a key is not sent to the database, which would fail the query. */
const holdsNul = (key: string) => key.includes('\u0000');

export async function findLiveFlagByKey(db: Db, projectId: number, key: string): Promise<FeatureFlag | undefined> {
  if (holdsNul(key)) return undefined;
  const row = await db
    .selectFrom('feature_flags')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('key', '=', key)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return row && toFlag(row);
}

/** The flag with this key, the live one first, else a soft-deleted one. */
export async function findFlagByKeyWithDeleted(db: Db, projectId: number, key: string): Promise<FeatureFlag | undefined> {
  if (holdsNul(key)) return undefined;
  const row = await db
    .selectFrom('feature_flags')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('key', '=', key)
    .orderBy('deleted')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row && toFlag(row);
}

export interface NewFlag {
  projectId: number;
  teamId: number;
  key: string;
  name: string;
  filters: Record<string, unknown>;
  active: boolean;
  ensureExperienceContinuity: boolean;
  isRemoteConfiguration: boolean;
  evaluationRuntime: string;
  bucketingIdentifier: string | null;
  tags: string[];
  userId: number;
}

/**
 * Creates a flag at version 1. As PostHog does, a soft-deleted flag holding the same key is
 * removed for good first, so the key can be reused.
 */
export async function insertFlag(db: Db, flag: NewFlag): Promise<FeatureFlag> {
  await db
    .deleteFrom('feature_flags')
    .where('project_id', '=', flag.projectId)
    .where('key', '=', flag.key)
    .where('deleted', '=', true)
    .execute();
  const now = nowIso();
  const row = await db
    .insertInto('feature_flags')
    .values({
      project_id: flag.projectId,
      team_id: flag.teamId,
      key: flag.key,
      name: flag.name,
      filters: toJson(flag.filters),
      active: flag.active,
      deleted: false,
      version: 1,
      ensure_experience_continuity: flag.ensureExperienceContinuity,
      is_remote_configuration: flag.isRemoteConfiguration,
      has_encrypted_payloads: false,
      evaluation_runtime: flag.evaluationRuntime,
      bucketing_identifier: flag.bucketingIdentifier,
      tags: toJson(flag.tags),
      created_by_id: flag.userId,
      last_modified_by_id: flag.userId,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toFlag(row);
}

export type FlagChanges = Partial<
  Pick<
    FeatureFlag,
    | 'key'
    | 'name'
    | 'filters'
    | 'active'
    | 'deleted'
    | 'ensureExperienceContinuity'
    | 'isRemoteConfiguration'
    | 'evaluationRuntime'
    | 'bucketingIdentifier'
    | 'tags'
  >
>;

/**
 * Applies changes and bumps the version, but only if the stored version is still `expectedVersion`
 * (the compare-and-set stands in for PostHog's `select_for_update`). Undefined when another write won.
 */
export async function updateFlag(db: Db, flag: FeatureFlag, changes: FlagChanges, userId: number): Promise<FeatureFlag | undefined> {
  const values: Record<string, unknown> = {};
  if (changes.key !== undefined) values.key = changes.key;
  if (changes.name !== undefined) values.name = changes.name;
  if (changes.filters !== undefined) values.filters = toJson(changes.filters);
  if (changes.active !== undefined) values.active = changes.active;
  if (changes.deleted !== undefined) values.deleted = changes.deleted;
  if (changes.ensureExperienceContinuity !== undefined) values.ensure_experience_continuity = changes.ensureExperienceContinuity;
  if (changes.isRemoteConfiguration !== undefined) values.is_remote_configuration = changes.isRemoteConfiguration;
  if (changes.evaluationRuntime !== undefined) values.evaluation_runtime = changes.evaluationRuntime;
  if (changes.bucketingIdentifier !== undefined) values.bucketing_identifier = changes.bucketingIdentifier;
  if (changes.tags !== undefined) values.tags = toJson(changes.tags);
  const row = await db
    .updateTable('feature_flags')
    .set({ ...values, version: flag.version + 1, last_modified_by_id: userId, updated_at: nowIso() })
    .where('id', '=', flag.id)
    .where('version', '=', flag.version)
    .returningAll()
    .executeTakeFirst();
  return row && toFlag(row);
}

/** Stored hash-key overrides of a person (experience continuity): flag key → hash key. */
export async function getHashKeyOverrides(db: Db, teamId: number, personIds: number[]): Promise<Map<number, Record<string, string>>> {
  const byPerson = new Map<number, Record<string, string>>();
  if (personIds.length === 0) return byPerson;
  const rows = await db
    .selectFrom('flag_hash_key_overrides')
    .select(['person_id', 'feature_flag_key', 'hash_key'])
    .where('team_id', '=', teamId)
    .where('person_id', 'in', personIds)
    .execute();
  for (const row of rows) {
    const overrides = byPerson.get(Number(row.person_id)) ?? {};
    overrides[row.feature_flag_key] = row.hash_key;
    byPerson.set(Number(row.person_id), overrides);
  }
  return byPerson;
}

/** Records `hashKey` for the person's flags that have no override yet (first one wins). */
export async function insertHashKeyOverrides(db: Db, teamId: number, personId: number, flagKeys: string[], hashKey: string): Promise<void> {
  if (flagKeys.length === 0) return;
  await db
    .insertInto('flag_hash_key_overrides')
    .values(flagKeys.map((key) => ({ team_id: teamId, person_id: personId, feature_flag_key: key, hash_key: hashKey })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The keys of these flags of a project, by id (deleted ones included). */
export async function flagKeysByIds(db: Db, projectId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('feature_flags')
    .select(['id', 'key'])
    .where('project_id', '=', projectId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [Number(row.id), row.key]));
}

/** Deletes a flag row for good, not softly (how PostHog deletes a survey's targeting flags). */
export async function hardDeleteFlag(db: Db, projectId: number, flagId: number): Promise<void> {
  await db.deleteFrom('feature_flags').where('project_id', '=', projectId).where('id', '=', flagId).execute();
}

/** Turns a flag on or off without touching anything else of it (PostHog's `flag.active = …; save()`). */
export async function setFlagActive(db: Db, projectId: number, flagId: number, active: boolean): Promise<void> {
  await db
    .updateTable('feature_flags')
    .set((eb) => ({ active, version: eb('version', '+', 1), updated_at: nowIso() }))
    .where('project_id', '=', projectId)
    .where('id', '=', flagId)
    .execute();
}
