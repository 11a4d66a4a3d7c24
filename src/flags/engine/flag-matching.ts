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
import type { CompiledCondition, CompiledFlag } from './compiled-definitions.js';
import { matchesFlagValue, resolveDependencyTarget } from './dependencies.js';
import {
  isHashInRollout,
  isHoldoutMember,
  PACKED_ROLLOUT_SALT,
  PACKED_VARIANT_SALT,
  prefixedFlagHash,
  truncateIdentifier,
  variantForHash,
} from './hashing.js';
import { matchProperty } from './property-matching.js';
import type { EvaluationState } from './evaluation-state.js';
import { replacesReason } from './reasons.js';
import type { FlagCondition, FlagReasonCode, PropertyFilter } from './types.js';
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

/** A group condition whose group the request gave no usable key for: skipped as no_group_type. */
export const NO_GROUP_KEY = Symbol('no group key');
/** A person condition of a device-bucketed flag without a device id: skipped as out_of_rollout_bound. */
export const NO_DEVICE_ID = Symbol('no device id');

/** The identifier a condition hashes, or why the condition has to be skipped. */
export type IdentifierResolution = string | typeof NO_GROUP_KEY | typeof NO_DEVICE_ID;

/**
 * The identifier for person-aggregated hashing, in the reference's priority order: the device
 * id (device bucketing, when there is one); a stored hash-key override for this flag key (when
 * `useStoredOverride`; holdouts don't); for experience-continuity flags the request's anonymous
 * id; finally the distinct id.
 */
export function personIdentifier(flag: CompiledFlag, state: EvaluationState, useStoredOverride = true): string {
  if (flag.deviceBucketing && state.deviceId !== null) return state.deviceId;
  const override = useStoredOverride ? state.hashKeyOverrides[flag.key] : undefined;
  if (typeof override === 'string') return truncateIdentifier(override);
  if (flag.experienceContinuity && state.anonDistinctId !== null) return truncateIdentifier(state.anonDistinctId);
  return state.distinctId;
}

/** Group key of a group type index for this request, if the request has a usable one. */
export function groupKeyFor(groupTypeIndex: number, state: EvaluationState): string | null {
  const typeName = state.groupTypeNames.get(groupTypeIndex);
  return typeName === undefined ? null : (state.groupKeys.get(typeName) ?? null);
}

/** Identifier of a condition aggregated by `aggregation` (null = person). */
export function resolveIdentifier(flag: CompiledFlag, aggregation: number | null, state: EvaluationState): IdentifierResolution {
  if (aggregation !== null) return groupKeyFor(aggregation, state) ?? NO_GROUP_KEY;
  if (flag.deviceBucketing && state.deviceId === null) return NO_DEVICE_ID;
  return personIdentifier(flag, state);
}

/** flag_evaluates_to against a flag evaluated earlier; inactive targets read as false. */
export function matchFlagDependency(filter: PropertyFilter, state: EvaluationState): boolean {
  if ((filter.operator ?? 'exact') !== 'flag_evaluates_to') return false;
  const target = resolveDependencyTarget(filter, state.lookup);
  if (!target) return false;
  return matchesFlagValue(filter.value, state.values.get(target.key) ?? false);
}

const NO_PROPERTIES: Record<string, unknown> = {};

/** Properties of the group a group filter reads (its own index, else the condition's aggregation). */
function groupPropertiesFor(filter: PropertyFilter, aggregation: number | null, state: EvaluationState) {
  const index = typeof filter.group_type_index === 'number' ? filter.group_type_index : aggregation;
  const typeName = index === null ? undefined : state.groupTypeNames.get(index);
  return (typeName !== undefined ? state.groupProperties.get(typeName) : undefined) ?? NO_PROPERTIES;
}

/** One non-cohort filter of a condition against the property map it reads. */
function matchConditionFilter(filter: PropertyFilter, aggregation: number | null, state: EvaluationState): boolean {
  const type = filter.type;
  if (type === undefined || type === null || type === 'person' || type === 'person_metadata') {
    return matchProperty(filter, state.personProperties, state.env);
  }
  if (type === 'group') return matchProperty(filter, groupPropertiesFor(filter, aggregation, state), state.env);
  if (type === 'flag') return matchFlagDependency(filter, state);
  return false; // event/element/behavioral filters cannot be evaluated by a flag engine
}

/**
 * All filters of a condition, AND-ed with short-circuit in stored order; cohort filters come
 * last because they are the expensive ones (they may recurse into other cohorts).
 */
export function matchConditionProperties(condition: CompiledCondition, aggregation: number | null, state: EvaluationState): boolean {
  if (condition.malformed) throw new TypeError('condition properties are not a list');
  const direct = condition.directFilters;
  for (let i = 0; i < direct.length; i++) if (!matchConditionFilter(direct[i]!, aggregation, state)) return false;
  const cohorts = condition.cohortFilters;
  for (let i = 0; i < cohorts.length; i++) {
    if (!matchCohortFilter(cohorts[i]!, state.personProperties, state.env, state.cohorts)) return false;
  }
  return true;
}

/** Rollout check of a matched condition: 100 (the default) passes without computing a hash. */
export function passesConditionRollout(flag: CompiledFlag, percentage: number, identifier: string): boolean {
  return percentage >= 100 || isHashInRollout(prefixedFlagHash(flag.hashPrefix, identifier, PACKED_ROLLOUT_SALT), percentage);
}

/** The variant from the variant hash, or null for boolean flags / hashes past the last boundary. */
export function hashedVariant(flag: CompiledFlag, identifier: string): string | null {
  if (flag.variantKeys.length === 0) return null;
  return variantForHash(prefixedFlagHash(flag.hashPrefix, identifier, PACKED_VARIANT_SALT), flag.variantKeys, flag.variantBoundaries);
}

/** A condition's override when it names a declared variant; otherwise the hashed variant. */
export function resolveVariant(flag: CompiledFlag, condition: CompiledCondition, identifier: string): string | null {
  return condition.variantOverride ?? hashedVariant(flag, identifier);
}

/**
 * Conditions in stored order, each: identifier → properties → rollout → variant; the first match
 * wins. Without a match the highest-priority reason seen is reported (ties: the later
 * condition). With `early_exit`, a rollout miss after matching properties ends evaluation at once.
 */
export function evaluateConditions(flag: CompiledFlag, state: EvaluationState): FlagOutcome {
  let reportedCode: FlagReasonCode = 'no_group_type';
  let reportedIndex: number | null = null;
  let skippedGroupCondition = false;
  const conditions = flag.conditions;
  for (let index = 0; index < conditions.length; index++) {
    const condition = conditions[index]!;
    const identifier = resolveIdentifier(flag, condition.aggregation, state);
    let reason: FlagReasonCode;
    let rolloutMiss = false;
    if (identifier === NO_GROUP_KEY) {
      reason = 'no_group_type';
      skippedGroupCondition = true;
    } else if (identifier === NO_DEVICE_ID) {
      reason = 'out_of_rollout_bound';
    } else if (!matchConditionProperties(condition, condition.aggregation, state)) {
      reason = 'no_condition_match';
    } else if (!passesConditionRollout(flag, condition.rolloutPercentage, identifier)) {
      reason = 'out_of_rollout_bound';
      rolloutMiss = true;
    } else {
      return { enabled: true, variant: resolveVariant(flag, condition, identifier), code: 'condition_match', conditionIndex: index };
    }
    if (replacesReason(reason, reportedCode)) {
      reportedCode = reason;
      reportedIndex = index;
    }
    if (rolloutMiss && flag.filters.earlyExit) {
      return { enabled: false, variant: null, code: 'out_of_rollout_bound', conditionIndex: index };
    }
  }
  return {
    enabled: false,
    variant: null,
    code: reportedCode,
    conditionIndex: reportedIndex,
    groupsNotEvaluated: skippedGroupCondition && reportedCode === 'no_condition_match',
  };
}

/**
 * Early-access enrollment, always on person properties (even for group flags). New style
 * (`feature_enrollment: true`, which takes precedence): the person property
 * `$feature_enrollment/<key>` decides outright when present ("true"/true enables). Legacy
 * style: the first super group is evaluated as a person condition, but only when the person has
 * one of its property keys. Either way: reason super_condition_value, index 0, no variant.
 */
export function checkEnrollment(flag: CompiledFlag, state: EvaluationState): FlagOutcome | null {
  if (flag.filters.featureEnrollment) {
    const enrollmentKey = `$feature_enrollment/${flag.key}`;
    if (!hasOwn(state.personProperties, enrollmentKey)) return null;
    const value = state.personProperties[enrollmentKey];
    return { enabled: value === true || value === 'true', variant: null, code: 'super_condition_value', conditionIndex: 0 };
  }
  const superGroup = flag.enrollmentCondition;
  if (!superGroup) return null;
  const properties = (superGroup.source.properties ?? []) as PropertyFilter[];
  if (!properties.some((filter) => hasOwn(state.personProperties, filter.key))) return null;
  const enabled =
    matchConditionProperties(superGroup, null, state) &&
    passesConditionRollout(flag, superGroup.rolloutPercentage, personIdentifier(flag, state));
  return { enabled, variant: null, code: 'super_condition_value', conditionIndex: 0 };
}

/**
 * Holdouts hash the flag-level identifier without stored hash-key overrides; a group flag
 * without its group key hashes "" (i.e. the bare "holdout-" prefix), as in the reference.
 */
export function holdoutIdentifier(flag: CompiledFlag, state: EvaluationState): string {
  const aggregation = flag.filters.aggregationGroupTypeIndex;
  if (aggregation !== null) return groupKeyFor(aggregation, state) ?? '';
  return personIdentifier(flag, state, false);
}

/**
 * Holdout: a member gets the synthetic variant `holdout-<id>` (even on boolean flags) with no
 * condition index. Membership hashes "holdout-" + identifier, shared by all flags of the
 * holdout. Legacy `holdout_groups` are honoured only when they have no properties.
 */
export function checkHoldout(flag: CompiledFlag, state: EvaluationState): FlagOutcome | null {
  const identifier = holdoutIdentifier(flag, state);
  const holdout = flag.filters.holdout;
  if (holdout) {
    const exclusion = Math.min(100, Math.max(0, Number(holdout.exclusion_percentage) || 0));
    if (!isHoldoutMember(identifier, exclusion)) return null;
    return { enabled: true, variant: `holdout-${holdout.id}`, code: 'holdout_condition_value', conditionIndex: null };
  }
  const legacy: FlagCondition | undefined = flag.filters.holdoutGroups[0];
  if (!legacy || (legacy.properties ?? []).length > 0) return null;
  const percentage = typeof legacy.rollout_percentage === 'number' ? legacy.rollout_percentage : 100;
  if (!isHoldoutMember(identifier, percentage)) return null;
  const variant = (typeof legacy.variant === 'string' ? legacy.variant : null) ?? hashedVariant(flag, identifier) ?? 'holdout';
  return { enabled: true, variant, code: 'holdout_condition_value', conditionIndex: null };
}

/** The whole per-flag pipeline (dependencies already resolved). */
export function matchFlag(flag: CompiledFlag, state: EvaluationState): FlagOutcome {
  return (
    (flag.hasEnrollment ? checkEnrollment(flag, state) : null) ??
    (flag.hasHoldout ? checkHoldout(flag, state) : null) ??
    evaluateConditions(flag, state)
  );
}
