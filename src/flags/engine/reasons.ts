/**
 * Reason codes, their priority and their human descriptions (flags v2 `reason.description`).
 *
 * When no condition matches, the reported reason is the highest-priority one seen; on a tie the
 * later condition wins. That is why a rollout miss on condition 0 followed by a targeting miss
 * on condition 1 reports out_of_rollout_bound at index 0.
 */
import type { FlagReason, FlagReasonCode } from './types.js';

/** Priority of each reason (higher wins). Error codes are never compared. */
export const REASON_PRIORITY: Readonly<Record<string, number>> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
  missing_dependency: -1,
};

/** True when `candidate` should replace `current` as the reported reason (ties: later wins). */
export function replacesReason(candidate: FlagReasonCode, current: FlagReasonCode): boolean {
  return (REASON_PRIORITY[candidate] ?? -2) >= (REASON_PRIORITY[current] ?? -2);
}

/** Text of `reason.description` in flags v2 responses. */
/** "Matched condition set N" texts, built once: every matched flag of every request needs one. */
const MATCHED_DESCRIPTIONS = Array.from({ length: 32 }, (_, index) => `Matched condition set ${index + 1}`);

export function describeReason(code: string, conditionIndex: number | null): string {
  switch (code) {
    case 'condition_match':
      return MATCHED_DESCRIPTIONS[conditionIndex ?? 0] ?? `Matched condition set ${(conditionIndex ?? 0) + 1}`;
    case 'no_condition_match':
      return 'No matching condition set';
    case 'out_of_rollout_bound':
      return 'Out of rollout bound';
    case 'no_group_type':
      return 'No group type';
    case 'super_condition_value':
      return 'Super condition value';
    case 'holdout_condition_value':
      return 'Holdout condition value';
    case 'missing_dependency':
      return 'Flag cannot be evaluated due to missing dependency';
    case 'flag_disabled':
      return 'Feature flag is disabled';
    case 'dependency_not_found':
      return 'A cohort this flag depends on does not exist';
    case 'dependency_cycle':
      return 'Cohorts this flag depends on form a cycle';
    // PostHog's evaluation_error_description (api/errors.rs).
    case 'dependency_not_found_cohort':
      return 'Cohort dependency not found';
    case 'dependency_cycle_cohort':
      return 'Cohort dependency cycle detected';
    default:
      return 'Flag evaluation failed';
  }
}

/**
 * Description used instead of "No matching condition set" when group conditions were skipped
 * for lack of a group key: the code stays no_condition_match for compatibility.
 */
export const GROUPS_NOT_EVALUATED_DESCRIPTION =
  'No matching condition set (group conditions were not evaluated because no group type was provided)';

/**
 * Reasons are immutable and the same for every request, so each (code, index) is made once:
 * every flag of every request needs one.
 */
const reasonCache = new Map<string, FlagReason[]>();
const CACHED_INDEXES = 64;

export function makeReason(code: FlagReasonCode, conditionIndex: number | null, groupsNotEvaluated = false): FlagReason {
  const slot = ((conditionIndex ?? -1) + 1) * 2 + (groupsNotEvaluated ? 1 : 0);
  let byIndex = reasonCache.get(code);
  if (byIndex === undefined) reasonCache.set(code, (byIndex = []));
  const cached = conditionIndex === null || (conditionIndex >= 0 && conditionIndex < CACHED_INDEXES) ? byIndex[slot] : undefined;
  if (cached !== undefined) return cached;
  const description =
    code === 'no_condition_match' && groupsNotEvaluated ? GROUPS_NOT_EVALUATED_DESCRIPTION : describeReason(code, conditionIndex);
  const reason = Object.freeze({ code, condition_index: conditionIndex, description });
  if (conditionIndex === null || (conditionIndex >= 0 && conditionIndex < CACHED_INDEXES)) byIndex[slot] = reason;
  return reason;
}
