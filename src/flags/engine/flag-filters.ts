/**
 * Reads a stored/feed `filters` object into a normalised shape, applying PostHog's legacy
 * rule: filters without `groups` become one condition made of `filters.properties` and the
 * model's top-level `rollout_percentage` (so a flag with no filters at all is on for everyone).
 */
import type { FlagCondition, FlagDefinition, FlagFilters, FlagHoldout, FlagVariant, PropertyFilter } from './types.js';
import { isJsonObject } from '../../lib/json-object.js';

export interface NormalizedFlagFilters {
  groups: FlagCondition[];
  variants: FlagVariant[];
  payloads: Record<string, unknown>;
  /** null = person flag. */
  aggregationGroupTypeIndex: number | null;
  superGroups: FlagCondition[];
  featureEnrollment: boolean;
  holdout: FlagHoldout | null;
  holdoutGroups: FlagCondition[];
  earlyExit: boolean;
  /** The stored filters are not of the shape evaluation reads (filtersShapeProblem): the flag fails alone. */
  malformed: boolean;
}

function asArray<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

const CONDITION_LISTS = ['groups', 'super_groups', 'holdout_groups'] as const;

/**
 * What makes stored filters unreadable as conditions, or null when they are readable: a
 * condition list (`groups`, `super_groups`, `holdout_groups`) that is not a list of objects, a
 * condition whose `properties` is not a list of objects, or whose `rollout_percentage` is not a
 * number. Absent and null mean "none"/"default" everywhere. PostHog's Rust flags service fails
 * to read such filters and skips that flag alone; the API refuses them (validation.ts).
 */
export function filtersShapeProblem(filters: unknown): string | null {
  if (!isJsonObject(filters)) return null; // no filters: the legacy rule applies
  for (const name of CONDITION_LISTS) {
    const conditions = filters[name];
    if (conditions === undefined || conditions === null) continue;
    if (!Array.isArray(conditions)) return `${name} must be a list`;
    for (const condition of conditions) {
      if (!isJsonObject(condition)) return `each of ${name} must be an object`;
      const problem = conditionShapeProblem(condition);
      if (problem) return problem;
    }
  }
  if (!('groups' in filters) && filters.properties !== undefined && filters.properties !== null && !Array.isArray(filters.properties)) {
    return 'properties must be a list';
  }
  return null;
}

function conditionShapeProblem(condition: Record<string, unknown>): string | null {
  const properties = condition.properties;
  if (properties !== undefined && properties !== null) {
    if (!Array.isArray(properties)) return 'properties must be a list';
    if (!properties.every(isJsonObject)) return 'each property must be an object';
  }
  const rollout = condition.rollout_percentage;
  if (rollout !== undefined && rollout !== null && (typeof rollout !== 'number' || !Number.isFinite(rollout))) {
    return 'rollout_percentage must be a number or null';
  }
  return null;
}

/** A condition's filters when they are a list, else none (malformed filters fail the flag anyway). */
export function conditionProperties(condition: FlagCondition): PropertyFilter[] {
  const properties: unknown = condition.properties;
  return Array.isArray(properties) ? ((properties as unknown[]).filter(isJsonObject) as unknown as PropertyFilter[]) : [];
}

/** Redone per call for plain definitions, which callers may mutate; compiled ones keep a snapshot. */
export function normalizeFlagFilters(flag: FlagDefinition): NormalizedFlagFilters {
  const raw: FlagFilters = isJsonObject(flag.filters) ? (flag.filters as FlagFilters) : {};
  const groups = Array.isArray(raw.groups)
    ? raw.groups.filter(isJsonObject)
    : [{ properties: asArray(raw.properties), rollout_percentage: flag.rollout_percentage ?? null }];
  const multivariate = isJsonObject(raw.multivariate) ? raw.multivariate : null;
  return {
    groups,
    variants: asArray<FlagVariant>(multivariate?.variants).filter((variant) => isJsonObject(variant) && typeof variant.key === 'string'),
    payloads: isJsonObject(raw.payloads) ? raw.payloads : {},
    aggregationGroupTypeIndex: typeof raw.aggregation_group_type_index === 'number' ? raw.aggregation_group_type_index : null,
    superGroups: asArray<FlagCondition>(raw.super_groups).filter(isJsonObject),
    featureEnrollment: raw.feature_enrollment === true,
    holdout: isJsonObject(raw.holdout) && raw.holdout.id !== undefined && raw.holdout.id !== null ? raw.holdout : null,
    holdoutGroups: asArray<FlagCondition>(raw.holdout_groups).filter(isJsonObject),
    earlyExit: raw.early_exit === true,
    malformed: filtersShapeProblem(flag.filters) !== null,
  };
}

/**
 * The stored payload for a variant key or "true", verbatim; null when none is stored. Own keys
 * only: a variant named `constructor` has no payload unless one is stored for it.
 */
export function payloadFor(filters: NormalizedFlagFilters, payloadKey: string): unknown {
  if (!Object.hasOwn(filters.payloads, payloadKey)) return null;
  const payload = filters.payloads[payloadKey];
  return payload === undefined ? null : payload;
}

/**
 * Every stored payload by key, as payloadFor reads them: compiled flags look payloads up here (a
 * map read, where each flag's own payloads object made the lookup megamorphic).
 */
export function payloadsByKey(filters: NormalizedFlagFilters): ReadonlyMap<string, unknown> {
  return new Map(Object.keys(filters.payloads).map((key) => [key, payloadFor(filters, key)]));
}
