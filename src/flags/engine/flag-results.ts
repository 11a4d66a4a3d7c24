/**
 * A flag's public result for an outcome of its steps. A result is fully decided by its flag and
 * outcome, so each flag keeps the results it gave (frozen, shared by every request that gets the
 * same outcome): fifty flags per request made this the largest allocation of an evaluation. The
 * kept results are found by a number naming the outcome (resultSlot), which the compiled
 * condition loop (condition-results.ts) computes from integers, without an outcome object.
 */
import type { CompiledFlag } from './compiled-definitions.js';
import type { FlagOutcome } from './flag-matching.js';
import { makeReason } from './reasons.js';
import type { FlagEvaluation, FlagReasonCode } from './types.js';

export const NOT_KEPT = -1;

/** Outcome codes that name a kept result (errors are rare and built each time), by their index in resultSlot. */
const KEPT_CODES: readonly FlagReasonCode[] = [
  'condition_match',
  'no_condition_match',
  'out_of_rollout_bound',
  'no_group_type',
  'super_condition_value',
  'holdout_condition_value',
  'flag_disabled',
  'missing_dependency',
];
export const CONDITION_MATCH = 0;
export const NO_CONDITION_MATCH = 1;
export const OUT_OF_ROLLOUT_BOUND = 2;
export const NO_GROUP_TYPE = 3;

const CONDITION_SLOTS = 65; // no index, or 0-63
const VARIANT_SLOTS = 33; // no variant, or one of the first 32 declared

/**
 * The number naming an outcome within its flag: its code's index in KEPT_CODES (-1: not kept),
 * condition index (null: none), declared variant's index (-1: none; outcomes whose variant is not
 * a declared one pass -2), enabled, and whether group conditions were skipped. NOT_KEPT for
 * outcomes outside those bounds (such as a holdout's own variant).
 */
export function slotOf(
  codeIndex: number,
  conditionIndex: number | null,
  variantIndex: number,
  enabled: boolean,
  groupsNotEvaluated: boolean,
): number {
  if (codeIndex === -1 || (conditionIndex !== null && (conditionIndex < 0 || conditionIndex >= CONDITION_SLOTS - 1))) return NOT_KEPT;
  if (variantIndex < -1 || variantIndex >= VARIANT_SLOTS - 1) return NOT_KEPT;
  const conditionSlot = conditionIndex === null ? 0 : conditionIndex + 1;
  // enabled is not implied by the code: early-access enrollment answers both ways with index 0.
  return (
    ((codeIndex * CONDITION_SLOTS + conditionSlot) * VARIANT_SLOTS + variantIndex + 1) * 4 +
    (enabled ? 2 : 0) +
    (groupsNotEvaluated ? 1 : 0)
  );
}

function resultSlot(flag: CompiledFlag, outcome: FlagOutcome): number {
  const variant = outcome.enabled ? outcome.variant : null;
  const variantIndex = variant === null ? -1 : flag.variantKeys.indexOf(variant);
  return slotOf(
    KEPT_CODES.indexOf(outcome.code),
    outcome.conditionIndex,
    variantIndex === -1 && variant !== null ? -2 : variantIndex,
    outcome.enabled,
    outcome.groupsNotEvaluated === true,
  );
}

/** Turns a step outcome into the public result, attaching the payload for its value. */
export function toFlagEvaluation(flag: CompiledFlag, outcome: FlagOutcome): FlagEvaluation {
  const slot = resultSlot(flag, outcome);
  return (slot === NOT_KEPT ? undefined : flag.results.get(slot)) ?? newResult(flag, outcome, slot);
}

function newResult(flag: CompiledFlag, outcome: FlagOutcome, slot: number): FlagEvaluation {
  const enabled = outcome.enabled;
  const variant = enabled ? outcome.variant : null;
  const result: FlagEvaluation = Object.freeze({
    key: flag.key,
    enabled,
    variant,
    value: enabled ? (variant ?? true) : false,
    payload: enabled ? (flag.payloads.get(variant ?? 'true') ?? null) : null,
    reason: makeReason(outcome.code, outcome.conditionIndex, outcome.groupsNotEvaluated),
    metadata: flag.metadata,
  });
  if (slot !== NOT_KEPT) flag.results.set(slot, result);
  return result;
}

/** The result of a matched condition (`variantIndex`: a declared variant's index, or -1 for none). */
export function matchedResult(flag: CompiledFlag, conditionIndex: number, variantIndex: number): FlagEvaluation {
  const slot = slotOf(CONDITION_MATCH, conditionIndex, variantIndex, true, false);
  return (
    (slot === NOT_KEPT ? undefined : flag.results.get(slot)) ??
    newResult(
      flag,
      {
        enabled: true,
        variant: variantIndex === -1 ? null : flag.variantKeys[variantIndex]!,
        code: 'condition_match',
        conditionIndex,
      },
      slot,
    )
  );
}

/** The result of no matched condition: `codeIndex` one of NO_CONDITION_MATCH, OUT_OF_ROLLOUT_BOUND, NO_GROUP_TYPE. */
export function missedResult(
  flag: CompiledFlag,
  codeIndex: number,
  conditionIndex: number | null,
  groupsNotEvaluated: boolean,
): FlagEvaluation {
  const slot = slotOf(codeIndex, conditionIndex, -1, false, groupsNotEvaluated);
  return (
    (slot === NOT_KEPT ? undefined : flag.results.get(slot)) ??
    newResult(flag, { enabled: false, variant: null, code: KEPT_CODES[codeIndex]!, conditionIndex, groupsNotEvaluated }, slot)
  );
}
