/**
 * Data shapes of the flag evaluation engine.
 *
 * Input shapes follow PostHog's local-evaluation feed (`/flags/definitions`) so a definition
 * can be passed straight from storage or from the contract corpus. Field names therefore use
 * PostHog's snake_case; engine-only inputs (timezone, clock, memberships) use camelCase.
 */

/** Any JSON value, as it arrives from a request body or the flag store. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A property map (person properties, or one group's properties). */
export type PropertyMap = Record<string, unknown>;

export type PropertyFilterType = 'person' | 'group' | 'cohort' | 'flag' | 'person_metadata' | (string & {});

/** One filter of a condition, a super condition or a cohort definition. */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  /** Missing means `exact` (for cohort filters: `in`). */
  operator?: string | null;
  type?: PropertyFilterType | null;
  group_type_index?: number | null;
  /** Only meaningful inside cohort definitions. */
  negation?: boolean | null;
  /** Local-evaluation feed only: evaluation order of the dependency's own dependencies. */
  dependency_chain?: string[];
}

/** A condition set ("group" in PostHog's JSON): properties AND-ed, then a rollout. */
export interface FlagCondition {
  properties?: PropertyFilter[] | null;
  /** null/absent means 100. */
  rollout_percentage?: number | null;
  /** Variant override; only honoured when it names a declared variant. */
  variant?: string | null;
  /** Absent: inherit the flag's aggregation. Explicit null: person. */
  aggregation_group_type_index?: number | null;
}

export interface FlagVariant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
}

export interface FlagHoldout {
  id: number | string;
  exclusion_percentage: number;
}

export interface FlagFilters {
  groups?: FlagCondition[] | null;
  multivariate?: { variants?: FlagVariant[] | null } | null;
  payloads?: Record<string, unknown> | null;
  aggregation_group_type_index?: number | null;
  super_groups?: FlagCondition[] | null;
  feature_enrollment?: boolean | null;
  holdout?: FlagHoldout | null;
  holdout_groups?: FlagCondition[] | null;
  early_exit?: boolean | null;
  /** Legacy flags without `groups` keep their properties here. */
  properties?: PropertyFilter[] | null;
}

/** A flag definition in the local-evaluation feed shape. */
export interface FlagDefinition {
  id?: number | null;
  key: string;
  name?: string | null;
  version?: number | null;
  active?: boolean | null;
  deleted?: boolean | null;
  filters?: FlagFilters | Record<string, unknown> | null;
  /** Legacy top-level rollout, only read when `filters` has no `groups`. */
  rollout_percentage?: number | null;
  ensure_experience_continuity?: boolean | null;
  bucketing_identifier?: 'distinct_id' | 'device_id' | string | null;
}

/** Cohort definition as served in the feed: nested AND/OR groups of filters. */
export interface PropertyGroup {
  type?: 'AND' | 'OR' | 'property' | string;
  values?: Array<PropertyGroup | PropertyFilter>;
}

/** Everything about the project that evaluation needs besides the request. */
export interface FlagDefinitions {
  flags: FlagDefinition[];
  /** Group type index (as a string) → group type name. */
  group_type_mapping?: Record<string, string> | null;
  /**
   * Dynamic cohort definitions by id. A `null` definition (unparsable / empty filters) means
   * "nobody is a member"; an id absent from both this map and `static_cohort_ids` is a
   * missing cohort, which fails the flag that references it.
   */
  cohorts?: Record<string, PropertyGroup | { properties?: PropertyGroup | null } | null> | null;
  /** Ids of static cohorts; membership comes from `EvaluationContext.staticCohortIds`. */
  static_cohort_ids?: Array<number | string> | null;
}

/** The request side of an evaluation. */
export interface EvaluationContext {
  /** Required; `""` is valid and hashes as 0.0 for rollout and variants. Numbers become decimal strings. */
  distinct_id: string | number;
  /** Already merged by the caller (stored properties ⊕ request overrides). */
  person_properties?: PropertyMap | null;
  /** Group type name → group key. */
  groups?: Record<string, unknown> | null;
  /** Group type name → properties of that group. */
  group_properties?: Record<string, PropertyMap | null | undefined> | null;
  /** Experience continuity: the anonymous id sent by the client. */
  anon_distinct_id?: string | null;
  /** Experience continuity: stored hash-key overrides, flag key → hash key. */
  hash_key_overrides?: Record<string, string> | null;
  /** Device bucketing identifier. */
  device_id?: string | null;
  /** Static cohorts the person belongs to. */
  staticCohortIds?: Iterable<number | string> | null;
  /** IANA timezone used for naive and relative dates (team timezone). Default UTC. */
  timezone?: string | null;
  /** Injectable clock for relative dates. Default: the current time. */
  now?: Date | (() => Date) | null;
}

/** Reason codes in PostHog's vocabulary, plus the engine's error codes for failed flags. */
export type FlagReasonCode =
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'condition_match'
  | 'out_of_rollout_bound'
  | 'no_condition_match'
  | 'no_group_type'
  | 'flag_disabled'
  | 'missing_dependency'
  | FlagErrorCode;

/**
 * Codes of flags whose evaluation failed (`failed: true`). The engine reports a broken cohort
 * reference as dependency_not_found or dependency_cycle; the flags endpoints answer those under
 * PostHog's names, which also say the dependency is a cohort (src/sdk/flags/evaluate-request.ts).
 */
export type FlagErrorCode =
  'dependency_not_found' | 'dependency_cycle' | 'dependency_not_found_cohort' | 'dependency_cycle_cohort' | 'internal_error';

export interface FlagReason {
  code: FlagReasonCode | (string & {});
  condition_index: number | null;
  description?: string;
}

/** The result for one flag. */
export interface FlagEvaluation {
  key: string;
  enabled: boolean;
  variant: string | null;
  /** `variant` if enabled with a variant, `true` if enabled without one, else `false`. */
  value: boolean | string;
  payload: unknown;
  reason: FlagReason;
  /** Present and true only when evaluation failed (then enabled is false). */
  failed?: boolean;
  /** Definition metadata carried for the response projection (missing id/version read as 0). */
  metadata: { id: number; version: number };
}

/** The result for a whole definition set. */
export interface FlagSetEvaluation {
  /** Evaluated flags in definition order, one per key; inactive and deleted flags are absent. */
  readonly results: readonly FlagEvaluation[];
  /** The same results by key (made on first use: the response serialisers read `results`). */
  readonly flags: Readonly<Record<string, FlagEvaluation>>;
  readonly errorsWhileComputingFlags: boolean;
}
