/**
 * The per-request state shared by every flag of one evaluation: normalised identifiers and
 * property maps, group type names, cohort data, the clock/timezone, and the values of flags
 * already evaluated (read by flag dependencies).
 */
import { createCohortResolver, type CohortResolver } from './cohorts.js';
import { isCompiled, type CompiledDefinitions } from './compiled-definitions.js';
import { isValidTimezone } from './dates.js';
import { buildFlagLookup, type FiltersOf, type FlagLookup } from './dependencies.js';
import { normalizeFlagFilters } from './flag-filters.js';
import { identifierToString, truncateIdentifier } from './hashing.js';
import type { MatchEnvironment } from './property-matching.js';
import type { EvaluationContext, FlagDefinitions, PropertyMap } from './types.js';

export interface EvaluationState {
  /** Truncated to 200 scalar values; numbers become decimal strings. */
  readonly distinctId: string;
  readonly personProperties: PropertyMap;
  /** Group type name → usable group key (strings and numbers only, never ""). */
  readonly groupKeys: ReadonlyMap<string, string>;
  /** Group type name → properties, including `$group_key`. */
  readonly groupProperties: ReadonlyMap<string, PropertyMap>;
  /** Group type index → group type name. */
  readonly groupTypeNames: ReadonlyMap<number, string>;
  readonly anonDistinctId: string | null;
  readonly hashKeyOverrides: Readonly<Record<string, string>>;
  readonly deviceId: string | null;
  readonly env: MatchEnvironment;
  readonly cohorts: CohortResolver;
  readonly lookup: FlagLookup;
  /** Normalised filters of a flag (precomputed when the definitions were compiled). */
  readonly filtersOf: FiltersOf;
  /** Values of flags evaluated so far, for flag_evaluates_to. */
  readonly values: Map<string, boolean | string>;
}

function resolveNow(now: EvaluationContext['now']): Date {
  if (typeof now === 'function') return now();
  return now instanceof Date ? now : new Date();
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * `groupTypeMapping`, when given, replaces the definitions' own mapping: a server keeps compiled
 * definitions per project and reads the mapping, which changes independently, per request.
 */
export function createEvaluationState(
  input: FlagDefinitions | CompiledDefinitions,
  context: EvaluationContext,
  groupTypeMapping?: Record<string, string> | null,
): EvaluationState {
  const compiled = isCompiled(input) ? input : null;
  const definitions = compiled ? compiled.definitions : (input as FlagDefinitions);
  const personProperties: PropertyMap = { ...(context.person_properties ?? {}) };

  const groupKeys = new Map<string, string>();
  const groupProperties = new Map<string, PropertyMap>();
  for (const [typeName, rawKey] of Object.entries(context.groups ?? {})) {
    const key = identifierToString(rawKey);
    // Keys that are not strings/numbers, or empty, are unusable: conditions on them are skipped.
    if (key === null || key === '') continue;
    groupKeys.set(typeName, truncateIdentifier(key));
    groupProperties.set(typeName, { ...(context.group_properties?.[typeName] ?? {}), $group_key: key });
  }
  for (const [typeName, properties] of Object.entries(context.group_properties ?? {})) {
    if (!groupProperties.has(typeName)) groupProperties.set(typeName, { ...(properties ?? {}) });
  }

  const groupTypeNames = new Map<number, string>();
  for (const [index, name] of Object.entries((groupTypeMapping === undefined ? definitions.group_type_mapping : groupTypeMapping) ?? {})) {
    if (typeof name === 'string' && /^\d+$/.test(index)) groupTypeNames.set(Number(index), name);
  }

  const timezone = context.timezone && isValidTimezone(context.timezone) ? context.timezone : 'UTC';
  const rawDeviceId = nonEmptyString(context.device_id) ?? nonEmptyString(personProperties.$device_id);
  const deviceId = rawDeviceId === null ? null : truncateIdentifier(rawDeviceId);

  return {
    distinctId: truncateIdentifier(identifierToString(context.distinct_id) ?? ''),
    personProperties,
    groupKeys,
    groupProperties,
    groupTypeNames,
    anonDistinctId: nonEmptyString(context.anon_distinct_id),
    hashKeyOverrides: context.hash_key_overrides ?? {},
    deviceId,
    env: { timezone, now: resolveNow(context.now) },
    cohorts: compiled
      ? {
          definitions: compiled.cohortDefinitions,
          staticIds: compiled.staticCohortIds,
          staticMemberships: new Set([...(context.staticCohortIds ?? [])].map(String)),
          memberships: new Map(),
          validated: new Set(),
        }
      : createCohortResolver(definitions.cohorts, definitions.static_cohort_ids, context.staticCohortIds),
    lookup: compiled ? compiled.lookup : buildFlagLookup(definitions.flags),
    filtersOf: compiled ? (flag) => compiled.filters.get(flag) ?? normalizeFlagFilters(flag) : normalizeFlagFilters,
    values: new Map(),
  };
}
