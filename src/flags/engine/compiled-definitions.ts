/**
 * A definition set prepared for evaluation: every flag read once into a fixed-shape CompiledFlag
 * (normalised filters, each condition's aggregation, rollout and valid variant override, its
 * filters split into direct and cohort ones, cumulative variant boundaries, which optional steps
 * apply), plus the flag lookup, the dependency order and the normalised cohort definitions.
 *
 * Evaluation always runs on this form: a server compiles a project's definitions once and
 * answers many requests with them; evaluateFlags compiles plain definitions per call. Stored
 * definitions are JSON of many shapes, and reading them directly on every request made every
 * property access of the hot loop megamorphic (seen in profiles). Compiling snapshots the
 * definitions: a caller that mutates them afterwards must compile again.
 */
import { normalizeCohortDefinition } from './cohorts.js';
import { buildFlagLookup, isEvaluable, planEvaluationOrder, type EvaluationPlan, type FlagLookup } from './dependencies.js';
import { normalizeFlagFilters, payloadsByKey, type NormalizedFlagFilters } from './flag-filters.js';
import { variantBoundaries } from './hashing.js';
import { compilePropertyMatcher, type PropertyMatcher } from './property-matchers.js';
import { packText, type PackedText } from './sha1.js';
import type { FlagCondition, FlagDefinition, FlagDefinitions, FlagEvaluation, PropertyFilter, PropertyGroup } from './types.js';
import { hasOwn } from './value-coercion.js';

const COMPILED = Symbol('compiled flag definitions');

/**
 * What a condition's non-cohort filter reads (flag-matching.ts matchConditionFilter); Never:
 * event, element, behavioural filters, which a flag engine cannot evaluate.
 */
export const FilterTarget = { Person: 0, Group: 1, Flag: 2, Never: 3 } as const;
export type FilterTarget = (typeof FilterTarget)[keyof typeof FilterTarget];

/** A condition's non-cohort filter, compiled (property-matchers.ts). */
export class CompiledFilter {
  constructor(
    readonly source: PropertyFilter,
    readonly target: FilterTarget,
    /** For person and group filters. */
    readonly match: PropertyMatcher,
    /** A group filter's own group type index, when it has one (else the condition's aggregation). */
    readonly groupTypeIndex: number | null,
  ) {}
}

const NO_MATCH: PropertyMatcher = () => false;

function compileFilter(filter: PropertyFilter): CompiledFilter {
  const type = filter.type;
  const target =
    type === undefined || type === null || type === 'person' || type === 'person_metadata'
      ? FilterTarget.Person
      : type === 'group'
        ? FilterTarget.Group
        : type === 'flag'
          ? FilterTarget.Flag
          : FilterTarget.Never;
  const reads = target === FilterTarget.Person || target === FilterTarget.Group;
  return new CompiledFilter(
    filter,
    target,
    reads ? compilePropertyMatcher(filter) : NO_MATCH,
    typeof filter.group_type_index === 'number' ? filter.group_type_index : null,
  );
}

/** One condition set of a flag, as evaluation reads it. */
export class CompiledCondition {
  constructor(
    readonly source: FlagCondition,
    /** The group type index it aggregates by (its own key when present, else the flag's); null = person. */
    readonly aggregation: number | null,
    /** Non-cohort filters, in stored order. */
    readonly directFilters: readonly PropertyFilter[],
    /** directFilters compiled; null when one is not an object (evaluating the condition fails the flag). */
    readonly compiledFilters: readonly CompiledFilter[] | null,
    /** Cohort filters, checked after every direct filter matched: they are the expensive ones. */
    readonly cohortFilters: readonly PropertyFilter[],
    /** null/absent in the definition means 100. */
    readonly rolloutPercentage: number,
    /** The condition's variant override, when it names a declared variant. */
    readonly variantOverride: string | null,
    /** The override's index among the declared variants (its first), or -1. */
    readonly variantOverrideIndex: number,
    /** `properties` is neither absent nor a list: evaluating the condition fails the flag. */
    readonly malformed: boolean,
  ) {}
}

/** One flag, as evaluation reads it. */
export class CompiledFlag {
  /** `<key>.`, packed: what every rollout and variant hash of this flag starts with. */
  readonly hashPrefix: PackedText;
  /** The stored payloads by variant key or "true" (flag-filters.ts payloadsByKey). */
  readonly payloads: ReadonlyMap<string, unknown>;
  /** Results this flag gave, by outcome (evaluate-flags.ts toFlagEvaluation); frozen, shared. */
  readonly results = new Map<number, FlagEvaluation>();

  constructor(
    readonly definition: FlagDefinition,
    readonly key: string,
    readonly filters: NormalizedFlagFilters,
    readonly conditions: readonly CompiledCondition[],
    readonly variantKeys: readonly string[],
    /** Cumulative upper bounds of the variants, summed left to right in doubles as the reference does. */
    readonly variantBoundaries: readonly number[],
    /** For each variant, the index of the first variant of its key (keys may repeat): the index results are kept by. */
    readonly variantSlots: readonly number[],
    /** Early-access enrollment may decide the flag (feature_enrollment or super conditions). */
    readonly hasEnrollment: boolean,
    /** The first super condition (legacy enrollment), read as a person condition. */
    readonly enrollmentCondition: CompiledCondition | null,
    /** A holdout (new style, or legacy holdout groups) may decide the flag. */
    readonly hasHoldout: boolean,
    readonly deviceBucketing: boolean,
    readonly experienceContinuity: boolean,
    readonly evaluable: boolean,
    /** Shared by every result of this flag; never mutated. */
    readonly metadata: FlagEvaluation['metadata'],
  ) {
    this.hashPrefix = packText(`${key}.`);
    this.payloads = payloadsByKey(filters);
  }
}

export interface CompiledDefinitions {
  readonly [COMPILED]: true;
  readonly definitions: FlagDefinitions;
  readonly lookup: FlagLookup;
  /** Every flag of `definitions.flags`, in the same order. */
  readonly flags: readonly CompiledFlag[];
  readonly byDefinition: ReadonlyMap<FlagDefinition, CompiledFlag>;
  /** Evaluation order of the whole set (used when no flag keys are requested). */
  readonly plan: EvaluationPlan;
  /** The plan's order, compiled. */
  readonly order: readonly CompiledFlag[];
  /** Evaluable flags that report missing_dependency instead of being evaluated. */
  readonly missingDependency: readonly CompiledFlag[];
  /**
   * The order is exactly the evaluable flags in definition order, each key once, none missing or
   * cyclic: the results are then simply the order's results.
   */
  readonly plainOrder: boolean;
  /** Some condition filters on another flag's value. */
  readonly hasFlagDependencies: boolean;
  readonly cohortDefinitions: ReadonlyMap<string, PropertyGroup | null>;
  readonly staticCohortIds: ReadonlySet<string>;
  /**
   * Cohort ids whose dependency graph is known complete and acyclic (cohorts.ts
   * assertCohortGraphValid): that depends on the definitions alone, so every evaluation of this
   * set shares what earlier ones found.
   */
  readonly validatedCohorts: Set<string>;
}

/** The aggregation of a condition: its own index when the key is present (explicit null = person), else the flag's. */
function conditionAggregation(condition: FlagCondition, filters: NormalizedFlagFilters): number | null {
  if (hasOwn(condition, 'aggregation_group_type_index')) {
    const index = condition.aggregation_group_type_index;
    return typeof index === 'number' ? index : null;
  }
  return filters.aggregationGroupTypeIndex;
}

/** A filter re-made with every field in one order, so all filters share one hidden class. */
function uniformFilter(filter: PropertyFilter): PropertyFilter {
  if (typeof filter !== 'object' || filter === null) return filter;
  const uniform: PropertyFilter = {
    key: filter.key,
    value: filter.value,
    operator: filter.operator,
    type: filter.type,
    group_type_index: filter.group_type_index,
    negation: filter.negation,
  };
  if (filter.dependency_chain !== undefined) uniform.dependency_chain = filter.dependency_chain;
  return uniform;
}

function compileCondition(condition: FlagCondition, filters: NormalizedFlagFilters): CompiledCondition {
  const direct: PropertyFilter[] = [];
  const cohorts: PropertyFilter[] = [];
  const properties: unknown = condition.properties ?? [];
  for (const filter of Array.isArray(properties) ? (properties as PropertyFilter[]) : []) {
    if (filter?.type === 'cohort') cohorts.push(uniformFilter(filter));
    else direct.push(uniformFilter(filter));
  }
  const override = condition.variant;
  const overrideIndex = typeof override === 'string' ? filters.variants.findIndex((variant) => variant.key === override) : -1;
  return new CompiledCondition(
    condition,
    conditionAggregation(condition, filters),
    direct,
    direct.every((filter) => typeof filter === 'object' && filter !== null) ? direct.map(compileFilter) : null,
    cohorts,
    typeof condition.rollout_percentage === 'number' ? condition.rollout_percentage : 100,
    overrideIndex === -1 ? null : (override as string),
    overrideIndex,
    !Array.isArray(properties),
  );
}

function compileFlag(flag: FlagDefinition, filters: NormalizedFlagFilters = normalizeFlagFilters(flag)): CompiledFlag {
  return new CompiledFlag(
    flag,
    flag.key,
    filters,
    filters.groups.map((condition) => compileCondition(condition, filters)),
    filters.variants.map((variant) => variant.key),
    variantBoundaries(filters.variants),
    filters.variants.map((variant) => filters.variants.findIndex((other) => other.key === variant.key)),
    filters.featureEnrollment || filters.superGroups.length > 0,
    filters.superGroups.length > 0 ? compileCondition(filters.superGroups[0]!, filters) : null,
    filters.holdout !== null || filters.holdoutGroups.length > 0,
    flag.bucketing_identifier === 'device_id',
    flag.ensure_experience_continuity === true,
    isEvaluable(flag),
    Object.freeze({ id: typeof flag.id === 'number' ? flag.id : 0, version: typeof flag.version === 'number' ? flag.version : 0 }),
  );
}

export function compileDefinitions(definitions: FlagDefinitions): CompiledDefinitions {
  const lookup = buildFlagLookup(definitions.flags);
  const byDefinition = new Map<FlagDefinition, CompiledFlag>();
  const flags = definitions.flags.map((flag) => {
    const compiled = compileFlag(flag);
    byDefinition.set(flag, compiled);
    return compiled;
  });
  const cohortDefinitions = new Map<string, PropertyGroup | null>();
  for (const [id, definition] of Object.entries(definitions.cohorts ?? {}))
    cohortDefinitions.set(id, normalizeCohortDefinition(definition));
  const plan = planEvaluationOrder(definitions.flags, lookup, (flag) => byDefinition.get(flag)!.filters);
  const order = plan.order.map((flag) => byDefinition.get(flag)!);
  const evaluable = flags.filter((flag) => flag.evaluable);
  const keys = new Set(flags.map((flag) => flag.key));
  return {
    [COMPILED]: true,
    definitions,
    lookup,
    flags,
    byDefinition,
    plan,
    order,
    missingDependency: flags.filter((flag) => flag.evaluable && plan.missingDependency.has(flag.key)),
    plainOrder:
      keys.size === flags.length &&
      plan.cyclic.size === 0 &&
      order.length === evaluable.length &&
      order.every((flag, i) => flag === evaluable[i]),
    hasFlagDependencies: flags.some((flag) =>
      [...flag.conditions, ...(flag.enrollmentCondition ? [flag.enrollmentCondition] : [])].some((condition) =>
        condition.directFilters.some((filter) => filter?.type === 'flag'),
      ),
    ),
    cohortDefinitions,
    staticCohortIds: new Set([...(definitions.static_cohort_ids ?? [])].map(String)),
    validatedCohorts: new Set(),
  };
}

export function isCompiled(value: FlagDefinitions | CompiledDefinitions): value is CompiledDefinitions {
  return (value as CompiledDefinitions)[COMPILED] === true;
}
