/**
 * Event property filters of insight queries (`{key, value, operator, type}`, possibly nested in
 * PostHog's `{type: AND|OR, values}` groups), read and checked; ClickHouse applies them
 * (trends-store.ts).
 */
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
