/**
 * Reads a stored/feed `filters` object into a normalised shape, applying PostHog's legacy
 * rule: filters without `groups` become one condition made of `filters.properties` and the
 * model's top-level `rollout_percentage` (so a flag with no filters at all is on for everyone).
 */
import type { FlagCondition, FlagDefinition, FlagFilters, FlagHoldout, FlagVariant } from './types.js';
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
}

function asArray<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
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
