/**
 * The events list's `properties` parameter as PostHog's EventViewSet reads it
 * (`_parse_properties_param` / `_clean_property_node` in posthog/api/event.py): a list of filters
 * (all must match), or a property group `{"type": "AND" | "OR", "values": [...]}` whose values may
 * be groups in turn, kept as written so OR and nesting hold. Anything else (a number, a string, the
 * old `{"$browser": "Chrome"}` dict form) filters nothing, and list or group items that are not
 * objects are dropped. Unparsable JSON is PostHog's 400.
 */
import { validationError } from '../posthog/errors.js';
import { parsePropertiesJson } from '../http/properties-param.js';
import { isJsonObject } from '../lib/json-object.js';

/** A property filter as PostHog's API takes it: `{key, value, operator, type}`. */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string;
  type?: string;
}

export interface PropertyGroup {
  type: 'AND' | 'OR';
  values: PropertyNode[];
}

export type PropertyNode = PropertyFilter | PropertyGroup;

export const isGroup = (node: PropertyNode): node is PropertyGroup => Array.isArray((node as PropertyGroup).values);

/*
 * Bounds PostHog does not have (its query string is capped by its proxies; past Python's recursion
 * limit it fails with a server error): they keep one request's query within ClickHouse's limits
 * (an expression depth of 1000) and its parse off the stack's edge.
 */
const MAX_DEPTH = 32;
const MAX_FILTERS = 500;
const MAX_VALUES = 10_000;

const tooComplex = () =>
  validationError(
    `Properties are too complex: at most ${MAX_FILTERS} filters, ${MAX_VALUES} values and ${MAX_DEPTH} levels of groups.`,
    'properties',
  );
const malformed = () => validationError('Properties must be a list of {key, value, operator, type} filters.', 'properties');

/** Counts what the SQL will bind as the tree is read. */
interface Budget {
  filters: number;
  values: number;
}

function readNode(raw: Record<string, unknown>, depth: number, budget: Budget): PropertyNode {
  if (Array.isArray(raw.values)) {
    // A group: PostHog's schema takes "AND" and "OR" only (anything else fails its query build).
    if (raw.type !== 'AND' && raw.type !== 'OR') {
      throw validationError('Property group type must be "AND" or "OR".', 'properties');
    }
    if (depth >= MAX_DEPTH) throw tooComplex();
    return { type: raw.type, values: raw.values.filter(isJsonObject).map((v) => readNode(v, depth + 1, budget)) };
  }
  if (typeof raw.key !== 'string') throw malformed();
  budget.filters += 1;
  budget.values += Array.isArray(raw.value) ? raw.value.length : 1;
  if (budget.filters > MAX_FILTERS || budget.values > MAX_VALUES) throw tooComplex();
  // A value nested past what JSON.stringify can walk would fail when the SQL binds it.
  try {
    JSON.stringify(raw.value);
  } catch {
    throw tooComplex();
  }
  const filter: PropertyFilter = { key: raw.key };
  if ('value' in raw) filter.value = raw.value;
  if (typeof raw.operator === 'string') filter.operator = raw.operator;
  if (typeof raw.type === 'string') filter.type = raw.type;
  return filter;
}

/** The filter tree, or undefined when the parameter filters nothing. */
export function parseProperties(raw: string | undefined): PropertyNode | undefined {
  if (!raw) return undefined;
  const parsed = parsePropertiesJson(raw);
  const budget: Budget = { filters: 0, values: 0 };
  if (isJsonObject(parsed) && Array.isArray(parsed.values)) return readNode(parsed, 0, budget);
  if (Array.isArray(parsed)) return { type: 'AND', values: parsed.filter(isJsonObject).map((v) => readNode(v, 1, budget)) };
  return undefined;
}
