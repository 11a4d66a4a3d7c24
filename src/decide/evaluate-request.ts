/**
 * One `/decide` or `/flags` evaluation: the project's cached definitions, the properties the
 * flags need (stored person and groups, request overrides, GeoIP), static cohort memberships and
 * experience-continuity hash keys, then the pure engine. A storage failure fails only the flags
 * that needed the missing data (`errorsWhileComputingFlags: true`); the rest are still answered.
 */
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { AppContext } from '../context.js';
import { staticMembershipsOf } from '../cohorts/store.js';
import { flagDefinitionsCache, type ProjectFlags } from '../flags/definitions-cache.js';
import { effectiveFilters } from '../flags/serializers.js';
import { getHashKeyOverrides, insertHashKeyOverrides, type FeatureFlag } from '../flags/store.js';
import {
  evaluateFlags,
  failedFlagEvaluation,
  type EvaluationContext,
  type FlagDefinition,
  type FlagSetEvaluation,
} from '../flags/engine/index.js';
import { getGroup, listGroupTypes } from '../groups/store.js';
import { GEOIP_FLAG_PROPERTY_KEYS, geoipFlagProperties } from '../ingestion/core/geoip-properties.js';
import { getPersonByDistinctId, type Person } from '../persons/store.js';
import type { Team } from '../tenancy/models.js';
import { servesRuntime, type EvaluationRuntime } from './evaluation-runtime.js';
import type { FlagsRequest } from './flag-request.js';

type Json = Record<string, unknown>;

/** What each flag reads besides the request: drives which reads are made. */
interface FlagNeeds {
  personKeys: Set<string>;
  cohorts: boolean;
  groups: boolean;
}

function conditionsOf(flag: FeatureFlag): Json[] {
  const filters = effectiveFilters(flag.filters);
  return ['groups', 'super_groups', 'holdout_groups'].flatMap((name) =>
    Array.isArray(filters[name]) ? (filters[name] as Json[]) : [],
  );
}

function needsOf(flag: FeatureFlag): FlagNeeds {
  const needs: FlagNeeds = { personKeys: new Set(), cohorts: false, groups: false };
  const filters = effectiveFilters(flag.filters);
  if (filters.aggregation_group_type_index !== null && filters.aggregation_group_type_index !== undefined) needs.groups = true;
  if (filters.feature_enrollment) needs.personKeys.add(`$feature_enrollment/${flag.key}`);
  for (const condition of conditionsOf(flag)) {
    if (typeof condition.aggregation_group_type_index === 'number') needs.groups = true;
    // A condition rolled out to nobody never reads its properties.
    if (condition.rollout_percentage === 0) continue;
    for (const property of Array.isArray(condition.properties) ? (condition.properties as Json[]) : []) {
      if (property.type === 'cohort') needs.cohorts = true;
      else if (property.type === 'group') needs.groups = true;
      else if (property.type === 'person' || property.type === undefined) needs.personKeys.add(String(property.key));
    }
  }
  return needs;
}

function hasValue(properties: Json, key: string): boolean {
  return properties[key] !== undefined && properties[key] !== null;
}

export interface EvaluationInput {
  request: FlagsRequest;
  /** The client's address (X-Forwarded-For when trusted), for GeoIP. */
  ip: string | undefined;
  /** The caller's runtime: flags limited to the other runtime are left out. */
  runtime: EvaluationRuntime | null;
}

export async function evaluateFlagsRequest(ctx: AppContext, team: Team, input: EvaluationInput, log: Logger): Promise<FlagSetEvaluation> {
  const { request } = input;
  if (request.disableFlags) return { flags: {}, errorsWhileComputingFlags: false };
  let project: ProjectFlags;
  try {
    project = await flagDefinitionsCache(ctx).get(team.projectId);
  } catch (error) {
    log.error({ err: error, team: team.id }, 'flag definitions could not be loaded');
    return { flags: {}, errorsWhileComputingFlags: true };
  }
  const { db } = ctx.database;
  const served = project.flags.filter((flag) => servesRuntime(flag.evaluationRuntime, input.runtime));
  const active = served.filter((flag) => flag.active);
  const needs = new Map(active.map((flag) => [flag.key, needsOf(flag)]));
  const distinctId = String(request.distinctId ?? '');

  // Request overrides, with GeoIP filled in where the request gave no value.
  const overrides: Json = { ...request.personProperties };
  if (!request.geoipDisable && input.ip && ctx.geoip) {
    const located = geoipFlagProperties(ctx.geoip.lookup(input.ip));
    for (const key of GEOIP_FLAG_PROPERTY_KEYS) if (!hasValue(overrides, key) && key in located) overrides[key] = located[key];
  }

  // The stored person is read only when some flag needs what the request did not give.
  const wantsPerson =
    project.hasContinuityFlags ||
    [...needs.values()].some((n) => n.cohorts || [...n.personKeys].some((key) => !(key in overrides)));
  const failedData = new Set<'person' | 'groups' | 'continuity'>();
  let person: Person | undefined;
  if (wantsPerson) {
    try {
      person = await getPersonByDistinctId(db, team.id, distinctId);
    } catch (error) {
      log.error({ err: error, team: team.id }, 'person lookup for flags failed');
      failedData.add('person');
    }
  }
  const personProperties: Json = wantsPerson ? { ...(person?.properties ?? {}), ...overrides } : overrides;
  if (wantsPerson && !('distinct_id' in personProperties)) personProperties.distinct_id = distinctId;

  let staticCohortIds: number[] = [];
  if (person && project.staticCohortIds.length > 0 && [...needs.values()].some((n) => n.cohorts)) {
    try {
      staticCohortIds = await staticMembershipsOf(db, person.id, project.staticCohortIds);
    } catch (error) {
      log.error({ err: error, team: team.id }, 'cohort membership lookup failed');
      failedData.add('person');
    }
  }

  const groupTypeMapping: Record<string, string> = {};
  const groupProperties: Record<string, Json> = { ...request.groupProperties };
  if ([...needs.values()].some((n) => n.groups)) {
    try {
      const types = await listGroupTypes(db, team.id);
      for (const type of types) {
        groupTypeMapping[String(type.groupTypeIndex)] = type.groupType;
        const key = request.groups[type.groupType];
        if (typeof key !== 'string' && typeof key !== 'number') continue;
        const stored = await getGroup(db, team.id, type.groupTypeIndex, String(key));
        if (stored) groupProperties[type.groupType] = { ...stored.properties, ...(request.groupProperties[type.groupType] ?? {}) };
      }
    } catch (error) {
      log.error({ err: error, team: team.id }, 'group lookup for flags failed');
      failedData.add('groups');
    }
  }

  let hashKeyOverrides: Record<string, string> = {};
  if (project.hasContinuityFlags) {
    try {
      hashKeyOverrides = await continuityOverrides(ctx, team, project, person, request.anonDistinctId);
    } catch (error) {
      log.error({ err: error, team: team.id }, 'hash key overrides failed');
      failedData.add('continuity');
    }
  }

  const context: EvaluationContext = {
    distinct_id: request.distinctId ?? '',
    person_properties: personProperties,
    groups: request.groups,
    group_properties: groupProperties,
    anon_distinct_id: request.anonDistinctId,
    hash_key_overrides: hashKeyOverrides,
    device_id: request.deviceId,
    staticCohortIds,
    timezone: typeof team.settings.timezone === 'string' ? team.settings.timezone : 'UTC',
  };
  const servedKeys = new Set(served.map((flag) => flag.key));
  const evaluation = evaluateFlags(
    {
      ...project.definitions,
      flags: project.definitions.flags.filter((flag) => servedKeys.has(flag.key)),
      group_type_mapping: groupTypeMapping,
    },
    context,
    request.flagKeys ? { flagKeys: request.flagKeys } : {},
  );
  if (failedData.size === 0) return evaluation;

  // Flags that needed data we could not read are reported failed, the others stand.
  const byKey = new Map(project.definitions.flags.map((f) => [f.key, f as FlagDefinition]));
  for (const flag of active) {
    const need = needs.get(flag.key)!;
    const broken =
      (failedData.has('person') && (need.cohorts || need.personKeys.size > 0)) ||
      (failedData.has('groups') && need.groups) ||
      (failedData.has('continuity') && flag.ensureExperienceContinuity);
    if (broken && evaluation.flags[flag.key]) evaluation.flags[flag.key] = failedFlagEvaluation(byKey.get(flag.key)!, 'internal_error');
  }
  return { flags: evaluation.flags, errorsWhileComputingFlags: true };
}

/**
 * PostHog's `ensure_experience_continuity`: with an anonymous id, every person behind the two ids
 * keeps that id as the hash key of each continuity flag it has no key for yet; the keys of the
 * person behind `distinct_id` win.
 */
async function continuityOverrides(
  ctx: AppContext,
  team: Team,
  project: ProjectFlags,
  person: Person | undefined,
  anonDistinctId: string | null,
): Promise<Record<string, string>> {
  const { db } = ctx.database;
  const anonPerson = anonDistinctId ? await getPersonByDistinctId(db, team.id, anonDistinctId) : undefined;
  const persons = [person, anonPerson].filter((p): p is Person => p !== undefined);
  if (persons.length === 0) return {};
  if (anonDistinctId) {
    const keys = project.flags.filter((f) => f.active && f.ensureExperienceContinuity).map((f) => f.key);
    for (const p of persons) await insertHashKeyOverrides(db, team.id, p.id, keys, anonDistinctId);
  }
  const stored = await getHashKeyOverrides(db, team.id, persons.map((p) => p.id));
  return { ...(anonPerson ? stored.get(anonPerson.id) : {}), ...(person ? stored.get(person.id) : {}) };
}
