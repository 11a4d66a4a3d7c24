/**
 * The Activity page's filters, kept in the address (so a filtered view can be shared) and turned
 * into an EventsQuery.
 */
import type { EventsQueryInput } from '../../api/events';
import { isValueless, PROPERTY_OPERATORS } from '../../api/operators';
import type { PropertyFilter } from '../../api/types';

export const RANGES = [
  { value: '-1h', label: 'Last hour' },
  { value: '-24h', label: 'Last 24 hours' },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
  { value: 'all', label: 'All time' },
  { value: 'custom', label: 'Custom range' },
] as const;
export const DEFAULT_RANGE = '-24h';

/** The property operators the events query takes (of those the flag editor offers). */
const EVENT_OPERATORS = new Set([
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'lt',
  'is_set',
  'is_not_set',
]);
export const OPERATORS = PROPERTY_OPERATORS.filter((o) => EVENT_OPERATORS.has(o.value));

export interface PropertyRow {
  key: string;
  operator: string;
  value: string;
}

export interface ActivityFilters {
  event: string;
  distinctId: string;
  range: string;
  /** A custom range's ends, as `datetime-local` inputs hold them (the browser's time); empty is open. */
  from: string;
  to: string;
  properties: PropertyRow[];
}

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const localTime = (value: string | null) => (value && LOCAL_TIME.test(value) && !Number.isNaN(new Date(value).getTime()) ? value : '');
/** A `datetime-local` value (the browser's wall time) as an instant. */
const instant = (value: string) => (value ? new Date(value).toISOString() : null);

export function readFilters(params: URLSearchParams): ActivityFilters {
  let properties: PropertyRow[] = [];
  try {
    const parsed: unknown = JSON.parse(params.get('properties') ?? '[]');
    if (Array.isArray(parsed)) {
      properties = parsed
        .filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null && typeof p.key === 'string')
        .map((p) => ({ key: String(p.key), operator: String(p.operator ?? 'exact'), value: String(p.value ?? '') }));
    }
  } catch {
    // A hand-edited address: no property filters rather than none at all of the page.
  }
  const range = params.get('range') ?? DEFAULT_RANGE;
  return {
    event: params.get('event') ?? '',
    distinctId: params.get('distinct_id') ?? '',
    range: RANGES.some((r) => r.value === range) ? range : DEFAULT_RANGE,
    from: localTime(params.get('from')),
    to: localTime(params.get('to')),
    properties,
  };
}

export function writeFilters(filters: ActivityFilters, params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (name: string, value: string) => (value ? next.set(name, value) : next.delete(name));
  set('event', filters.event.trim());
  set('distinct_id', filters.distinctId.trim());
  set('range', filters.range === DEFAULT_RANGE ? '' : filters.range);
  set('from', filters.range === 'custom' ? filters.from : '');
  set('to', filters.range === 'custom' ? filters.to : '');
  const properties = filters.properties.filter((p) => p.key.trim());
  set('properties', properties.length ? JSON.stringify(properties) : '');
  return next;
}

/** A value as the user typed it: numbers stay text, as PostHog's filters compare text. */
export function toPropertyFilters(filters: ActivityFilters): PropertyFilter[] {
  const list: PropertyFilter[] = filters.properties
    .filter((p) => p.key.trim())
    .map((p) => ({
      type: 'event',
      key: p.key.trim(),
      operator: p.operator,
      ...(isValueless(p.operator) ? {} : { value: p.value }),
    }));
  if (filters.distinctId.trim()) {
    list.push({ type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: filters.distinctId.trim() });
  }
  return list;
}

export function toQuery(filters: ActivityFilters): EventsQueryInput {
  return {
    event: filters.event.trim() || null,
    properties: toPropertyFilters(filters),
    ...(filters.range === 'custom'
      ? { after: instant(filters.from), before: instant(filters.to) }
      : { after: filters.range === 'all' ? null : filters.range }),
  };
}
