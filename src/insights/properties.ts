/**
 * Event property filters of insight queries (`{key, value, operator, type}`, possibly nested in
 * PostHog's `{type: AND|OR, values}` groups), matched against an event's properties in memory:
 * the store reads the events of the range once and every series filters them.
 */
import { compileClickHouseRegex } from '../lib/linear-regex.js';
import { TrendsQueryError } from './query-error.js';
import { isJsonObject } from '../lib/json-object.js';
import { BASIC_PROPERTY_OPERATORS } from '../posthog/property-operators.js';

export interface PropertyFilterInput {
  key: string;
  value?: unknown;
  operator?: string;
  type?: string;
}

/** Flattens AND groups into one list; OR groups and non-event filters are refused (not supported yet). */
export function readPropertyFilters(raw: unknown, attr: string): PropertyFilterInput[] {
  if (raw === undefined || raw === null) return [];
  if (isJsonObject(raw) && Array.isArray(raw.values)) {
    if (raw.type !== undefined && raw.type !== 'AND' && raw.values.length > 1) {
      throw new TrendsQueryError('Only AND property groups are supported.', attr);
    }
    return raw.values.flatMap((v, i) => readPropertyFilters(v, `${attr}__values__${i}`));
  }
  if (Array.isArray(raw)) return raw.flatMap((v, i) => readPropertyFilters(v, `${attr}__${i}`));
  if (!isJsonObject(raw) || typeof raw.key !== 'string') throw new TrendsQueryError('Invalid property filter.', attr);
  const type = raw.type ?? 'event';
  if (type !== 'event') throw new TrendsQueryError(`Property filters of type "${String(type)}" are not supported.`, attr);
  const operator = raw.operator ?? 'exact';
  if (!(BASIC_PROPERTY_OPERATORS as readonly unknown[]).includes(operator)) {
    throw new TrendsQueryError(`"${String(operator)}" is not a valid choice.`, `${attr}__operator`);
  }
  return [{ key: raw.key, value: raw.value, operator: operator as string, type: 'event' }];
}

/** Values as the SDKs sent them, compared as text (PostHog compares property strings). */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function matchesFilter(properties: Record<string, unknown>, filter: PropertyFilterInput): boolean {
  const actual = properties[filter.key];
  const present = actual !== undefined && actual !== null;
  const wanted = (Array.isArray(filter.value) ? filter.value : [filter.value]).map(asText);
  const text = present ? asText(actual) : '';
  switch (filter.operator ?? 'exact') {
    case 'exact':
      return present && wanted.includes(text);
    case 'is_not':
      return !present || !wanted.includes(text);
    case 'icontains':
      return present && text.toLowerCase().includes((wanted[0] ?? '').toLowerCase());
    case 'not_icontains':
      return !present || !text.toLowerCase().includes((wanted[0] ?? '').toLowerCase());
    case 'regex':
      return present && (compileClickHouseRegex(wanted[0] ?? '')?.test(text) ?? false);
    case 'not_regex':
      return !present || !(compileClickHouseRegex(wanted[0] ?? '')?.test(text) ?? false);
    case 'is_set':
      return present;
    case 'is_not_set':
      return !present;
    default: {
      const a = Number(actual);
      const b = Number(wanted[0]);
      if (!present || !Number.isFinite(a) || !Number.isFinite(b)) return false;
      return filter.operator === 'gt' ? a > b : filter.operator === 'gte' ? a >= b : filter.operator === 'lt' ? a < b : a <= b;
    }
  }
}

export function matchesProperties(properties: Record<string, unknown>, filters: readonly PropertyFilterInput[]): boolean {
  return filters.every((f) => matchesFilter(properties, f));
}
