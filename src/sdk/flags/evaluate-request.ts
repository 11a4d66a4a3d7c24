/**
 * One `/decide` or `/flags` evaluation: the project's cached definitions, the properties the
 * flags need (stored person and groups, request overrides, GeoIP), static cohort memberships and
 * experience-continuity hash keys, then the pure engine. A storage failure fails only the flags
 * that needed the missing data (`errorsWhileComputingFlags: true`); the rest are still answered.
 */
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { AppContext } from '../../context.js';
import { staticMembershipsOf } from '../../cohorts/store.js';
import { flagDefinitionsCache, type ProjectFlags } from '../../flags/definitions-cache.js';
import { getHashKeyOverrides, insertHashKeyOverrides } from '../../flags/store.js';
import {
  personMetadataProperties,
  evaluateFlags,
  failedFlagEvaluation,
  flagSetEvaluation,
  type EvaluationContext,
  type FlagErrorCode,
  type FlagEvaluation,
  type FlagSetEvaluation,
} from '../../flags/engine/index.js';
import { getGroup } from '../../groups/store.js';
import { GEOIP_FLAG_PROPERTY_KEYS, geoipFlagProperties } from '../../ingestion/core/geoip-properties.js';
import { growableCopy } from '../../lib/growable-copy.js';
import { getPersonByDistinctId, type Person } from '../../persons/store.js';
import type { Team } from '../../environments/models.js';
import type { EvaluationRuntime } from './evaluation-runtime.js';
import type { FlagsRequest } from './flag-request.js';
import { requestPlan } from './flag-needs.js';
import { groupTypeCache } from './group-type-cache.js';
import { fillMissingInitialProperties } from './initial-properties.js';

type Json = Record<string, unknown>;

/** Shared empty defaults (read only): most requests need no group types, overrides or static cohorts. */
const NO_MAPPING: Record<string, string> = Object.freeze({});
const NO_IDS: readonly number[] = Object.freeze([]);

function hasValue(properties: Json, key: string): boolean {
  return properties[key] !== undefined && properties[key] !== null;
}

function allGiven(keys: readonly string[], given: Json): boolean {
  for (const key of keys) if (!(key in given)) return false;
  return true;
}

/** Whether some key the flags read from a group is missing from what the request gave. */
function lacksGroupKeys(keys: readonly string[] | undefined, given: Json | undefined): boolean {
  if (!keys) return false;
  return given === undefined || keys.some((key) => !(key in given));
}

export interface EvaluationInput {
  request: FlagsRequest;
  /** The address to locate for GeoIP targeting, and whether the caller supplied it (geoip-address.ts). */
  ip: { address: string; supplied: boolean } | undefined;
  /** The caller's runtime: flags limited to the other runtime are left out. */
  runtime: EvaluationRuntime | null;
  /** Only survey-targeting flags are evaluated (query-params.ts). */
  onlySurveyFlags: boolean;
}

export async function evaluateFlagsRequest(ctx: AppContext, team: Team, input: EvaluationInput, log: Logger): Promise<FlagSetEvaluation> {
  const { request } = input;
  if (request.disableFlags) return flagSetEvaluation([], false);
  let project: ProjectFlags;
  try {
    const definitions = flagDefinitionsCache(ctx);
    project = definitions.loaded(team.projectId) ?? (await definitions.get(team.projectId));
  } catch (error) {
    log.error({ err: error, team: team.id }, 'flag definitions could not be loaded');
    return flagSetEvaluation([], true);
  }
  const { db } = ctx.database;
  const plan = requestPlan(project, input.runtime, input.onlySurveyFlags);
  const distinctId = String(request.distinctId ?? '');

  // Request overrides, with GeoIP's: over the request's own values for an address the caller
  // supplied, else only where the request gave none (looked up only when some flag reads a GeoIP
  // property: the engine reads no other key of these maps).
  // Copies that may grow go through growableCopy (a spread copy that grows is slow: see there).
  // The request's own maps are the decoded body's objects, parsed afresh for each request; they
  // are only read (the engine never writes them), and anything added goes into a copy.
  let overrides: Json = request.personProperties;
  if (plan.readsGeoip && !request.geoipDisable && input.ip && ctx.geoip) {
    overrides = growableCopy(request.personProperties);
    const located = geoipFlagProperties(ctx.geoip.lookup(input.ip.address));
    const supplied = input.ip.supplied;
    for (const key of GEOIP_FLAG_PROPERTY_KEYS)
      if ((supplied || !hasValue(overrides, key)) && key in located) overrides[key] = located[key];
  }

  // The stored person is read when continuity needs it, when a flag filters on a person key the
  // request did not give, or when a flag filters on a cohort, unless every key any condition
  // could read (through cohorts too) was given and no static cohort is reachable: then the stored
  // properties could not change a single answer.
  const wantsPerson =
    project.hasContinuityFlags ||
    !allGiven(plan.personKeys, overrides) ||
    (plan.anyCohorts && (plan.anyStaticCohorts || !allGiven(plan.allPersonKeys, overrides)));
  // What could not be read, failing the flags that needed it.
  let personFailed = false;
  let groupsFailed = false;
  let continuityFailed = false;
  let person: Person | undefined;
  if (wantsPerson) {
    try {
      person = await getPersonByDistinctId(db, team.id, distinctId);
    } catch (error) {
      log.error({ err: error, team: team.id }, 'person lookup for flags failed');
      personFailed = true;
    }
  }
  const personProperties: Json =
    wantsPerson || (plan.initialBackfills.length > 0 && overrides === request.personProperties)
      ? growableCopy(wantsPerson ? person?.properties : undefined, overrides)
      : overrides;
  if (wantsPerson && !('distinct_id' in personProperties)) personProperties.distinct_id = distinctId;
  // The person row's own columns, unless the request gave them.
  if (person && plan.readsPersonMetadata)
    for (const [key, value] of Object.entries(personMetadataProperties(person)))
      if (!Object.hasOwn(overrides, key)) personProperties[key] = value;
  // After the merge, so a stored `$initial_*` wins over the request's current value.
  fillMissingInitialProperties(personProperties, plan.initialBackfills);

  let staticCohortIds: readonly number[] = NO_IDS;
  if (person && plan.anyCohorts && plan.anyStaticCohorts && project.staticCohortIds.length > 0) {
    try {
      staticCohortIds = await staticMembershipsOf(db, person.id, project.staticCohortIds);
    } catch (error) {
      log.error({ err: error, team: team.id }, 'cohort membership lookup failed');
      personFailed = true;
    }
  }

  // Stored group properties are read only for groups whose read keys the request did not all give.
  let groupTypeMapping: Record<string, string> = NO_MAPPING;
  // Copied when a stored group is added to it, as the person's map above.
  let groupProperties: Record<string, Json> = request.groupProperties;
  if (plan.anyGroups) {
    try {
      const groupTypes = groupTypeCache(db);
      const types = groupTypes.cached(team.id, plan.groupIndexes) ?? (await groupTypes.get(team.id, plan.groupIndexes));
      groupTypeMapping = types.mapping;
      for (const [index, groupType] of types.byIndex) {
        const key = request.groups[groupType];
        if (typeof key !== 'string' && typeof key !== 'number') continue;
        if (!lacksGroupKeys(plan.groupKeys.get(index), request.groupProperties[groupType])) continue;
        const stored = await getGroup(db, team.id, index, String(key));
        if (!stored) continue;
        if (groupProperties === request.groupProperties) groupProperties = growableCopy(request.groupProperties);
        groupProperties[groupType] = { ...stored.properties, ...(request.groupProperties[groupType] ?? {}) };
      }
    } catch (error) {
      log.error({ err: error, team: team.id }, 'group lookup for flags failed');
      groupsFailed = true;
    }
  }

  let hashKeyOverrides: Record<string, string> = NO_MAPPING;
  if (project.hasContinuityFlags) {
    try {
      hashKeyOverrides = await continuityOverrides(ctx, team, plan.continuityKeys, person, request.anonDistinctId);
    } catch (error) {
      log.error({ err: error, team: team.id }, 'hash key overrides failed');
      continuityFailed = true;
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
  const evaluation = evaluateFlags(plan.compiled, context, { flagKeys: request.flagKeys, groupTypeMapping });
  // Nothing failed (the common case): the evaluation is the answer as it is.
  if (!personFailed && !groupsFailed && !continuityFailed && !evaluation.errorsWhileComputingFlags) return evaluation;

  // Flags that needed data we could not read are reported failed, the others stand.
  const results = evaluation.results.map((result) => {
    const need = plan.needs.get(result.key);
    const flag = plan.byKey.get(result.key);
    if (!need || !flag) return withPostHogErrorCode(result);
    const broken =
      (personFailed && (need.cohorts || need.personKeys.size > 0)) ||
      (groupsFailed && need.groups) ||
      (continuityFailed && flag.ensure_experience_continuity === true);
    return broken ? failedFlagEvaluation(flag, 'internal_error') : withPostHogErrorCode(result);
  });
  return flagSetEvaluation(results, true);
}

/**
 * The engine names a broken cohort reference by what went wrong (cohorts.ts); PostHog's flags
 * service also names the kind of dependency (api/errors.rs evaluation_error_code), and the engine's
 * dependency errors are all cohort ones (a missing flag dependency is the missing_dependency reason).
 */
const POSTHOG_ERROR_CODES: Partial<Record<string, FlagErrorCode>> = {
  dependency_not_found: 'dependency_not_found_cohort',
  dependency_cycle: 'dependency_cycle_cohort',
};

function withPostHogErrorCode(result: FlagEvaluation): FlagEvaluation {
  const code = result.failed ? POSTHOG_ERROR_CODES[result.reason.code] : undefined;
  return code ? failedFlagEvaluation({ key: result.key, id: result.metadata.id, version: result.metadata.version }, code) : result;
}

/**
 * PostHog's `ensure_experience_continuity`: with an anonymous id, every person behind the two ids
 * keeps that id as the hash key of each continuity flag it has no key for yet; the keys of the
 * person behind `distinct_id` win.
 */
async function continuityOverrides(
  ctx: AppContext,
  team: Team,
  keys: string[],
  person: Person | undefined,
  anonDistinctId: string | null,
): Promise<Record<string, string>> {
  const { db } = ctx.database;
  const anonPerson = anonDistinctId ? await getPersonByDistinctId(db, team.id, anonDistinctId) : undefined;
  const persons = [person, anonPerson].filter((p): p is Person => p !== undefined);
  if (persons.length === 0) return {};
  if (anonDistinctId) {
    for (const p of persons) await insertHashKeyOverrides(db, team.id, p.id, keys, anonDistinctId);
  }
  const stored = await getHashKeyOverrides(
    db,
    team.id,
    persons.map((p) => p.id),
  );
  return { ...(anonPerson ? stored.get(anonPerson.id) : {}), ...(person ? stored.get(person.id) : {}) };
}
