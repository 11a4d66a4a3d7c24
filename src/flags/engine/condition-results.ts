/**
 * A flag's conditions evaluated straight to its result, on the compiled form: the same steps as
 * flag-matching.ts evaluateConditions then toFlagEvaluation (identifier → properties → rollout →
 * variant, the first match wins, else the highest-priority reason), which stay the reference
 * (test/flags/condition-results.test.ts compares the two over generated flags and requests).
 *
 * What it saves per flag of a request, against the reference: property filters are compiled
 * (property-matchers.ts) instead of read and coerced on every call; the person identifier is the
 * distinct id without looking at overrides the request does not have; reasons are compared as
 * numbers; and the kept result is found by integers, without an outcome object.
 */
import { matchCohortFilter } from './cohorts.js';
import { FilterTarget, type CompiledCondition, type CompiledFlag } from './compiled-definitions.js';
import type { EvaluationState } from './evaluation-state.js';
import { groupKeyFor, matchConditionProperties, matchFlagDependency, personIdentifier } from './flag-matching.js';
import { matchedResult, missedResult, NO_CONDITION_MATCH, NO_GROUP_TYPE, OUT_OF_ROLLOUT_BOUND } from './flag-results.js';
import { isHashInRollout, PACKED_ROLLOUT_SALT, PACKED_VARIANT_SALT, prefixedFlagHash } from './hashing.js';
import type { FlagEvaluation, PropertyMap } from './types.js';

/** reasons.ts REASON_PRIORITY of the codes a condition can miss with, by their flag-results.ts index. */
const MISS_PRIORITY: readonly number[] = (() => {
  const priority: number[] = [];
  priority[NO_CONDITION_MATCH] = 2;
  priority[OUT_OF_ROLLOUT_BOUND] = 3;
  priority[NO_GROUP_TYPE] = 1;
  return priority;
})();

const NO_PROPERTIES: PropertyMap = {};

/** Properties of the group of a group type index (flag-matching.ts groupPropertiesFor). */
function groupProperties(index: number | null, state: EvaluationState): PropertyMap {
  const typeName = index === null ? undefined : state.groupTypeNames.get(index);
  return (typeName !== undefined ? state.groupProperties.get(typeName) : undefined) ?? NO_PROPERTIES;
}

/** flag-matching.ts matchConditionProperties, on the compiled filters. */
function matchProperties(condition: CompiledCondition, state: EvaluationState): boolean {
  const filters = condition.compiledFilters;
  if (condition.malformed || filters === null) return matchConditionProperties(condition, condition.aggregation, state);
  for (let i = 0; i < filters.length; i++) {
    const filter = filters[i]!;
    switch (filter.target) {
      case FilterTarget.Person:
        if (!filter.match(state.personProperties, state.env)) return false;
        break;
      case FilterTarget.Group:
        if (!filter.match(groupProperties(filter.groupTypeIndex ?? condition.aggregation, state), state.env)) return false;
        break;
      case FilterTarget.Flag:
        if (!matchFlagDependency(filter.source, state)) return false;
        break;
      default:
        return false;
    }
  }
  const cohorts = condition.cohortFilters;
  for (let i = 0; i < cohorts.length; i++) {
    if (!matchCohortFilter(cohorts[i]!, state.personProperties, state.env, state.cohorts)) return false;
  }
  return true;
}

/** The index (as results are kept) of the variant a hash falls in, or -1 past the last boundary. */
function hashedVariantIndex(flag: CompiledFlag, identifier: string): number {
  const hash = prefixedFlagHash(flag.hashPrefix, identifier, PACKED_VARIANT_SALT);
  const boundaries = flag.variantBoundaries;
  for (let i = 0; i < boundaries.length; i++) if (hash < boundaries[i]!) return flag.variantSlots[i]!;
  return -1;
}

/** evaluateConditions then toFlagEvaluation, for a flag that enrollment and holdout did not decide. */
export function conditionsResult(flag: CompiledFlag, state: EvaluationState): FlagEvaluation {
  let reportedCode = NO_GROUP_TYPE;
  let reportedIndex: number | null = null;
  let skippedGroupCondition = false;
  // The identifier of person conditions when nothing but the distinct id can name the person.
  const plainPerson = !flag.deviceBucketing && !flag.experienceContinuity && !state.hasHashKeyOverrides;
  const conditions = flag.conditions;
  for (let index = 0; index < conditions.length; index++) {
    const condition = conditions[index]!;
    const aggregation = condition.aggregation;
    let code: number;
    let rolloutMiss = false;
    const identifier =
      aggregation !== null
        ? groupKeyFor(aggregation, state)
        : flag.deviceBucketing && state.deviceId === null
          ? null
          : plainPerson
            ? state.distinctId
            : personIdentifier(flag, state);
    if (identifier === null) {
      // No group key for a group condition; no device id for a device-bucketed person condition.
      if (aggregation !== null) {
        code = NO_GROUP_TYPE;
        skippedGroupCondition = true;
      } else {
        code = OUT_OF_ROLLOUT_BOUND;
      }
    } else if (!matchProperties(condition, state)) {
      code = NO_CONDITION_MATCH;
    } else if (
      // Not `< 100`: a NaN percentage misses, as in passesConditionRollout.
      !(condition.rolloutPercentage >= 100) &&
      !isHashInRollout(prefixedFlagHash(flag.hashPrefix, identifier, PACKED_ROLLOUT_SALT), condition.rolloutPercentage)
    ) {
      code = OUT_OF_ROLLOUT_BOUND;
      rolloutMiss = true;
    } else {
      const variantIndex =
        condition.variantOverrideIndex !== -1
          ? condition.variantOverrideIndex
          : flag.variantKeys.length === 0
            ? -1
            : hashedVariantIndex(flag, identifier);
      return matchedResult(flag, index, variantIndex);
    }
    // Ties go to the later condition (reasons.ts replacesReason).
    if (MISS_PRIORITY[code]! >= MISS_PRIORITY[reportedCode]!) {
      reportedCode = code;
      reportedIndex = index;
    }
    if (rolloutMiss && flag.filters.earlyExit) return missedResult(flag, OUT_OF_ROLLOUT_BOUND, index, false);
  }
  return missedResult(flag, reportedCode, reportedIndex, skippedGroupCondition && reportedCode === NO_CONDITION_MATCH);
}
