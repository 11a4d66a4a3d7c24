/**
 * The per-request state shared by every flag of one evaluation: normalised identifiers and
 * property maps, group type names, cohort data, the clock/timezone, and the values of flags
 * already evaluated (read by flag dependencies).
 */
import { growableCopy } from '../../lib/growable-copy.js';
import type { CohortResolver } from './cohorts.js';
import type { CompiledDefinitions } from './compiled-definitions.js';
import { isValidTimezone } from './dates.js';
import type { FlagLookup } from './dependencies.js';
import { identifierToString, truncateIdentifier } from './hashing.js';
import type { MatchEnvironment } from './property-matching.js';
import type { EvaluationContext, PropertyMap } from './types.js';

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
  /** Whether hashKeyOverrides may name any flag: without, person conditions hash the distinct id (or device id). */
  readonly hasHashKeyOverrides: boolean;
  readonly deviceId: string | null;
  readonly env: MatchEnvironment;
  readonly cohorts: CohortResolver;
  readonly lookup: FlagLookup;
  /** Values of flags evaluated so far, for flag_evaluates_to. */
  readonly values: Map<string, boolean | string>;
}

function resolveNow(now: EvaluationContext['now']): Date {
  if (typeof now === 'function') return now();
  return now instanceof Date ? now : new Date();
}

/**
 * The clock and timezone of one evaluation, read on first use: only date filters read them, and
 * a request's flags seldom have one (a Date and a timezone check per request otherwise).
 */
class RequestEnvironment implements MatchEnvironment {
  #timezone: string | undefined;
  #now: Date | undefined;

  constructor(
    private readonly givenTimezone: string | null | undefined,
    private readonly clock: EvaluationContext['now'],
  ) {}

  get timezone(): string {
    return (this.#timezone ??= this.givenTimezone && isValidTimezone(this.givenTimezone) ? this.givenTimezone : 'UTC');
  }

  get now(): Date {
    return (this.#now ??= resolveNow(this.clock));
  }
}

/** Whether an overrides object may give a string for some key (anything but a plain empty object may). */
function mayOverride(overrides: object): boolean {
  const prototype = Object.getPrototypeOf(overrides) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return true;
  for (const key in overrides) if (key !== undefined) return true;
  return false;
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

const INDEX = /^\d+$/;

const NO_GROUP_TYPES: ReadonlyMap<number, string> = new Map();
const NO_STATIC_MEMBERSHIPS: ReadonlySet<string> = new Set();

/** The ids as strings; the usual empty list shares one empty set (read only: `has`). */
function staticMembershipsOf(ids: EvaluationContext['staticCohortIds']): ReadonlySet<string> {
  if (!ids || (Array.isArray(ids) && ids.length === 0)) return NO_STATIC_MEMBERSHIPS;
  return new Set(Array.from(ids, String));
}

/**
 * Index → name of each mapping object seen: a server passes the same cached mapping object on
 * every request until its group types change, so this is worked out once per mapping.
 */
const namesByMapping = new WeakMap<object, ReadonlyMap<number, string>>();

/** Group type index → name, from the per-request mapping or the definitions' own. */
function groupTypeNamesOf(mapping: Record<string, string> | null | undefined): ReadonlyMap<number, string> {
  if (!mapping) return NO_GROUP_TYPES;
  let names = namesByMapping.get(mapping);
  if (names === undefined) {
    const byIndex = new Map<number, string>();
    for (const index in mapping) {
      const name = mapping[index];
      if (typeof name === 'string' && INDEX.test(index)) byIndex.set(Number(index), name);
    }
    // A caller may change its mapping object between evaluations: frozen ones only are kept.
    if (Object.isFrozen(mapping)) namesByMapping.set(mapping, byIndex);
    names = byIndex;
  }
  return names;
}

/**
 * `groupTypeMapping`, when given, replaces the definitions' own mapping: a server keeps compiled
 * definitions per project and reads the mapping, which changes independently, per request.
 */
export function createEvaluationState(
  compiled: CompiledDefinitions,
  context: EvaluationContext,
  groupTypeMapping?: Record<string, string> | null,
): EvaluationState {
  // Read only, never written: the caller's map is used as it is.
  const personProperties: PropertyMap = context.person_properties ?? {};

  const groupKeys = new Map<string, string>();
  const groupProperties = new Map<string, PropertyMap>();
  const groups = context.groups ?? {};
  const givenGroupProperties = context.group_properties ?? {};
  for (const typeName in groups) {
    const key = identifierToString(groups[typeName]);
    // Keys that are not strings/numbers, or empty, are unusable: conditions on them are skipped.
    if (key === null || key === '') continue;
    groupKeys.set(typeName, truncateIdentifier(key));
    const properties = growableCopy(givenGroupProperties[typeName]);
    properties.$group_key = key;
    groupProperties.set(typeName, properties);
  }
  for (const typeName in givenGroupProperties) {
    if (!groupProperties.has(typeName)) groupProperties.set(typeName, givenGroupProperties[typeName] ?? {});
  }

  const rawDeviceId = nonEmptyString(context.device_id) ?? nonEmptyString(personProperties.$device_id);
  const deviceId = rawDeviceId === null ? null : truncateIdentifier(rawDeviceId);
  const hashKeyOverrides = context.hash_key_overrides ?? {};

  return {
    distinctId: truncateIdentifier(identifierToString(context.distinct_id) ?? ''),
    personProperties,
    groupKeys,
    groupProperties,
    groupTypeNames: groupTypeNamesOf(groupTypeMapping === undefined ? compiled.definitions.group_type_mapping : groupTypeMapping),
    anonDistinctId: nonEmptyString(context.anon_distinct_id),
    hashKeyOverrides,
    hasHashKeyOverrides: mayOverride(hashKeyOverrides),
    deviceId,
    env: new RequestEnvironment(context.timezone, context.now),
    cohorts: {
      definitions: compiled.cohortDefinitions,
      staticIds: compiled.staticCohortIds,
      staticMemberships: staticMembershipsOf(context.staticCohortIds),
      memberships: new Map(),
      validated: compiled.validatedCohorts,
    },
    lookup: compiled.lookup,
    values: new Map(),
  };
}
