/**
 * Cohort membership without I/O. Dynamic cohorts are evaluated from their property definition
 * against the person's properties; static cohort membership is supplied by the caller (it lives
 * in a table the engine must not read). Cohorts may reference other cohorts.
 */
import { matchProperty, type MatchEnvironment } from './property-matching.js';
import type { FlagErrorCode, PropertyFilter, PropertyGroup, PropertyMap } from './types.js';

/** Raised for configuration the reference treats as an evaluation failure of the flag. */
export class FlagEvaluationError extends Error {
  constructor(
    readonly code: FlagErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FlagEvaluationError';
  }
}

/** Cohort data for one evaluation: definitions, which ids are static, and the person's memberships. */
export interface CohortResolver {
  /** Dynamic cohort id → definition (null = matches nobody). */
  readonly definitions: ReadonlyMap<string, PropertyGroup | null>;
  readonly staticIds: ReadonlySet<string>;
  /** Static cohorts this person is a member of. */
  readonly staticMemberships: ReadonlySet<string>;
  /** Memoised membership per cohort id (per person, so per evaluation). */
  readonly memberships: Map<string, boolean>;
  /** Cohort ids whose dependency graph is already known to be complete and acyclic. */
  readonly validated: Set<string>;
}

type CohortDefinitionInput = PropertyGroup | { properties?: PropertyGroup | null } | null | undefined;

/** Accepts the feed shape `{type, values}` and the stored shape `{properties: {type, values}}`. */
export function normalizeCohortDefinition(definition: CohortDefinitionInput): PropertyGroup | null {
  if (!definition || typeof definition !== 'object') return null;
  if ('values' in definition && Array.isArray(definition.values)) return definition as PropertyGroup;
  if ('properties' in definition) return normalizeCohortDefinition(definition.properties);
  return null;
}

export function createCohortResolver(
  definitions: Record<string, CohortDefinitionInput> | null | undefined,
  staticIds: Iterable<number | string> | null | undefined,
  staticMemberships: Iterable<number | string> | null | undefined,
): CohortResolver {
  const normalized = new Map<string, PropertyGroup | null>();
  for (const [id, definition] of Object.entries(definitions ?? {})) normalized.set(id, normalizeCohortDefinition(definition));
  return {
    definitions: normalized,
    staticIds: new Set([...(staticIds ?? [])].map(String)),
    staticMemberships: new Set([...(staticMemberships ?? [])].map(String)),
    memberships: new Map(),
    validated: new Set(),
  };
}

function isPropertyGroup(value: PropertyGroup | PropertyFilter): value is PropertyGroup {
  return Array.isArray((value as PropertyGroup).values) && typeof (value as PropertyFilter).key !== 'string';
}

/** The cohort id a cohort filter points at (`{"key":"id","type":"cohort","value":42}`). */
export function cohortIdOf(filter: PropertyFilter): string {
  return String(filter.value);
}

function referencedCohorts(group: PropertyGroup | null, into: string[] = []): string[] {
  for (const value of group?.values ?? []) {
    if (isPropertyGroup(value)) referencedCohorts(value, into);
    else if (value.type === 'cohort') into.push(cohortIdOf(value));
  }
  return into;
}

/**
 * Checks that a cohort and everything it references exist and form no cycle, before any
 * short-circuiting evaluation could hide a broken reference (the reference builds the whole
 * dependency graph first).
 */
export function assertCohortGraphValid(cohortId: string, resolver: CohortResolver, path: string[] = []): void {
  if (resolver.validated.has(cohortId)) return;
  if (path.includes(cohortId)) {
    throw new FlagEvaluationError('dependency_cycle', `Cyclic cohort dependency: ${[...path, cohortId].join(' → ')}`);
  }
  if (resolver.staticIds.has(cohortId)) return;
  if (!resolver.definitions.has(cohortId)) {
    throw new FlagEvaluationError('dependency_not_found', `Cohort ${cohortId} not found`);
  }
  for (const child of referencedCohorts(resolver.definitions.get(cohortId) ?? null)) {
    assertCohortGraphValid(child, resolver, [...path, cohortId]);
  }
  resolver.validated.add(cohortId);
}

/** Membership of one cohort; throws FlagEvaluationError for missing cohorts and cycles. */
export function isCohortMember(cohortId: string, personProperties: PropertyMap, env: MatchEnvironment, resolver: CohortResolver): boolean {
  const known = resolver.memberships.get(cohortId);
  if (known !== undefined) return known;
  assertCohortGraphValid(cohortId, resolver);
  let member: boolean;
  if (resolver.staticIds.has(cohortId)) {
    member = resolver.staticMemberships.has(cohortId);
  } else {
    const definition = resolver.definitions.get(cohortId) ?? null;
    // An unparsable or empty definition matches nobody.
    member = definition !== null && matchPropertyGroup(definition, personProperties, env, resolver);
  }
  resolver.memberships.set(cohortId, member);
  return member;
}

/**
 * Flag-level (or nested) cohort filter: missing operator or `in` ⇒ member, `not_in` ⇒ not a
 * member; any other operator never matches on the server.
 */
export function matchCohortFilter(
  filter: PropertyFilter,
  personProperties: PropertyMap,
  env: MatchEnvironment,
  resolver: CohortResolver,
): boolean {
  const operator = filter.operator ?? 'in';
  if (operator !== 'in' && operator !== 'not_in') return false;
  const member = isCohortMember(cohortIdOf(filter), personProperties, env, resolver);
  return operator === 'in' ? member : !member;
}

/**
 * AND/OR groups of filters, nested to any depth. Person filters honour `negation`. Cohort
 * references honour it too, except directly inside an OR group where the reference ignores it
 * (a quirk of the reference evaluator). Behavioural and other filter types never match.
 * An empty group matches (an empty AND is vacuously true).
 */
export function matchPropertyGroup(
  group: PropertyGroup,
  personProperties: PropertyMap,
  env: MatchEnvironment,
  resolver: CohortResolver,
): boolean {
  const values = group.values ?? [];
  if (values.length === 0) return true;
  const isOr = group.type === 'OR';
  // A loop over a top-level helper, not a closure made per call: this runs on every request with
  // a cohort flag, and under tsx each named closure also costs a defineProperty (seen in profiles).
  for (const value of values) {
    const matched = matchGroupValue(value, isOr, personProperties, env, resolver);
    if (isOr ? matched : !matched) return isOr;
  }
  return !isOr;
}

function matchGroupValue(
  value: PropertyGroup | PropertyFilter,
  isOr: boolean,
  personProperties: PropertyMap,
  env: MatchEnvironment,
  resolver: CohortResolver,
): boolean {
  if (isPropertyGroup(value)) return matchPropertyGroup(value, personProperties, env, resolver);
  if (value.type === 'cohort') {
    const matched = matchCohortFilter(value, personProperties, env, resolver);
    return value.negation && !isOr ? !matched : matched;
  }
  if (value.type === undefined || value.type === null || value.type === 'person' || value.type === 'person_metadata') {
    const matched = matchProperty(value, personProperties, env);
    return value.negation ? !matched : matched;
  }
  return false;
}
