/**
 * What a project's flags read besides the request, worked out once per definitions version,
 * caller runtime and survey restriction rather than on every `/decide`: which flags are served,
 * which person property keys their conditions read (directly, through dynamic cohorts nested to
 * any depth, or for enrollment), whether a static cohort is reachable, and which group types and
 * group property keys they read. evaluate-request.ts uses this to skip storage reads whose result the engine
 * would never look at, so answers are the same as with the reads.
 */
import { cohortDefinition, type ProjectFlags } from '../../flags/definitions-cache.js';
import {
  compileDefinitions,
  PERSON_METADATA_PREFIX,
  personMetadataKey,
  type CompiledDefinitions,
  type FlagDefinition,
} from '../../flags/engine/index.js';
import { effectiveFilters } from '../../flags/serializers.js';
import type { FeatureFlag } from '../../flags/store.js';
import { GEOIP_FLAG_PROPERTY_KEYS } from '../../ingestion/core/geoip-properties.js';
import { isJsonObject } from '../../lib/json-object.js';
import { servesRuntime, type EvaluationRuntime } from './evaluation-runtime.js';
import { initialBackfills } from './initial-properties.js';
import { SURVEY_TARGETING_FLAG_PREFIX } from './query-params.js';

type Json = Record<string, unknown>;

export interface FlagNeeds {
  /** Person property keys its conditions (those not rolled out to nobody) filter on directly. */
  personKeys: Set<string>;
  cohorts: boolean;
  /** Aggregates by, or filters on, a group. */
  groups: boolean;
}

export interface RequestPlan {
  served: FeatureFlag[];
  active: FeatureFlag[];
  needs: Map<string, FlagNeeds>;
  anyCohorts: boolean;
  /** Some condition reaches a static cohort (directly or nested): memberships can matter. */
  anyStaticCohorts: boolean;
  anyGroups: boolean;
  /** Union of the active flags' direct person keys. */
  personKeys: string[];
  /** Every person key any condition may read: direct, through cohorts, enrollment, any rollout. */
  allPersonKeys: string[];
  /** Group type indexes whose names some flag needs (aggregations and group filters). */
  groupIndexes: number[];
  /** Group type index → group property keys some flag reads from that group. */
  groupKeys: Map<number, string[]>;
  /** Some flag reads a GeoIP person property (in any condition), so the lookup is worth doing. */
  readsGeoip: boolean;
  /** Some condition reads a person_metadata field (directly or through a cohort). */
  readsPersonMetadata: boolean;
  /** [`$initial_` key, source key] of the `$initial_` keys some condition reads (initial-properties.ts). */
  initialBackfills: Array<readonly [string, string]>;
  /** Keys of active experience-continuity flags. */
  continuityKeys: string[];
  /** The served flags, compiled for the engine (the group type mapping is added per request). */
  compiled: CompiledDefinitions;
  byKey: Map<string, FlagDefinition>;
}

function conditionsOf(filters: Json): Json[] {
  // Malformed stored filters (not lists, not objects) are skipped here; the engine fails that flag.
  return ['groups', 'super_groups', 'holdout_groups'].flatMap((name) =>
    Array.isArray(filters[name]) ? (filters[name] as unknown[]).filter(isJsonObject) : [],
  );
}

function propertiesOf(condition: Json): Json[] {
  return Array.isArray(condition.properties) ? (condition.properties as unknown[]).filter(isJsonObject) : [];
}

/** Person keys and static-cohort use of each live cohort, following nested cohort references. */
class CohortReads {
  private readonly dynamic = new Map<string, Json | null>();
  private readonly staticIds = new Set<string>();
  private readonly memo = new Map<string, { keys: Set<string>; staticCohorts: boolean }>();

  constructor(project: ProjectFlags) {
    for (const cohort of project.cohorts) {
      if (cohort.deleted) continue;
      if (cohort.isStatic) this.staticIds.add(String(cohort.id));
      else this.dynamic.set(String(cohort.id), cohortDefinition(cohort) as Json | null);
    }
  }

  of(id: string, visiting = new Set<string>()): { keys: Set<string>; staticCohorts: boolean } {
    const known = this.memo.get(id);
    if (known) return known;
    const result = { keys: new Set<string>(), staticCohorts: this.staticIds.has(id) };
    // A cycle or a missing cohort fails the flag in the engine whatever the person holds.
    if (visiting.has(id)) return result;
    visiting.add(id);
    const walk = (group: Json | null | undefined): void => {
      for (const value of Array.isArray(group?.values) ? (group.values as Json[]) : []) {
        if (!value || typeof value !== 'object') continue;
        if (Array.isArray(value.values) && typeof value.key !== 'string') walk(value);
        else if (value.type === 'cohort') {
          const nested = this.of(String(value.value), visiting);
          nested.keys.forEach((key) => result.keys.add(key));
          if (nested.staticCohorts) result.staticCohorts = true;
        } else if (value.type === undefined || value.type === null || value.type === 'person') result.keys.add(String(value.key));
        else if (value.type === 'person_metadata') result.keys.add(personMetadataKey(String(value.key)));
      }
    };
    walk(this.dynamic.get(id));
    visiting.delete(id);
    this.memo.set(id, result);
    return result;
  }
}

/** What needsOf collects across flags besides each flag's own needs. */
interface SharedReads {
  groupIndexes: Set<number>;
  groupKeys: Map<number, Set<string>>;
  /** Person keys read by any condition, those rolled out to nobody included. */
  anyPersonKeys: Set<string>;
  anyStaticCohorts: boolean;
}

function needsOf(flag: FeatureFlag, cohorts: CohortReads, shared: SharedReads): FlagNeeds {
  const { groupIndexes, groupKeys } = shared;
  const needs: FlagNeeds = { personKeys: new Set(), cohorts: false, groups: false };
  const filters = effectiveFilters(flag.filters);
  const aggregation = typeof filters.aggregation_group_type_index === 'number' ? filters.aggregation_group_type_index : null;
  if (filters.aggregation_group_type_index !== null && filters.aggregation_group_type_index !== undefined) needs.groups = true;
  if (aggregation !== null) groupIndexes.add(aggregation);
  if (filters.feature_enrollment) {
    needs.personKeys.add(`$feature_enrollment/${flag.key}`);
    shared.anyPersonKeys.add(`$feature_enrollment/${flag.key}`);
  }
  for (const condition of conditionsOf(filters)) {
    const own = Object.prototype.hasOwnProperty.call(condition, 'aggregation_group_type_index');
    const conditionAggregation = own
      ? typeof condition.aggregation_group_type_index === 'number'
        ? condition.aggregation_group_type_index
        : null
      : aggregation;
    if (typeof condition.aggregation_group_type_index === 'number') needs.groups = true;
    if (conditionAggregation !== null) groupIndexes.add(conditionAggregation);
    // Group reads are listed for every condition (a superset is harmless: it only costs a read).
    for (const property of propertiesOf(condition)) {
      if (property.type === 'person' || property.type === undefined || property.type === null)
        shared.anyPersonKeys.add(String(property.key));
      if (property.type === 'person_metadata') shared.anyPersonKeys.add(personMetadataKey(String(property.key)));
      if (property.type === 'cohort') {
        const reads = cohorts.of(String(property.value));
        reads.keys.forEach((key) => shared.anyPersonKeys.add(key));
        if (reads.staticCohorts) shared.anyStaticCohorts = true;
      }
      if (property.type !== 'group') continue;
      const index = typeof property.group_type_index === 'number' ? property.group_type_index : conditionAggregation;
      if (index === null) continue;
      groupIndexes.add(index);
      let keys = groupKeys.get(index);
      if (!keys) groupKeys.set(index, (keys = new Set()));
      keys.add(String(property.key));
    }
    // The needs that decide whether the person is read skip conditions rolled out to nobody, as
    // before these plans existed; evaluate-request.ts keeps that rule exactly.
    if (condition.rollout_percentage === 0) continue;
    for (const property of propertiesOf(condition)) {
      if (property.type === 'cohort') needs.cohorts = true;
      else if (property.type === 'group') needs.groups = true;
      else if (property.type === 'person' || property.type === undefined) needs.personKeys.add(String(property.key));
      else if (property.type === 'person_metadata') needs.personKeys.add(personMetadataKey(String(property.key)));
    }
  }
  return needs;
}

function buildPlan(project: ProjectFlags, runtime: EvaluationRuntime | null, onlySurveyFlags: boolean): RequestPlan {
  const served = project.flags.filter(
    (flag) => servesRuntime(flag.evaluationRuntime, runtime) && (!onlySurveyFlags || flag.key.startsWith(SURVEY_TARGETING_FLAG_PREFIX)),
  );
  const active = served.filter((flag) => flag.active);
  const cohorts = new CohortReads(project);
  const shared: SharedReads = { groupIndexes: new Set(), groupKeys: new Map(), anyPersonKeys: new Set(), anyStaticCohorts: false };
  const needs = new Map(active.map((flag) => [flag.key, needsOf(flag, cohorts, shared)]));
  const all = [...needs.values()];
  const servedKeys = new Set(served.map((flag) => flag.key));
  const definitions = { ...project.definitions, flags: project.definitions.flags.filter((flag) => servedKeys.has(flag.key)) };
  return {
    served,
    active,
    needs,
    anyCohorts: all.some((n) => n.cohorts),
    anyStaticCohorts: shared.anyStaticCohorts,
    anyGroups: all.some((n) => n.groups),
    personKeys: [...new Set(all.flatMap((n) => [...n.personKeys]))],
    allPersonKeys: [...shared.anyPersonKeys],
    groupIndexes: [...shared.groupIndexes],
    groupKeys: new Map([...shared.groupKeys].map(([index, keys]) => [index, [...keys]])),
    readsGeoip: GEOIP_FLAG_PROPERTY_KEYS.some((key) => shared.anyPersonKeys.has(key)),
    readsPersonMetadata: [...shared.anyPersonKeys].some((key) => key.startsWith(PERSON_METADATA_PREFIX)),
    initialBackfills: initialBackfills(shared.anyPersonKeys),
    continuityKeys: active.filter((f) => f.ensureExperienceContinuity).map((f) => f.key),
    compiled: compileDefinitions(definitions),
    byKey: new Map(project.definitions.flags.map((f) => [f.key, f])),
  };
}

/**
 * One plan per runtime per loaded definitions (a definitions change yields a new ProjectFlags),
 * apart for requests restricted to survey flags.
 */
const plans = new WeakMap<ProjectFlags, Map<EvaluationRuntime | null, RequestPlan>>();
const surveyPlans = new WeakMap<ProjectFlags, Map<EvaluationRuntime | null, RequestPlan>>();

export function requestPlan(project: ProjectFlags, runtime: EvaluationRuntime | null, onlySurveyFlags: boolean): RequestPlan {
  const byProject = onlySurveyFlags ? surveyPlans : plans;
  let byRuntime = byProject.get(project);
  if (!byRuntime) byProject.set(project, (byRuntime = new Map()));
  let plan = byRuntime.get(runtime);
  if (!plan) byRuntime.set(runtime, (plan = buildPlan(project, runtime, onlySurveyFlags)));
  return plan;
}
