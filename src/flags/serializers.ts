import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { serializeUserBasic } from '../environments/serializers.js';
import { getUser } from '../environments/tenancy-store.js';
import type { User } from '../environments/models.js';
import type { FeatureFlag } from './store.js';
import { publicFeature, type PublicFeatureSource } from '../early-access/core/public-feature.js';

type Json = Record<string, unknown>;

/**
 * PostHog's `FeatureFlag.get_filters`: flags stored without `groups` (legacy, or created without
 * filters) are shown as one condition with their properties and the legacy rollout (none here).
 */
export function effectiveFilters(filters: Json): Json {
  if (filters && typeof filters === 'object' && 'groups' in filters) return filters;
  return { groups: [{ properties: Array.isArray(filters?.properties) ? filters.properties : [], rollout_percentage: null }] };
}

/** The feed's MinimalFeatureFlagSerializer fields (also what the evaluation engine reads). */
export function minimalFlag(flag: FeatureFlag, filters: Json = effectiveFilters(flag.filters)) {
  return {
    id: flag.id,
    team_id: flag.teamId,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    version: flag.version,
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    evaluation_tags: [] as string[],
  };
}

/**
 * The feed's EvaluationFeatureFlagSerializer: the minimal fields plus `has_experiment`, which SDKs
 * read to decide between full and slim `$feature_flag_called` events. Hoglet has no experiments.
 */
export function evaluationFlag(flag: FeatureFlag, filters: Json) {
  return { ...minimalFlag(flag, filters), has_experiment: false };
}

function flagStatus(flag: FeatureFlag): string {
  if (flag.deleted) return 'DELETED';
  return flag.active ? 'ACTIVE' : 'INACTIVE';
}

/** Reads the users a page of flags mentions, once each. */
export class UserDirectory {
  private readonly users = new Map<number, Promise<User | undefined>>();
  constructor(private readonly db: Kysely<Schema>) {}
  get(id: number | null): Promise<User | undefined> {
    if (id === null) return Promise.resolve(undefined);
    let user = this.users.get(id);
    if (!user) this.users.set(id, (user = getUser(this.db, id)));
    return user;
  }
}

/** Cohort filters in responses carry the cohort's name (`cohort_name`), as PostHog adds on read. */
function withCohortNames(filters: Json, cohortNames: ReadonlyMap<string, string>): Json {
  const copy = structuredClone(filters);
  for (const condition of Array.isArray(copy.groups) ? copy.groups : []) {
    for (const property of Array.isArray(condition?.properties) ? condition.properties : []) {
      if (property && property.type === 'cohort') property.cohort_name = cohortNames.get(String(property.value)) ?? null;
    }
  }
  return copy;
}

/** FeatureFlagSerializer, in PostHog's field order. */
export async function serializeFlag(
  flag: FeatureFlag,
  users: UserDirectory,
  cohortNames: ReadonlyMap<string, string>,
  features: readonly PublicFeatureSource[] = [],
) {
  const [createdBy, modifiedBy] = await Promise.all([users.get(flag.createdById), users.get(flag.lastModifiedById)]);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters: withCohortNames(effectiveFilters(flag.filters), cohortNames),
    deleted: flag.deleted,
    active: flag.active,
    created_by: createdBy ? serializeUserBasic(createdBy) : null,
    created_at: flag.createdAt,
    updated_at: flag.updatedAt,
    version: flag.version,
    last_modified_by: modifiedBy ? serializeUserBasic(modifiedBy) : null,
    ensure_experience_continuity: flag.ensureExperienceContinuity,
    experiment_set: [],
    surveys: [],
    features: features.map((feature) => publicFeature(feature, flag.key)),
    rollback_conditions: null,
    performed_rollback: false,
    can_edit: true,
    tags: flag.tags,
    evaluation_tags: [],
    usage_dashboard: null,
    analytics_dashboards: [],
    has_enriched_analytics: false,
    user_access_level: 'editor',
    is_remote_configuration: flag.isRemoteConfiguration,
    has_encrypted_payloads: flag.hasEncryptedPayloads,
    status: flagStatus(flag),
    evaluation_runtime: flag.evaluationRuntime,
    bucketing_identifier: flag.bucketingIdentifier,
    last_called_at: null,
  };
}
