/**
 * Flag-to-flag dependencies (`type: "flag"`, operator `flag_evaluates_to`).
 *
 * Like the reference server, dependencies are resolved for the whole set up front: flags are
 * ordered so every dependency is evaluated before its dependents; a flag whose dependency is
 * missing (absent or deleted), or that sits in or behind a cycle, is not evaluated and
 * reports `missing_dependency`. Cycles also count as "errors while computing flags".
 */
import { conditionProperties, normalizeFlagFilters, type NormalizedFlagFilters } from './flag-filters.js';
import type { FlagDefinition, PropertyFilter } from './types.js';

export interface FlagLookup {
  byKey: ReadonlyMap<string, FlagDefinition>;
  byId: ReadonlyMap<string, FlagDefinition>;
}

/** Index of the non-deleted flags (inactive ones included: dependents read them as false). */
export function buildFlagLookup(flags: readonly FlagDefinition[]): FlagLookup {
  const byKey = new Map<string, FlagDefinition>();
  const byId = new Map<string, FlagDefinition>();
  for (const flag of flags) {
    if (flag.deleted) continue;
    byKey.set(flag.key, flag);
    if (flag.id !== undefined && flag.id !== null) byId.set(String(flag.id), flag);
  }
  return { byKey, byId };
}

export function isEvaluable(flag: FlagDefinition): boolean {
  return flag.active !== false && !flag.deleted;
}

/**
 * The flag a dependency filter points at. The local-evaluation feed names the target by key;
 * stored definitions name it by id, so a numeric key falls back to an id lookup.
 */
export function resolveDependencyTarget(filter: PropertyFilter, lookup: FlagLookup): FlagDefinition | null {
  return lookup.byKey.get(filter.key) ?? lookup.byId.get(filter.key) ?? null;
}

/** Reads a flag's normalised filters; compiled definitions pass their precomputed ones. */
export type FiltersOf = (flag: FlagDefinition) => NormalizedFlagFilters;

/** Every flag filter used by a flag's conditions and super conditions. */
export function flagDependencyFilters(flag: FlagDefinition, filtersOf: FiltersOf = normalizeFlagFilters): PropertyFilter[] {
  const filters = filtersOf(flag);
  return [...filters.groups, ...filters.superGroups].flatMap((condition) =>
    conditionProperties(condition).filter((property) => property.type === 'flag'),
  );
}

export interface EvaluationPlan {
  /** Evaluable flags, dependencies before dependents. */
  order: FlagDefinition[];
  /** Keys of flags that must report missing_dependency instead of being evaluated. */
  missingDependency: Set<string>;
  /** Keys of flags that are part of a dependency cycle. */
  cyclic: Set<string>;
}

/** Orders the evaluable flags and finds those with missing or cyclic dependencies. */
export function planEvaluationOrder(
  flags: readonly FlagDefinition[],
  lookup: FlagLookup,
  filtersOf: FiltersOf = normalizeFlagFilters,
): EvaluationPlan {
  const evaluable = flags.filter(isEvaluable);
  const evaluableKeys = new Set(evaluable.map((flag) => flag.key));
  const missingDependency = new Set<string>();
  const edges = new Map<string, string[]>();

  for (const flag of evaluable) {
    const targets: string[] = [];
    for (const filter of flagDependencyFilters(flag, filtersOf)) {
      const target = resolveDependencyTarget(filter, lookup);
      if (!target) missingDependency.add(flag.key);
      // Inactive targets are constant false, so they impose no ordering.
      else if (evaluableKeys.has(target.key)) targets.push(target.key);
    }
    edges.set(flag.key, targets);
  }

  const cyclic = findCyclicFlags(edges);
  for (const key of cyclic) missingDependency.add(key);

  // Anything depending (transitively) on an unevaluable flag cannot be evaluated either.
  let changed = true;
  while (changed) {
    changed = false;
    for (const [key, targets] of edges) {
      if (!missingDependency.has(key) && targets.some((target) => missingDependency.has(target))) {
        missingDependency.add(key);
        changed = true;
      }
    }
  }

  const order: FlagDefinition[] = [];
  const placed = new Set<string>();
  const place = (key: string): void => {
    if (placed.has(key) || missingDependency.has(key)) return;
    placed.add(key);
    for (const target of edges.get(key) ?? []) place(target);
    order.push(lookup.byKey.get(key)!);
  };
  for (const flag of evaluable) place(flag.key);
  return { order, missingDependency, cyclic };
}

/** Keys in a cycle (strongly connected component larger than one, or a self-loop): Tarjan. */
export function findCyclicFlags(edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const cyclic = new Set<string>();
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;

  const connect = (node: string): void => {
    index.set(node, counter);
    lowLink.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) component.forEach((key) => cyclic.add(key));
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) connect(node);
  return cyclic;
}

/**
 * flag_evaluates_to: `true` ⇒ target is anything but false (any variant counts); `false` ⇒
 * target is false; a string ⇒ target is exactly that variant (case-sensitive); else no match.
 */
export function matchesFlagValue(expected: unknown, actual: boolean | string): boolean {
  if (expected === true) return actual !== false;
  if (expected === false) return actual === false;
  if (typeof expected === 'string') return actual === expected;
  return false;
}
