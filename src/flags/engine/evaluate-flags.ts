/**
 * Entry points: evaluate one flag, or a whole definition set (the local-evaluation feed shape)
 * against one request context. Pure: no I/O, and no state survives a call except a memo of
 * compiled regexes; the clock is injectable. Definitions may be passed compiled
 * (compiled-definitions.ts) when many requests share them.
 */
import { FlagEvaluationError } from './cohorts.js';
import { isCompiled, type CompiledDefinitions } from './compiled-definitions.js';
import { buildFlagLookup, isEvaluable, planEvaluationOrder, resolveDependencyTarget, type FiltersOf } from './dependencies.js';
import { createEvaluationState, type EvaluationState } from './evaluation-state.js';
import { normalizeFlagFilters, payloadFor, type NormalizedFlagFilters } from './flag-filters.js';
import { matchFlag, type FlagOutcome } from './flag-matching.js';
import { makeReason } from './reasons.js';
import type { EvaluationContext, FlagDefinition, FlagDefinitions, FlagErrorCode, FlagEvaluation, FlagSetEvaluation } from './types.js';

export interface EvaluateFlagsOptions {
  /** Evaluate only these keys (their dependencies are still evaluated, but not returned). */
  flagKeys?: readonly string[] | null;
  /** Group type index → name, replacing the definitions' own `group_type_mapping`. */
  groupTypeMapping?: Record<string, string> | null;
}

function metadataOf(flag: FlagDefinition): FlagEvaluation['metadata'] {
  return { id: typeof flag.id === 'number' ? flag.id : 0, version: typeof flag.version === 'number' ? flag.version : 0 };
}

/** Turns a step outcome into the public result, attaching the payload for its value. */
export function toFlagEvaluation(
  flag: FlagDefinition,
  outcome: FlagOutcome,
  filters: NormalizedFlagFilters = normalizeFlagFilters(flag),
): FlagEvaluation {
  const payloadKey = outcome.variant ?? 'true';
  return {
    key: flag.key,
    enabled: outcome.enabled,
    variant: outcome.enabled ? outcome.variant : null,
    value: outcome.enabled ? (outcome.variant ?? true) : false,
    payload: outcome.enabled ? payloadFor(filters, payloadKey) : null,
    reason: makeReason(outcome.code, outcome.conditionIndex, outcome.groupsNotEvaluated),
    metadata: metadataOf(flag),
  };
}

/** A flag that could not be evaluated: false, marked failed, with an error reason code. */
export function failedFlagEvaluation(flag: FlagDefinition, code: FlagErrorCode): FlagEvaluation {
  return {
    key: flag.key,
    enabled: false,
    variant: null,
    value: false,
    payload: null,
    reason: makeReason(code, null),
    failed: true,
    metadata: metadataOf(flag),
  };
}

/** Evaluates one flag whose dependencies (if any) already have values in `state`. */
export function evaluateFlag(flag: FlagDefinition, state: EvaluationState): FlagEvaluation {
  try {
    const filters = state.filtersOf(flag);
    return toFlagEvaluation(flag, matchFlag(flag, filters, state), filters);
  } catch (error) {
    // Broken configuration (missing or cyclic cohorts) fails only this flag.
    return failedFlagEvaluation(flag, error instanceof FlagEvaluationError ? error.code : 'internal_error');
  }
}

/** Keys needed to evaluate `requested`: the keys themselves and their transitive dependencies. */
function withDependencies(requested: readonly string[], flags: readonly FlagDefinition[], filtersOf: FiltersOf): Set<string> {
  const lookup = buildFlagLookup(flags);
  const needed = new Set<string>();
  const visit = (key: string): void => {
    if (needed.has(key)) return;
    needed.add(key);
    const flag = lookup.byKey.get(key);
    if (!flag) return;
    const filters = filtersOf(flag);
    for (const group of [...filters.groups, ...filters.superGroups]) {
      for (const filter of group.properties ?? []) {
        if (filter.type !== 'flag') continue;
        const target = resolveDependencyTarget(filter, lookup);
        if (target) visit(target.key);
      }
    }
  };
  requested.forEach(visit);
  return needed;
}

/**
 * Evaluates every active, non-deleted flag of `definitions` for `context`. Results keep the
 * definitions' order; inactive and deleted flags are omitted. `errorsWhileComputingFlags` is set
 * when a flag failed or a dependency cycle exists (not for ordinary misses or missing flags).
 */
export function evaluateFlags(
  input: FlagDefinitions | CompiledDefinitions,
  context: EvaluationContext,
  options: EvaluateFlagsOptions = {},
): FlagSetEvaluation {
  const compiled = isCompiled(input) ? input : null;
  const definitions = compiled ? compiled.definitions : (input as FlagDefinitions);
  const state = createEvaluationState(input, context, options.groupTypeMapping);
  const requested = options.flagKeys ? new Set(options.flagKeys) : null;
  const needed = requested ? withDependencies([...requested], definitions.flags, state.filtersOf) : null;
  const candidates = needed ? definitions.flags.filter((flag) => needed.has(flag.key)) : definitions.flags;
  const plan = compiled && !needed ? compiled.plan : planEvaluationOrder(candidates, state.lookup, state.filtersOf);
  const results = new Map<string, FlagEvaluation>();
  let errorsWhileComputingFlags = plan.cyclic.size > 0;

  for (const flag of candidates) {
    if (isEvaluable(flag) && plan.missingDependency.has(flag.key)) {
      results.set(flag.key, toFlagEvaluation(flag, { enabled: false, variant: null, code: 'missing_dependency', conditionIndex: null }, state.filtersOf(flag)));
      state.values.set(flag.key, false);
    }
  }
  for (const flag of plan.order) {
    const result = evaluateFlag(flag, state);
    if (result.failed) errorsWhileComputingFlags = true;
    results.set(flag.key, result);
    state.values.set(flag.key, result.value);
  }

  const flags: Record<string, FlagEvaluation> = {};
  for (const flag of candidates) {
    const result = results.get(flag.key);
    if (result && (!requested || requested.has(flag.key))) flags[flag.key] = result;
  }
  return { flags, errorsWhileComputingFlags };
}
