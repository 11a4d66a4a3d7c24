/**
 * Creating and editing flags: body reading, PostHog's validation order, the guards on deleting
 * or disabling a flag others depend on, optimistic concurrency (409), and the change notice that
 * drops every process's cached definitions.
 */
import { diffFields, recordActivity } from '../activity/store.js';
import type { AppContext } from '../context.js';
import { getCohort, listProjectCohorts } from '../cohorts/store.js';
import { conflict, validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import type { Team, User } from '../environments/models.js';
import { getUser } from '../environments/tenancy-store.js';
import { conflictingFields, filtersForNewKey } from './edit-rules.js';
import {
  describeFlags,
  dependentFlags,
  readChoice,
  readString,
  validateFilters,
  validateKey,
  type FlagValidationLookups,
} from './validation.js';
import { findLiveFlagByKey, getFlag, insertFlag, listProjectFlags, updateFlag, type FeatureFlag, type FlagChanges } from './store.js';
import { readBoolean } from '../posthog/fields.js';
import { featureOfFlag } from '../early-access/store.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';

type Json = Record<string, unknown>;

export const FLAGS_TOPIC = 'feature_flags';

const EVALUATION_RUNTIMES = ['server', 'client', 'all'] as const;
const BUCKETING_IDENTIFIERS = ['distinct_id', 'device_id'] as const;

/** What flag validation looks up in a project: live flags by key or id, cohorts. */
export function flagValidationLookups(ctx: AppContext, projectId: number): FlagValidationLookups {
  const { db } = ctx.database;
  return {
    liveFlagByKey: (key) => findLiveFlagByKey(db, projectId, key),
    liveFlagById: async (id) => {
      const flag = Number.isSafeInteger(id) ? await getFlag(db, projectId, id) : undefined;
      return flag && !flag.deleted ? flag : undefined;
    },
    cohort: async (id) => {
      const cohort = await getCohort(db, projectId, id);
      return cohort && { id: cohort.id, name: cohort.name, filters: cohort.filters };
    },
  };
}

function readTags(value: unknown): string[] {
  if (!Array.isArray(value)) throw validationError(DRF_MESSAGES.notAList(value), 'tags', 'not_a_list');
  return [...new Set(value.map((tag) => String(tag).trim().toLowerCase()).filter(Boolean))];
}

/** Fields common to create and update, read in the serializer's field order. */
async function readCommonFields(body: Json, changes: FlagChanges): Promise<void> {
  if ('name' in body) changes.name = readString(body.name, 'name', { allowBlank: true });
  if ('active' in body) changes.active = readBoolean(body.active, 'active')!;
  if ('ensure_experience_continuity' in body) {
    changes.ensureExperienceContinuity = readBoolean(body.ensure_experience_continuity, 'ensure_experience_continuity', true) ?? false;
  }
  if ('tags' in body) changes.tags = readTags(body.tags);
  if ('is_remote_configuration' in body) {
    changes.isRemoteConfiguration = readBoolean(body.is_remote_configuration, 'is_remote_configuration', true) ?? false;
  }
  if ('evaluation_runtime' in body)
    changes.evaluationRuntime = readChoice(body.evaluation_runtime, 'evaluation_runtime', EVALUATION_RUNTIMES);
  if ('bucketing_identifier' in body) {
    changes.bucketingIdentifier =
      body.bucketing_identifier === null || body.bucketing_identifier === ''
        ? null
        : readChoice(body.bucketing_identifier, 'bucketing_identifier', BUCKETING_IDENTIFIERS);
  }
}

async function announce(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.changes.publish({ topic: FLAGS_TOPIC, id: projectId });
}

/** A flag's stored values under their serializer (API) field names. */
function serializerFields(flag: FeatureFlag): Record<string, unknown> {
  return {
    key: flag.key,
    name: flag.name,
    filters: flag.filters,
    active: flag.active,
    deleted: flag.deleted,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    is_remote_configuration: flag.isRemoteConfiguration,
    tags: flag.tags,
  };
}

/** An edit's changes under their serializer field names (PostHog's `validated_data`). */
function validatedFields(changes: FlagChanges): Json {
  const fields: Record<keyof FlagChanges, string> = {
    key: 'key',
    name: 'name',
    filters: 'filters',
    active: 'active',
    deleted: 'deleted',
    ensureExperienceContinuity: 'ensure_experience_continuity',
    isRemoteConfiguration: 'is_remote_configuration',
    evaluationRuntime: 'evaluation_runtime',
    bucketingIdentifier: 'bucketing_identifier',
    tags: 'tags',
  };
  const validated: Json = {};
  for (const [change, value] of Object.entries(changes)) {
    if (value !== undefined) validated[fields[change as keyof FlagChanges]] = value;
  }
  return validated;
}

/** The fields of a flag the activity log compares, in the order its changes are listed. */
const LOGGED_FIELDS = [
  'key',
  'name',
  'filters',
  'active',
  'deleted',
  'ensure_experience_continuity',
  'evaluation_runtime',
  'tags',
] as const;

function loggedFlag(flag: FeatureFlag): Record<string, unknown> {
  const fields = serializerFields(flag);
  return Object.fromEntries(LOGGED_FIELDS.map((field) => [field, fields[field]]));
}

async function logFlagActivity(ctx: AppContext, team: Team, user: User, flag: FeatureFlag, before?: FeatureFlag): Promise<void> {
  const changes = before ? diffFields('FeatureFlag', loggedFlag(before), loggedFlag(flag)) : undefined;
  if (before && changes!.length === 0) return;
  await recordActivity(ctx.database.db, {
    organizationId: team.organizationId,
    teamId: team.id,
    scope: 'FeatureFlag',
    itemId: flag.id,
    activity: !before ? 'created' : flag.deleted && !before.deleted ? 'deleted' : 'updated',
    actor: { userId: user.id },
    name: flag.key,
    ...(changes ? { changes } : {}),
  });
}

export async function createFlag(ctx: AppContext, team: Team, user: User, raw: unknown): Promise<FeatureFlag> {
  const body = serializerData(raw);
  const lookups = flagValidationLookups(ctx, team.projectId);
  // DRF reports the first failing field in the serializer's order: name, key, filters, ...
  const changes: FlagChanges = {};
  if ('name' in body) changes.name = readString(body.name, 'name', { allowBlank: true });
  if (!('key' in body)) throw validationError('This field is required.', 'key', 'required');
  const key = await validateKey(body.key, lookups, undefined);
  await readCommonFields(body, changes);
  const filters =
    'filters' in body
      ? await validateFilters(body.filters, { method: 'POST', currentKey: key, stored: undefined, timezone: timezoneOf(team) }, lookups)
      : {};
  const flag = await insertFlag(ctx.database.db, {
    projectId: team.projectId,
    teamId: team.id,
    key,
    name: changes.name ?? '',
    filters,
    active: changes.active ?? true,
    ensureExperienceContinuity: changes.ensureExperienceContinuity ?? false,
    isRemoteConfiguration: changes.isRemoteConfiguration ?? false,
    evaluationRuntime: changes.evaluationRuntime ?? 'all',
    bucketingIdentifier: changes.bucketingIdentifier ?? null,
    tags: changes.tags ?? [],
    userId: user.id,
  });
  await logFlagActivity(ctx, team, user, flag);
  await announce(ctx, team.projectId);
  return flag;
}

function timezoneOf(team: Team): string {
  return typeof team.settings.timezone === 'string' ? team.settings.timezone : 'UTC';
}

export async function editFlag(
  ctx: AppContext,
  team: Team,
  user: User,
  flag: FeatureFlag,
  raw: unknown,
  method: 'PATCH' | 'PUT',
): Promise<FeatureFlag> {
  const body = serializerData(raw);
  const lookups = flagValidationLookups(ctx, team.projectId);
  const changes: FlagChanges = {};
  if ('name' in body) changes.name = readString(body.name, 'name', { allowBlank: true });
  if (method === 'PUT' && !('key' in body)) throw validationError('This field is required.', 'key', 'required');
  if ('key' in body) changes.key = await validateKey(body.key, lookups, flag);
  await readCommonFields(body, changes);
  if ('deleted' in body) changes.deleted = readBoolean(body.deleted, 'deleted')!;
  if ('filters' in body) {
    changes.filters = await validateFilters(
      body.filters,
      { method: method === 'PUT' ? 'PATCH' : method, currentKey: flag.key, stored: flag, timezone: timezoneOf(team) },
      lookups,
    );
  }

  if (changes.deleted === true && (await featureOfFlag(ctx.database.db, team.projectId, flag.id))) {
    throw validationError(
      'Cannot delete a feature flag that is in use with early access features. Please delete the early access feature before deleting the flag.',
    );
  }
  const others = await listProjectFlags(ctx.database.db, team.projectId);
  if (changes.deleted === true) {
    const dependents = dependentFlags(flag, others);
    if (dependents.length > 0) {
      throw validationError(
        `Cannot delete this feature flag because other flags depend on it: ${describeFlags(dependents)}. Please update or delete the dependent flags first.`,
      );
    }
  }
  if (changes.active === false && flag.active) {
    const dependents = dependentFlags(flag, others);
    if (dependents.length > 0) {
      throw validationError(
        `Cannot disable this feature flag because other flags depend on it: ${describeFlags(dependents)}. Please update or disable the dependent flags first.`,
      );
    }
  }
  if (changes.active === true && !flag.active) {
    const ids = new Set(
      (Array.isArray(flag.filters.groups) ? flag.filters.groups : [])
        .flatMap((g: Json) => (Array.isArray(g?.properties) ? g.properties : []))
        .filter((p: Json) => p?.type === 'flag')
        .map((p: Json) => String(p.key)),
    );
    const disabled = others.filter((f) => ids.has(String(f.id)) && !f.active).sort((a, b) => (a.key < b.key ? -1 : 1));
    if (disabled.length > 0) {
      throw validationError(
        `Cannot enable this feature flag because it depends on disabled flags: ${describeFlags(disabled)}. Please enable the dependency flags first.`,
      );
    }
  }

  // Optimistic concurrency: re-read, compare versions, then compare-and-set on the version.
  const version = 'version' in body ? Number(body.version) : -1;
  const requested = { filters: changes.filters };
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = (await getFlag(ctx.database.db, team.projectId, flag.id)) ?? flag;
    // A rename re-points early-access conditions, which makes `filters` one of the edited fields:
    // the ones sent, else the flag's as read now (not as read before, which a concurrent edit of
    // its filters would have made stale). A key that differs from the one the client saw, or from
    // the stored one (someone renamed it meanwhile), is a rename for the filters it sent.
    const renaming = changes.key !== undefined && (changes.key !== flag.key || changes.key !== current.key);
    const renamedFilters = renaming ? filtersForNewKey(requested.filters ?? current.filters, changes.key!) : undefined;
    changes.filters = renamedFilters ?? requested.filters;
    const validated = validatedFields(changes);
    if (
      version !== -1 &&
      version !== current.version &&
      conflictingFields(serializerFields(current), validated, body.original_flag).length > 0
    ) {
      const editor = current.lastModifiedById === null ? undefined : await getUser(ctx.database.db, current.lastModifiedById);
      throw conflict(
        `The feature flag was updated by ${editor ? editor.email : 'another user'} since you started editing it. Please refresh and try again.`,
      );
    }
    const updated = await updateFlag(ctx.database.db, current, changes, user.id);
    if (updated) {
      await logFlagActivity(ctx, team, user, updated, current);
      await announce(ctx, team.projectId);
      return updated;
    }
  }
  throw conflict('The feature flag was updated by another user since you started editing it. Please refresh and try again.');
}

/** Cohort id → name, for the `cohort_name` annotation of responses. */
export async function cohortNamesOf(ctx: AppContext, projectId: number): Promise<Map<string, string>> {
  const cohorts = await listProjectCohorts(ctx.database.db, projectId);
  return new Map(cohorts.map((c) => [String(c.id), c.name]));
}
