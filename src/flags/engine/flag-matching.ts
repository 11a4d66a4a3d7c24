/**
 * The steps of evaluating one flag, in the order PostHog's Rust service runs them:
 *
 *   enrollment (super conditions) → holdout → conditions in stored order, each being
 *   identifier → properties → rollout → variant; then the payload for the result.
 *
 * Each step is a small exported function so it can be tested and reasoned about on its own.
 * Flag dependencies are resolved before this (see dependencies.ts): by the time a flag runs,
 * the values of the flags it depends on are in `state.values`.
 */
import { matchCohortFilter } from './cohorts.js';
import { matchesFlagValue, resolveDependencyTarget } from './dependencies.js';
import type { NormalizedFlagFilters } from './flag-filters.js';
import {
  flagHash,
  isHashInRollout,
  isHoldoutMember,
  ROLLOUT_SALT,
  selectVariantForHash,
  truncateIdentifier,
  VARIANT_SALT,
} from './hashing.js';
import { matchProperty } from './property-matching.js';
import type { EvaluationState } from './evaluation-state.js';
import { replacesReason } from './reasons.js';
import type { FlagCondition, FlagDefinition, FlagReasonCode, PropertyFilter } from './types.js';
import { hasOwn } from './value-coercion.js';

/** What a step decided about the flag (before payload lookup and projection). */
export interface FlagOutcome {
  enabled: boolean;
  variant: string | null;
  code: FlagReasonCode;
  conditionIndex: number | null;
  /** No match, and some group-aggregated condition was skipped for lack of a group key. */
  groupsNotEvaluated?: boolean;
}

/** The identifier a condition hashes, or why the condition has to be skipped. */
export type IdentifierResolution =
  | { kind: 'identifier'; identifier: string }
  | { kind: 'skip'; reason: 'no_group_type' | 'out_of_rollout_bound' };

/** A condition's aggregation: its own index when the key is present (null = person), else the flag's. */
export function conditionAggregation(condition: FlagCondition, filters: NormalizedFlagFilters): number | null {
  if (hasOwn(condition, 'aggregation_group_type_index')) {
    const index = condition.aggregation_group_type_index;
    return typeof index === 'number' ? index : null;
  }
  return filters.aggregationGroupTypeIndex;
}

export function usesDeviceBucketing(flag: FlagDefinition): boolean {
  return flag.bucketing_identifier === 'device_id';
}

/**
 * The identifier for person-aggregated hashing, in the reference's priority order: the device
 * id (device bucketing, when there is one); a stored hash-key override for this flag key (when
 * `useStoredOverride`; holdouts don't); for experience-continuity flags the request's anonymous
 * id; finally the distinct id.
 */
export function personIdentifier(flag: FlagDefinition, state: EvaluationState, useStoredOverride = true): string {
  if (usesDeviceBucketing(flag) && state.deviceId !== null) return state.deviceId;
  const override = useStoredOverride ? state.hashKeyOverrides[flag.key] : undefined;
  if (typeof override === 'string') return truncateIdentifier(override);
  if (flag.ensure_experience_continuity && state.anonDistinctId !== null) return truncateIdentifier(state.anonDistinctId);
  return state.distinctId;
}

/** Group key of a group type index for this request, if the request has a usable one. */
export function groupKeyFor(groupTypeIndex: number, state: EvaluationState): string | null {
  const typeName = state.groupTypeNames.get(groupTypeIndex);
  return typeName === undefined ? null : (state.groupKeys.get(typeName) ?? null);
}

/**
 * Identifier of a condition. A group condition without a usable group key is skipped
 * (no_group_type); a person condition of a device-bucketed flag without a device id is skipped
 * as out_of_rollout_bound.
 */
export function resolveIdentifier(flag: FlagDefinition, aggregation: number | null, state: EvaluationState): IdentifierResolution {
  if (aggregation !== null) {
    const key = groupKeyFor(aggregation, state);
    return key === null ? { kind: 'skip', reason: 'no_group_type' } : { kind: 'identifier', identifier: key };
  }
  if (usesDeviceBucketing(flag) && state.deviceId === null) return { kind: 'skip', reason: 'out_of_rollout_bound' };
  return { kind: 'identifier', identifier: personIdentifier(flag, state) };
}

/** flag_evaluates_to against a flag evaluated earlier; inactive targets read as false. */
export function matchFlagDependency(filter: PropertyFilter, state: EvaluationState): boolean {
  if ((filter.operator ?? 'exact') !== 'flag_evaluates_to') return false;
  const target = resolveDependencyTarget(filter, state.lookup);
  if (!target) return false;
  return matchesFlagValue(filter.value, state.values.get(target.key) ?? false);
}

/** Properties of the group a group filter reads (its own index, else the condition's aggregation). */
function groupPropertiesFor(filter: PropertyFilter, aggregation: number | null, state: EvaluationState) {
  const index = typeof filter.group_type_index === 'number' ? filter.group_type_index : aggregation;
  const typeName = index === null ? undefined : state.groupTypeNames.get(index);
  return (typeName !== undefined ? state.groupProperties.get(typeName) : undefined) ?? {};
}

/** One non-cohort filter of a condition against the property map it reads. */
function matchConditionFilter(filter: PropertyFilter, aggregation: number | null, state: EvaluationState): boolean {
  if (filter.type === 'flag') return matchFlagDependency(filter, state);
  if (filter.type === 'group') return matchProperty(filter, groupPropertiesFor(filter, aggregation, state), state.env);
  if (filter.type === undefined || filter.type === null || filter.type === 'person' || filter.type === 'person_metadata') {
    return matchProperty(filter, state.personProperties, state.env);
  }
  return false; // event/element/behavioral filters cannot be evaluated by a flag engine
}

/**
 * All filters of a condition, AND-ed with short-circuit in stored order; cohort filters are
 * deferred to the end because they are the expensive ones (they may recurse into other cohorts).
 */
export function matchConditionProperties(
  properties: readonly PropertyFilter[],
  aggregation: number | null,
  state: EvaluationState,
): boolean {
  let deferredCohorts: PropertyFilter[] | null = null;
  for (const filter of properties) {
    if (filter.type === 'cohort') (deferredCohorts ??= []).push(filter);
    else if (!matchConditionFilter(filter, aggregation, state)) return false;
  }
  return deferredCohorts === null || deferredCohorts.every((filter) => matchCohortFilter(filter, state.personProperties, state.env, state.cohorts));
}

/** Rollout check of a matched condition: null/absent = 100 (no hash computed). */
export function passesConditionRollout(flagKey: string, condition: FlagCondition, identifier: string): boolean {
  const percentage = typeof condition.rollout_percentage === 'number' ? condition.rollout_percentage : 100;
  if (percentage >= 100) return true;
  return isHashInRollout(flagHash(flagKey, identifier, ROLLOUT_SALT), percentage);
}

/** The variant from the variant hash, or null for boolean flags / hashes past the last boundary. */
export function hashedVariant(flagKey: string, filters: NormalizedFlagFilters, identifier: string): string | null {
  if (filters.variants.length === 0) return null;
  return selectVariantForHash(flagHash(flagKey, identifier, VARIANT_SALT), filters.variants);
}

/** A condition's override when it names a declared variant; otherwise the hashed variant. */
export function resolveVariant(
  flagKey: string,
  filters: NormalizedFlagFilters,
  condition: FlagCondition,
  identifier: string,
): string | null {
  const override = condition.variant;
  if (typeof override === 'string' && filters.variants.some((variant) => variant.key === override)) return override;
  return hashedVariant(flagKey, filters, identifier);
}

/** Result of one condition: matched (with variant), or the reason it did not. */
export type ConditionResult =
  | { matched: true; variant: string | null }
  | { matched: false; reason: 'no_group_type' | 'no_condition_match' | 'out_of_rollout_bound'; rolloutMiss: boolean };

export function evaluateCondition(
  flag: FlagDefinition,
  filters: NormalizedFlagFilters,
  condition: FlagCondition,
  state: EvaluationState,
): ConditionResult {
  const aggregation = conditionAggregation(condition, filters);
  const resolution = resolveIdentifier(flag, aggregation, state);
  if (resolution.kind === 'skip') return { matched: false, reason: resolution.reason, rolloutMiss: false };
  if (!matchConditionProperties(condition.properties ?? [], aggregation, state)) {
    return { matched: false, reason: 'no_condition_match', rolloutMiss: false };
  }
  if (!passesConditionRollout(flag.key, condition, resolution.identifier)) {
    return { matched: false, reason: 'out_of_rollout_bound', rolloutMiss: true };
  }
  return { matched: true, variant: resolveVariant(flag.key, filters, condition, resolution.identifier) };
}

/**
 * Conditions in stored order; the first match wins. Without a match the highest-priority reason
 * seen is reported (ties: the later condition). With `early_exit`, a rollout miss after matching
 * properties ends evaluation at once.
 */
export function evaluateConditions(flag: FlagDefinition, filters: NormalizedFlagFilters, state: EvaluationState): FlagOutcome {
  let reported: { code: FlagReasonCode; index: number | null } = { code: 'no_group_type', index: null };
  let skippedGroupCondition = false;
  for (const [index, condition] of filters.groups.entries()) {
    const result = evaluateCondition(flag, filters, condition, state);
    if (result.matched) return { enabled: true, variant: result.variant, code: 'condition_match', conditionIndex: index };
    if (result.reason === 'no_group_type') skippedGroupCondition = true;
    if (replacesReason(result.reason, reported.code)) reported = { code: result.reason, index };
    if (result.rolloutMiss && filters.earlyExit) {
      return { enabled: false, variant: null, code: 'out_of_rollout_bound', conditionIndex: index };
    }
  }
  return {
    enabled: false,
    variant: null,
    code: reported.code,
    conditionIndex: reported.index,
    groupsNotEvaluated: skippedGroupCondition && reported.code === 'no_condition_match',
  };
}

/**
 * Early-access enrollment, always on person properties (even for group flags). New style
 * (`feature_enrollment: true`, which takes precedence): the person property
 * `$feature_enrollment/<key>` decides outright when present ("true"/true enables). Legacy
 * style: the first super group is evaluated as a person condition, but only when the person has
 * one of its property keys. Either way: reason super_condition_value, index 0, no variant.
 */
export function checkEnrollment(flag: FlagDefinition, filters: NormalizedFlagFilters, state: EvaluationState): FlagOutcome | null {
  if (filters.featureEnrollment) {
    const enrollmentKey = `$feature_enrollment/${flag.key}`;
    if (!hasOwn(state.personProperties, enrollmentKey)) return null;
    const value = state.personProperties[enrollmentKey];
    return { enabled: value === true || value === 'true', variant: null, code: 'super_condition_value', conditionIndex: 0 };
  }
  const superGroup = filters.superGroups[0];
  const properties = superGroup?.properties ?? [];
  if (!superGroup || !properties.some((filter) => hasOwn(state.personProperties, filter.key))) return null;
  const enabled =
    matchConditionProperties(properties, null, state) &&
    passesConditionRollout(flag.key, superGroup, personIdentifier(flag, state));
  return { enabled, variant: null, code: 'super_condition_value', conditionIndex: 0 };
}

/**
 * Holdouts hash the flag-level identifier without stored hash-key overrides; a group flag
 * without its group key hashes "" (i.e. the bare "holdout-" prefix), as in the reference.
 */
export function holdoutIdentifier(flag: FlagDefinition, filters: NormalizedFlagFilters, state: EvaluationState): string {
  const aggregation = filters.aggregationGroupTypeIndex;
  if (aggregation !== null) return groupKeyFor(aggregation, state) ?? '';
  return personIdentifier(flag, state, false);
}

/**
 * Holdout: a member gets the synthetic variant `holdout-<id>` (even on boolean flags) with no
 * condition index. Membership hashes "holdout-" + identifier, shared by all flags of the
 * holdout. Legacy `holdout_groups` are honoured only when they have no properties.
 */
export function checkHoldout(flag: FlagDefinition, filters: NormalizedFlagFilters, state: EvaluationState): FlagOutcome | null {
  const identifier = holdoutIdentifier(flag, filters, state);
  if (filters.holdout) {
    const exclusion = Math.min(100, Math.max(0, Number(filters.holdout.exclusion_percentage) || 0));
    if (!isHoldoutMember(identifier, exclusion)) return null;
    return { enabled: true, variant: `holdout-${filters.holdout.id}`, code: 'holdout_condition_value', conditionIndex: null };
  }
  const legacy = filters.holdoutGroups[0];
  if (!legacy || (legacy.properties ?? []).length > 0) return null;
  const percentage = typeof legacy.rollout_percentage === 'number' ? legacy.rollout_percentage : 100;
  if (!isHoldoutMember(identifier, percentage)) return null;
  const variant = (typeof legacy.variant === 'string' ? legacy.variant : null) ?? hashedVariant(flag.key, filters, identifier) ?? 'holdout';
  return { enabled: true, variant, code: 'holdout_condition_value', conditionIndex: null };
}

/** The whole per-flag pipeline (dependencies already resolved). */
export function matchFlag(flag: FlagDefinition, filters: NormalizedFlagFilters, state: EvaluationState): FlagOutcome {
  return checkEnrollment(flag, filters, state) ?? checkHoldout(flag, filters, state) ?? evaluateConditions(flag, filters, state);
}
