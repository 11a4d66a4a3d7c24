/**
 * Entry points: evaluate one flag, or a whole definition set (the local-evaluation feed shape)
 * against one request context. Pure: no I/O, and no state survives a call except a memo of
 * compiled regexes; the clock is injectable. Definitions are evaluated in compiled form
 * (compiled-definitions.ts); plain ones are compiled per call.
 */
import { FlagEvaluationError } from './cohorts.js';
import { compileDefinitions, isCompiled, type CompiledDefinitions, type CompiledFlag } from './compiled-definitions.js';
import { planEvaluationOrder, resolveDependencyTarget } from './dependencies.js';
import { createEvaluationState, type EvaluationState } from './evaluation-state.js';
import { conditionsResult } from './condition-results.js';
import { checkEnrollment, checkHoldout, type FlagOutcome } from './flag-matching.js';
import { toFlagEvaluation } from './flag-results.js';
import { makeReason } from './reasons.js';

export { toFlagEvaluation };
import type { EvaluationContext, FlagDefinition, FlagDefinitions, FlagErrorCode, FlagEvaluation, FlagSetEvaluation } from './types.js';

export interface EvaluateFlagsOptions {
  /** Evaluate only these keys (their dependencies are still evaluated, but not returned). */
  flagKeys?: readonly string[] | null;
  /** Group type index → name, replacing the definitions' own `group_type_mapping`. */
  groupTypeMapping?: Record<string, string> | null;
}

/** A flag that could not be evaluated: false, marked failed, with an error reason code. */
export function failedFlagEvaluation(flag: Pick<FlagDefinition, 'key' | 'id' | 'version'>, code: FlagErrorCode): FlagEvaluation {
  return {
    key: flag.key,
    enabled: false,
    variant: null,
    value: false,
    payload: null,
    reason: makeReason(code, null),
    failed: true,
    metadata: { id: typeof flag.id === 'number' ? flag.id : 0, version: typeof flag.version === 'number' ? flag.version : 0 },
  };
}

/** Evaluates one flag whose dependencies (if any) already have values in `state`. */
export function evaluateFlag(flag: CompiledFlag, state: EvaluationState): FlagEvaluation {
  // Filters of a shape no condition can be read from fail this flag only (PostHog's flags service skips it).
  if (flag.filters.malformed) return failedFlagEvaluation(flag.definition, 'internal_error');
  try {
    // flag-matching.ts matchFlag's steps; the conditions straight to the result (condition-results.ts).
    const decided = (flag.hasEnrollment ? checkEnrollment(flag, state) : null) ?? (flag.hasHoldout ? checkHoldout(flag, state) : null);
    return decided ? toFlagEvaluation(flag, decided) : conditionsResult(flag, state);
  } catch (error) {
    // Broken configuration (missing or cyclic cohorts) fails only this flag.
    return failedFlagEvaluation(flag.definition, error instanceof FlagEvaluationError ? error.code : 'internal_error');
  }
}

class EvaluatedFlagSet implements FlagSetEvaluation {
  #byKey: Record<string, FlagEvaluation> | undefined;

  constructor(
    readonly results: readonly FlagEvaluation[],
    readonly errorsWhileComputingFlags: boolean,
  ) {}

  get flags(): Readonly<Record<string, FlagEvaluation>> {
    if (this.#byKey === undefined) {
      const byKey: Record<string, FlagEvaluation> = {};
      for (const result of this.results) byKey[result.key] = result;
      this.#byKey = byKey;
    }
    return this.#byKey;
  }
}

/** A flag set evaluation from results in definition order (one per key). */
export function flagSetEvaluation(results: readonly FlagEvaluation[], errorsWhileComputingFlags: boolean): FlagSetEvaluation {
  return new EvaluatedFlagSet(results, errorsWhileComputingFlags);
}

const MISSING_DEPENDENCY: FlagOutcome = { enabled: false, variant: null, code: 'missing_dependency', conditionIndex: null };

/** Keys needed to evaluate `requested`: the keys themselves and their transitive dependencies. */
function withDependencies(requested: readonly string[], compiled: CompiledDefinitions): Set<string> {
  const needed = new Set<string>();
  const visit = (key: string): void => {
    if (needed.has(key)) return;
    needed.add(key);
    const flag = compiled.lookup.byKey.get(key);
    if (!flag) return;
    const filters = compiled.byDefinition.get(flag)!.filters;
    for (const group of [...filters.groups, ...filters.superGroups]) {
      for (const filter of group.properties ?? []) {
        if (filter.type !== 'flag') continue;
        const target = resolveDependencyTarget(filter, compiled.lookup);
        if (target) visit(target.key);
      }
    }
  };
  requested.forEach(visit);
  return needed;
}

/** What one call evaluates: the whole set's precomputed plan, or one made for the requested keys. */
interface CallPlan {
  candidates: readonly CompiledFlag[];
  order: readonly CompiledFlag[];
  missingDependency: readonly CompiledFlag[];
  cyclic: boolean;
}

function planFor(compiled: CompiledDefinitions, requested: ReadonlySet<string> | null): CallPlan {
  if (!requested) {
    return {
      candidates: compiled.flags,
      order: compiled.order,
      missingDependency: compiled.missingDependency,
      cyclic: compiled.plan.cyclic.size > 0,
    };
  }
  const needed = withDependencies([...requested], compiled);
  const candidates = compiled.flags.filter((flag) => needed.has(flag.key));
  const plan = planEvaluationOrder(
    candidates.map((flag) => flag.definition),
    compiled.lookup,
    (flag) => compiled.byDefinition.get(flag)!.filters,
  );
  return {
    candidates,
    order: plan.order.map((flag) => compiled.byDefinition.get(flag)!),
    missingDependency: candidates.filter((flag) => flag.evaluable && plan.missingDependency.has(flag.key)),
    cyclic: plan.cyclic.size > 0,
  };
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
  const compiled = isCompiled(input) ? input : compileDefinitions(input);
  const state = createEvaluationState(compiled, context, options.groupTypeMapping);
  if (!options.flagKeys && compiled.plainOrder) return evaluateInPlainOrder(compiled, state);
  const requested = options.flagKeys ? new Set(options.flagKeys) : null;
  const plan = planFor(compiled, requested);
  const results = new Map<string, FlagEvaluation>();
  let errorsWhileComputingFlags = plan.cyclic;

  for (const flag of plan.missingDependency) {
    results.set(flag.key, toFlagEvaluation(flag, MISSING_DEPENDENCY));
    state.values.set(flag.key, false);
  }
  for (const flag of plan.order) {
    const result = evaluateFlag(flag, state);
    if (result.failed) errorsWhileComputingFlags = true;
    results.set(flag.key, result);
    state.values.set(flag.key, result.value);
  }

  // Definition order, one result per key (a duplicated key keeps its first place, last result).
  const ordered: FlagEvaluation[] = [];
  const placed = new Set<string>();
  for (const flag of plan.candidates) {
    const result = results.get(flag.key);
    if (!result || placed.has(flag.key) || (requested && !requested.has(flag.key))) continue;
    placed.add(flag.key);
    ordered.push(result);
  }
  return flagSetEvaluation(ordered, errorsWhileComputingFlags);
}

/**
 * The common case, a whole set whose evaluation order is its definition order with nothing
 * missing (see CompiledDefinitions.plainOrder): no bookkeeping beyond the results themselves.
 */
function evaluateInPlainOrder(compiled: CompiledDefinitions, state: EvaluationState): FlagSetEvaluation {
  const order = compiled.order;
  const results = new Array<FlagEvaluation>(order.length);
  let errorsWhileComputingFlags = false;
  for (let i = 0; i < order.length; i++) {
    const result = evaluateFlag(order[i]!, state);
    if (result.failed) errorsWhileComputingFlags = true;
    // Only flag dependencies read earlier values.
    if (compiled.hasFlagDependencies) state.values.set(result.key, result.value);
    results[i] = result;
  }
  return flagSetEvaluation(results, errorsWhileComputingFlags);
}
