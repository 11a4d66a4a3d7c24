/**
 * A definition set prepared once for many evaluations: normalised filters per flag, the flag
 * lookup, the dependency order of the whole set and the normalised cohort definitions. A server
 * that answers many requests against the same definitions (until they change) compiles them once
 * and passes the result to evaluateFlags instead of redoing this work per request. Compiling
 * snapshots the definitions: a caller that mutates them afterwards must compile again.
 */
import { normalizeCohortDefinition } from './cohorts.js';
import { buildFlagLookup, planEvaluationOrder, type EvaluationPlan, type FlagLookup } from './dependencies.js';
import { normalizeFlagFilters, type NormalizedFlagFilters } from './flag-filters.js';
import type { FlagDefinition, FlagDefinitions, PropertyGroup } from './types.js';

const COMPILED = Symbol('compiled flag definitions');

export interface CompiledDefinitions {
  readonly [COMPILED]: true;
  readonly definitions: FlagDefinitions;
  readonly lookup: FlagLookup;
  /** Filters of each flag of `definitions.flags`, keyed by the flag object. */
  readonly filters: ReadonlyMap<FlagDefinition, NormalizedFlagFilters>;
  /** Evaluation order of the whole set (used when no flag keys are requested). */
  readonly plan: EvaluationPlan;
  readonly cohortDefinitions: ReadonlyMap<string, PropertyGroup | null>;
  readonly staticCohortIds: ReadonlySet<string>;
}

export function compileDefinitions(definitions: FlagDefinitions): CompiledDefinitions {
  const lookup = buildFlagLookup(definitions.flags);
  const filters = new Map<FlagDefinition, NormalizedFlagFilters>();
  for (const flag of definitions.flags) filters.set(flag, normalizeFlagFilters(flag));
  const cohortDefinitions = new Map<string, PropertyGroup | null>();
  for (const [id, definition] of Object.entries(definitions.cohorts ?? {})) cohortDefinitions.set(id, normalizeCohortDefinition(definition));
  return {
    [COMPILED]: true,
    definitions,
    lookup,
    filters,
    plan: planEvaluationOrder(definitions.flags, lookup, (flag) => filters.get(flag)!),
    cohortDefinitions,
    staticCohortIds: new Set([...(definitions.static_cohort_ids ?? [])].map(String)),
  };
}

export function isCompiled(value: FlagDefinitions | CompiledDefinitions): value is CompiledDefinitions {
  return (value as CompiledDefinitions)[COMPILED] === true;
}
