/**
 * PostHog's FeatureFlagSerializer checks (`validate_key`, `validate_filters`, dependency checks),
 * with its messages and codes (docs/posthog-parity.md). Field-type checks use DRF's wording.
 * Every filters problem is reported with `attr: "filters"`, as DRF does for a field validator.
 */
import { pythonStrip } from '../posthog/python-values.js';
import { validationError } from '../posthog/errors.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';
import { filtersShapeProblem, parseDateInTimezone } from './engine/index.js';
import type { FeatureFlag } from './store.js';
import { pythonStr } from '../posthog/python-text.js';
import { isJsonObject } from '../lib/json-object.js';

export const FLAG_KEY_PATTERN = /^[a-zA-Z0-9_-]+$/;
export const MAX_KEY_LENGTH = 400;
export const MAX_PROPERTY_VALUES = 1000;

/** Operators whose value must be a string (PostHog refuses numbers there). */
const STRING_VALUE_OPERATORS = new Set(['regex', 'icontains', 'not_regex', 'not_icontains', 'gte', 'lte', 'gt', 'lt']);

/** What validation needs to know about the rest of the project. */
export interface FlagValidationLookups {
  /** The non-deleted flag with this key (other than the one being edited). */
  liveFlagByKey(key: string): Promise<FeatureFlag | undefined>;
  /** A non-deleted flag of the project by id. */
  liveFlagById(id: number): Promise<FeatureFlag | undefined>;
  /** A cohort of the project with its properties flattened (for the behavioural check and dependencies). */
  cohort(id: number): Promise<{ id: number; name: string; filters: unknown } | undefined>;
}

const filtersError = (detail: string, code = 'invalid_input') => validationError(detail, 'filters', code);

type Json = Record<string, unknown>;

/** DRF CharField: numbers become text, and surrounding whitespace is trimmed (`trim_whitespace`) before any check. */
export function readString(value: unknown, attr: string, options: { allowBlank?: boolean; maxLength?: number } = {}): string {
  if (value === null) throw validationError('This field may not be null.', attr, 'null');
  if (typeof value === 'object' || typeof value === 'boolean') throw validationError('Not a valid string.', attr, 'invalid');
  const text = pythonStrip(String(value));
  if (!options.allowBlank && text === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (options.maxLength !== undefined && text.length > options.maxLength) {
    throw validationError(`Ensure this field has no more than ${options.maxLength} characters.`, attr, 'max_length');
  }
  return text;
}

export function readChoice<T extends string>(value: unknown, attr: string, choices: readonly T[]): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  throw validationError(`"${pythonStr(value)}" is not a valid choice.`, attr, 'invalid_choice');
}

export function readFiltersObject(value: unknown): Json {
  if (!isJsonObject(value)) {
    throw validationError(DRF_MESSAGES.notADictOfItems(value), 'filters', 'not_a_dict');
  }
  return value;
}

/** `validate_key`: uniqueness first, then the pattern (PostHog's order); the length is DRF's field check. */
export async function validateKey(value: unknown, lookups: FlagValidationLookups, self: FeatureFlag | undefined): Promise<string> {
  const key = readString(value, 'key', { maxLength: MAX_KEY_LENGTH });
  const existing = await lookups.liveFlagByKey(key);
  if (existing && existing.id !== self?.id) throw validationError('There is already a feature flag with this key.', 'key', 'unique');
  if (!FLAG_KEY_PATTERN.test(key)) {
    throw validationError('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key');
  }
  return key;
}

function conditionsOf(filters: Json): Json[] {
  return Array.isArray(filters.groups) ? filters.groups.filter(isJsonObject) : [];
}

function propertiesOf(condition: Json): Json[] {
  return Array.isArray(condition.properties) ? condition.properties.filter(isJsonObject) : [];
}

/** PostHog's `Property` defaults a missing type to `event`. */
function propertyType(property: Json): string {
  return typeof property.type === 'string' ? property.type : 'event';
}

function propertyOperator(property: Json): string {
  return typeof property.operator === 'string' ? property.operator : 'exact';
}

/** Flag ids referenced by `type: "flag"` properties of filters, validated as PostHog does. */
async function flagDependencies(filters: Json, lookups: FlagValidationLookups): Promise<Map<string, FeatureFlag>> {
  const dependencies = new Map<string, FeatureFlag>();
  for (const condition of conditionsOf(filters)) {
    for (const property of propertiesOf(condition)) {
      if (propertyType(property) !== 'flag' || !property.key) continue;
      const reference = String(property.key);
      const id = /^-?\d+$/.test(reference.trim()) ? Number(reference.trim()) : null;
      if (id === null) {
        throw filtersError(`Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${reference}'`);
      }
      const flag = await lookups.liveFlagById(id);
      if (!flag) throw filtersError(`Flag dependency references non-existent flag with ID ${id}`);
      if (!flag.active) {
        throw filtersError(
          `Cannot create dependency on disabled flag '${flag.key}' (ID: ${id}). Flag dependencies must reference active flags only.`,
        );
      }
      dependencies.set(flag.key, flag);
    }
  }
  return dependencies;
}

async function checkCircularDependencies(filters: Json, currentKey: string | undefined, lookups: FlagValidationLookups) {
  if (!currentKey) return;
  const dependencies = await flagDependencies(filters, lookups);
  if (dependencies.size === 0) return;
  if (dependencies.has(currentKey)) throw filtersError(`Feature flag '${currentKey}' cannot depend on itself`);
  const visit = async (flag: FeatureFlag, path: string[]): Promise<void> => {
    if (path.includes(flag.key)) {
      const cycle = [...path.slice(path.indexOf(flag.key)), flag.key];
      throw filtersError(`Circular dependency detected: ${cycle.join(' → ')}`);
    }
    const next = await flagDependencies(flag.filters, lookups);
    for (const dependency of next.values()) await visit(dependency, [...path, flag.key]);
  };
  for (const dependency of dependencies.values()) await visit(dependency, [currentKey]);
}

function flatCohortProperties(group: unknown, into: Json[] = []): Json[] {
  if (!isJsonObject(group)) return into;
  if (Array.isArray(group.values)) for (const value of group.values) flatCohortProperties(value, into);
  else if ('properties' in group && isJsonObject(group.properties)) flatCohortProperties(group.properties, into);
  else if (typeof group.key === 'string' || typeof group.type === 'string') into.push(group);
  return into;
}

async function checkCohortReference(id: unknown, lookups: FlagValidationLookups): Promise<void> {
  const numeric = Number(id);
  const cohort = Number.isInteger(numeric) ? await lookups.cohort(numeric) : undefined;
  if (!cohort) throw filtersError(`Cohort with id ${pythonStr(id)} does not exist`, 'cohort_does_not_exist');
  // The cohort and every cohort it references must be free of event (behavioural) filters.
  const seen = new Set<number>();
  const queue = [cohort];
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (seen.has(current.id)) continue;
    seen.add(current.id);
    const properties = flatCohortProperties(current.filters);
    if (properties.some((p) => p.type === 'behavioral')) {
      throw filtersError(`Cohort '${current.name}' with filters on events cannot be used in feature flags.`, 'behavioral_cohort_found');
    }
    for (const property of properties) {
      if (property.type !== 'cohort') continue;
      const nested = await lookups.cohort(Number(property.value));
      if (nested) queue.push(nested);
    }
  }
}

function checkPayloads(filters: Json, variantKeys: Set<string>): void {
  // `filters.get("payloads", {})`: only a missing key defaults; an explicit null is refused.
  const payloads = 'payloads' in filters ? filters.payloads : {};
  if (!isJsonObject(payloads)) throw filtersError('Payloads must be passed as a dictionary');
  for (const [key, value] of Object.entries(payloads)) {
    // API callers may send objects; PostHog stores what the UI sends, a JSON string.
    if (isJsonObject(value)) payloads[key] = JSON.stringify(value);
    else if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        throw filtersError('Payload value is not valid JSON');
      }
    }
  }
  if (filters.multivariate) {
    if (!Object.keys(payloads).every((key) => variantKeys.has(key))) {
      throw filtersError('Payload keys must match a variant key for multivariate flags');
    }
  } else if (Object.keys(payloads).length > 1 || Object.keys(payloads).some((key) => key !== 'true')) {
    throw filtersError("Payload keys must be 'true' for boolean flags");
  }
  if ('payloads' in filters) filters.payloads = payloads;
}

/**
 * `validate_filters`. Returns the filters to store (payload objects turned into JSON strings);
 * on PATCH, filters without `groups` mean "keep the stored filters".
 */
export async function validateFilters(
  raw: unknown,
  context: { method: 'POST' | 'PATCH'; currentKey: string | undefined; stored: FeatureFlag | undefined; timezone: string },
  lookups: FlagValidationLookups,
): Promise<Json> {
  const filters = structuredClone(readFiltersObject(raw));
  if (!('groups' in filters) && context.method === 'PATCH' && context.stored) return context.stored.filters;
  if (context.method === 'POST' && (!Array.isArray(filters.groups) || filters.groups.length === 0)) {
    throw filtersError('Feature flags must have at least one condition set (group).');
  }
  // PostHog lets such filters through and its flags service then cannot read the flag; refuse them.
  const shapeProblem = filtersShapeProblem(filters);
  if (shapeProblem) throw filtersError(`Filters are not valid (${shapeProblem})`);
  const conditions = conditionsOf(filters);
  const allProperties = conditions.flatMap(propertiesOf);
  const aggregation = filters.aggregation_group_type_index ?? null;

  if (aggregation === null) {
    if (!allProperties.every((p) => ['person', 'cohort', 'flag'].includes(propertyType(p)))) {
      throw filtersError('Filters are not valid (can only use person, cohort, and flag properties)');
    }
    if (!allProperties.every((p) => propertyType(p) !== 'flag' || p.operator === 'flag_evaluates_to')) {
      throw filtersError("Flag properties must use the 'flag_evaluates_to' operator");
    }
    await checkCircularDependencies(filters, context.currentKey, lookups);
  } else if (!allProperties.every((p) => propertyType(p) === 'group' && p.group_type_index === aggregation)) {
    throw filtersError('Filters are not valid (can only use group properties)');
  }

  const multivariate = isJsonObject(filters.multivariate) ? filters.multivariate : {};
  const variants = Array.isArray(multivariate.variants) ? multivariate.variants.filter(isJsonObject) : [];
  const variantKeys = new Set(variants.map((v) => String(v.key)));
  if (variants.length > 0) {
    const sum = variants.reduce((total, v) => total + (typeof v.rollout_percentage === 'number' ? v.rollout_percentage : 0), 0);
    if (sum !== 100) throw filtersError('Invalid variant definitions: Variant rollout percentages must sum to 100.');
  }

  for (const condition of conditions) {
    if (condition.variant && !variantKeys.has(String(condition.variant))) {
      throw filtersError('Filters are not valid (variant override does not exist)');
    }
    for (const property of propertiesOf(condition)) {
      const operator = propertyOperator(property);
      const type = propertyType(property);
      if (Array.isArray(property.value) && property.value.length > MAX_PROPERTY_VALUES) {
        throw filtersError(
          `Property group expressions of type ${pythonStr(property.key)} cannot contain more than ${MAX_PROPERTY_VALUES} values.`,
        );
      }
      if (type === 'cohort') await checkCohortReference(property.value, lookups);
      if (operator === 'is_date_before' || operator === 'is_date_after') {
        const parsed = typeof property.value === 'string' ? parseDateInTimezone(property.value, context.timezone, new Date()) : null;
        if (parsed === null) throw filtersError(`Invalid date value: ${pythonStr(property.value)}`, 'invalid_date');
      }
      if (STRING_VALUE_OPERATORS.has(operator) && typeof property.value !== 'string') {
        throw filtersError(`Invalid value for operator ${operator}: ${pythonStr(property.value)}`, 'invalid_value');
      }
      if ((operator === 'in' || operator === 'not_in') && type !== 'cohort') {
        throw filtersError(`The '${operator}' operator is only valid for cohort properties, not '${type}' properties.`, 'invalid_operator');
      }
    }
  }

  checkPayloads(filters, variantKeys);
  return filters;
}

/** Flags whose conditions depend on `flag` (by id), active and not deleted, for the delete/disable guards. */
export function dependentFlags(flag: FeatureFlag, all: readonly FeatureFlag[]): FeatureFlag[] {
  return all
    .filter((other) => other.id !== flag.id && other.active && !other.deleted)
    .filter((other) =>
      conditionsOf(other.filters).some((condition) =>
        propertiesOf(condition).some((p) => p.type === 'flag' && String(p.key) === String(flag.id)),
      ),
    )
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** `a (ID: 1), b (ID: 2)`, at most five, then "and N more". */
export function describeFlags(flags: readonly FeatureFlag[]): string {
  const names = flags.slice(0, 5).map((f) => `${f.key} (ID: ${f.id})`);
  if (flags.length > 5) names.push(`and ${flags.length - 5} more`);
  return names.join(', ');
}
