/**
 * The environment's JSON settings as PostHog's TeamSerializer checks and writes them
 * (posthog/api/team.py): `validate_test_account_filters`, `validate_path_cleaning_filters`,
 * `validate_session_replay_config`, `validate_modifiers` (its dictionary check), the
 * `autocapture_exceptions_errors_to_ignore` rule of `validate_team_attrs`, and the merges of
 * `TeamSerializer.update`. Errors carry PostHog's texts; after test_account_filters' prefix, where
 * PostHog appends pydantic's report of every union member, Hoglet names the item, the model its
 * `type` picks and the first misfit field.
 */
import { RE2JS } from 're2js';
import { validationError } from '../posthog/errors.js';
import { pythonJsonDumps } from '../posthog/python-json.js';
import { isJsonObject } from '../lib/json-object.js';
import { PROPERTY_OPERATORS } from '../posthog/property-operators.js';

type Json = Record<string, unknown>;

/** JSON model fields that refuse null (Django JSONField without null=True). */
export const NOT_NULL_JSON_FIELDS = new Set(['test_account_filters']);

// ---------------------------------------------------------------------------------------------
// test_account_filters: pydantic's TypeAdapter(list[AnyPropertyFilter]) (posthog/types.py), each
// model of posthog/schema with extra="forbid". An item is valid when one model of the union takes it.

/** A field check: an error message, or undefined when the value fits. */
type Check = (value: unknown) => string | undefined;

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const str: Check = (v) => (typeof v === 'string' ? undefined : 'Input should be a valid string');
const optional =
  (check: Check): Check =>
  (v) =>
    v === null ? undefined : check(v);
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `Input should be ${values.map((x) => `'${x}'`).join(', ')}`;
const integer: Check = (v) =>
  (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v))
    ? undefined
    : 'Input should be a valid integer';
const filterValue: Check = (v) =>
  v === null || isScalar(v) || (Array.isArray(v) && v.every(isScalar))
    ? undefined
    : 'Input should be a valid string, number, boolean, or a list of them';
const operator = oneOf(PROPERTY_OPERATORS);

interface FilterModel {
  name: string;
  type: string;
  required: Record<string, Check>;
  optional: Record<string, Check>;
}

/** Most filters: `key`, `operator` required, `label` and `value` optional. */
function keyed(name: string, type: string, extra: Partial<FilterModel> = {}): FilterModel {
  return {
    name,
    type,
    required: { key: str, operator, ...extra.required },
    optional: { label: optional(str), value: filterValue, ...extra.optional },
  };
}

const FILTER_MODELS: FilterModel[] = [
  // EventPropertyFilter: the operator defaults to exact.
  {
    name: 'EventPropertyFilter',
    type: 'event',
    required: { key: str },
    optional: { label: optional(str), operator: optional(operator), value: filterValue },
  },
  keyed('PersonPropertyFilter', 'person'),
  keyed('PersonMetadataPropertyFilter', 'person_metadata'),
  keyed('ElementPropertyFilter', 'element', { required: { key: oneOf(['tag_name', 'text', 'href', 'selector']), operator } }),
  keyed('EventMetadataPropertyFilter', 'event_metadata'),
  keyed('RevenueAnalyticsPropertyFilter', 'revenue_analytics'),
  keyed('SessionPropertyFilter', 'session'),
  keyed('LogEntryPropertyFilter', 'log_entry'),
  {
    name: 'CohortPropertyFilter',
    type: 'cohort',
    required: { value: integer },
    optional: { key: oneOf(['id']), cohort_name: optional(str), label: optional(str), operator: optional(operator) },
  },
  keyed('RecordingPropertyFilter', 'recording'),
  keyed('GroupPropertyFilter', 'group', { optional: { label: optional(str), value: filterValue, group_type_index: optional(integer) } }),
  keyed('FeaturePropertyFilter', 'feature'),
  {
    name: 'FlagPropertyFilter',
    type: 'flag',
    required: {
      key: str,
      value: (v) => (typeof v === 'boolean' || typeof v === 'string' ? undefined : 'Input should be a valid boolean or string'),
    },
    optional: { label: optional(str), operator: oneOf(['flag_evaluates_to']) },
  },
  { name: 'HogQLPropertyFilter', type: 'hogql', required: { key: str }, optional: { label: optional(str), value: filterValue } },
  { name: 'EmptyPropertyFilter', type: 'empty', required: {}, optional: {} },
  keyed('DataWarehousePropertyFilter', 'data_warehouse'),
  keyed('DataWarehousePersonPropertyFilter', 'data_warehouse_person_property'),
  keyed('ErrorTrackingIssueFilter', 'error_tracking_issue'),
  keyed('LogPropertyFilter', 'log'),
];

/** Why `item` does not fit `model` (pydantic's location and message), or undefined when it does. */
function misfit(model: FilterModel, item: Json): string | undefined {
  for (const [field, value] of Object.entries(item)) {
    if (field === 'type') {
      // EmptyPropertyFilter has no field at all, `type` included.
      if (model.type === 'empty') return `${field}: Extra inputs are not permitted`;
      if (value !== model.type) return `type: Input should be '${model.type}'`;
      continue;
    }
    const check = model.required[field] ?? model.optional[field];
    if (!check) return `${field}: Extra inputs are not permitted`;
    const problem = check(value);
    if (problem) return `${field}: ${problem}`;
  }
  for (const field of Object.keys(model.required)) if (!(field in item)) return `${field}: Field required`;
  return undefined;
}

export function checkTestAccountFilters(value: unknown): void {
  const fail = (why: string) => {
    throw validationError(`Must provide an array of valid property filters. ${why}`, 'test_account_filters');
  };
  if (!Array.isArray(value)) fail('Input should be a valid list');
  (value as unknown[]).forEach((item, index) => {
    if (!isJsonObject(item)) return fail(`${index}: Input should be a valid dictionary`);
    if (FILTER_MODELS.some((model) => misfit(model, item) === undefined)) return;
    // The reason given is the one of the model the item names (its `type`), else an event filter's.
    const named = FILTER_MODELS.find((model) => model.type === item.type) ?? FILTER_MODELS[0]!;
    fail(`${index}.${named.name}.${misfit(named, item)}`);
  });
}

// ---------------------------------------------------------------------------------------------
// path_cleaning_filters: each rule's regex must compile under RE2 (what ClickHouse's
// replaceRegexpAll runs), and `\1`..`\9` in its alias must name a group the regex has.

/** RE2's own wording of a syntax error (re2/regexp.cc), which PostHog's python `re2` raises. */
const RE2_ERROR_TEXTS: Record<string, string> = {
  'missing closing )': 'missing )',
  'missing closing ]': 'missing ]',
  'unexpected )': 'unexpected )',
  'trailing backslash at end of expression': 'trailing \\',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'invalid repeat count': 'invalid repetition size',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid named capture': 'invalid named capture group',
};

/** The pattern's number of capture groups, or RE2's error text. */
function compileRe2(pattern: string): { groups: number } | { error: string } {
  try {
    return { groups: RE2JS.compile(pattern).groupCount() };
  } catch (error) {
    const { error: code, input } = error as { error?: unknown; input?: unknown };
    if (typeof code !== 'string') return { error: String((error as Error).message ?? error) };
    const text = RE2_ERROR_TEXTS[code] ?? code;
    return { error: typeof input === 'string' && input !== '' ? `${text}: ${input}` : text };
  }
}

/** `\0`..`\9` in a replacement, a doubled backslash being a literal one. */
function aliasBackreferences(alias: string): number[] {
  const refs: number[] = [];
  for (let i = 0; i < alias.length; i++) {
    if (alias[i] !== '\\' || i + 1 >= alias.length) continue;
    const next = alias[i + 1]!;
    if (next === '\\' || (next >= '0' && next <= '9')) {
      if (next !== '\\') refs.push(Number(next));
      i++;
    }
  }
  return refs;
}

const truthy = (v: unknown) =>
  !(
    v === null ||
    v === false ||
    v === 0 ||
    v === '' ||
    (Array.isArray(v) && v.length === 0) ||
    (isJsonObject(v) && Object.keys(v).length === 0)
  );

export function checkPathCleaningFilters(value: unknown): void {
  const attr = 'path_cleaning_filters';
  if (!truthy(value)) return;
  if (!Array.isArray(value)) throw validationError('Must provide a list of path cleaning rules.', attr);
  for (const rule of value) {
    if (!isJsonObject(rule)) continue;
    const { regex, alias } = rule;
    if (typeof regex !== 'string' || regex === '') {
      throw validationError('A path cleaning rule needs a regex. Remove the rule or give it one.', attr);
    }
    const compiled = compileRe2(regex);
    if ('error' in compiled) throw validationError(`Invalid path cleaning regex '${regex}': ${compiled.error}`, attr);
    if (typeof alias !== 'string' || alias === '') continue;
    for (const ref of aliasBackreferences(alias)) {
      if (ref > compiled.groups) {
        throw validationError(
          `The alias '${alias}' references capture group \\${ref}, but its regex has ${compiled.groups} capture group(s). Add the group to the regex or fix the reference.`,
          attr,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// session_replay_config and modifiers: dictionaries (or null).

const AI_CONFIG_KEYS = ['included_event_properties', 'opt_in', 'preferred_events', 'excluded_events', 'important_user_properties'];

export function checkSessionReplayConfig(value: unknown): void {
  const attr = 'session_replay_config';
  if (value === null) return;
  if (!isJsonObject(value)) throw validationError('Must provide a dictionary or None.', attr);
  const known = ['record_canvas', 'ai_config'];
  if (!Object.keys(value).every((key) => known.includes(key))) {
    throw validationError(`Must provide a dictionary with only known keys. One or more of ${known.join(', ')}.`, attr);
  }
  const ai = value.ai_config;
  if (ai !== undefined && ai !== null) {
    if (!isJsonObject(ai)) throw validationError('Must provide a dictionary or None.', attr);
    if (!Object.keys(ai).every((key) => AI_CONFIG_KEYS.includes(key))) {
      throw validationError(`Must provide a dictionary with only allowed keys: ${AI_CONFIG_KEYS.join(', ')}.`, attr);
    }
  }
}

export function checkModifiers(value: unknown): void {
  if (value !== null && !isJsonObject(value)) throw validationError('Must provide a dictionary or None.', 'modifiers');
}

/** The field checks above, by field; run once the value has its JSON type. */
export const JSON_SETTING_CHECKS: Record<string, (value: unknown) => void> = {
  test_account_filters: checkTestAccountFilters,
  path_cleaning_filters: checkPathCleaningFilters,
  session_replay_config: checkSessionReplayConfig,
  modifiers: checkModifiers,
};

/**
 * `validate_team_attrs`' rule, checked after every field (it is not a field's error, so no attr):
 * a list of strings, at most 300 characters as Python's json.dumps writes it.
 */
export function checkErrorsToIgnore(settings: Record<string, unknown>): void {
  if (!('autocapture_exceptions_errors_to_ignore' in settings)) return;
  const value = settings.autocapture_exceptions_errors_to_ignore;
  if (!Array.isArray(value)) throw validationError('Must provide a list for field: autocapture_exceptions_errors_to_ignore.');
  if (!value.every((error) => typeof error === 'string')) {
    throw validationError('Must provide a list of strings to field: autocapture_exceptions_errors_to_ignore.');
  }
  if (pythonJsonDumps(value).length > 300) {
    throw validationError(
      'Field autocapture_exceptions_errors_to_ignore must be less than 300 characters. Complex config should be provided in posthog-js initialization.',
    );
  }
}

// ---------------------------------------------------------------------------------------------
// TeamSerializer.update: some JSON settings merge into the stored object instead of replacing it.

/**
 * The stored settings with a write applied. `session_replay_config` merges its top-level keys and,
 * one level down, keys of objects present on both sides; `survey_config` and `modifiers` merge
 * their top-level keys. An explicit null clears each.
 */
export function mergeSettings(stored: Record<string, unknown>, write: Record<string, unknown>): Record<string, unknown> {
  const next = { ...stored, ...write };
  const replay = write.session_replay_config;
  const storedReplay = stored.session_replay_config;
  if (isJsonObject(replay) && isJsonObject(storedReplay)) {
    const merged: Json = { ...storedReplay };
    for (const [key, value] of Object.entries(replay)) {
      const before = storedReplay[key];
      merged[key] = isJsonObject(before) && isJsonObject(value) ? { ...before, ...value } : value;
    }
    next.session_replay_config = merged;
  }
  if (isJsonObject(write.survey_config) && isJsonObject(stored.survey_config)) {
    next.survey_config = { ...stored.survey_config, ...write.survey_config };
  }
  if (isJsonObject(write.modifiers)) {
    next.modifiers = { ...(isJsonObject(stored.modifiers) ? stored.modifiers : {}), ...write.modifiers };
  }
  return next;
}
