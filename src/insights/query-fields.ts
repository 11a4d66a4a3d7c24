/**
 * The fields TrendsQuery and FunnelsQuery read alike: the date range and the breakdown, with the
 * messages and `attr` paths PostHog's validation gives.
 */
import { isJsonObject } from '../lib/json-object.js';
import { TrendsQueryError } from './query-error.js';
import { INTERVALS, parseTrendsDate, type Interval } from './trends-window.js';

/** An optional object field of the query (`{}` when unset or null); anything else is a 400 on it. */
export function readObjectField(source: Record<string, unknown>, name: string, attr: (name: string) => string): Record<string, unknown> {
  const value = source[name];
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) throw new TrendsQueryError('Expected an object.', attr(name));
  return value;
}

/** `interval`: the buckets of a trends line or a funnel's trends view, `day` by default. */
export function readInterval(source: Record<string, unknown>, attr: (name: string) => string): Interval {
  const interval = source.interval ?? 'day';
  if (!(INTERVALS as readonly unknown[]).includes(interval)) {
    throw new TrendsQueryError(`"${String(interval)}" is not a valid choice.`, attr('interval'));
  }
  return interval as Interval;
}

/** `dateRange`: from (`-7d` by default) and to (now when null), each a date PostHog reads. */
export function readDateRange(
  source: Record<string, unknown>,
  attr: (name: string) => string,
): { dateFrom: string; dateTo: string | null } {
  const range = readObjectField(source, 'dateRange', attr);
  const dateFrom = range.date_from ?? '-7d';
  const dateTo = range.date_to ?? null;
  if (typeof dateFrom !== 'string' || parseTrendsDate(dateFrom, new Date()) === null) {
    throw new TrendsQueryError(`Unreadable date_from "${String(dateFrom)}".`, attr('dateRange__date_from'));
  }
  if (dateTo !== null && (typeof dateTo !== 'string' || parseTrendsDate(dateTo, new Date()) === null)) {
    throw new TrendsQueryError(`Unreadable date_to "${String(dateTo)}".`, attr('dateRange__date_to'));
  }
  return { dateFrom, dateTo };
}

/** PostHog's BREAKDOWN_VALUES_LIMIT: the breakdown values shown when `breakdown_limit` is unset (or 0). */
export const DEFAULT_BREAKDOWN_LIMIT = 25;
/** The most values `breakdown_limit` may ask for. */
export const MAX_BREAKDOWN_LIMIT = 1000;

/**
 * `breakdownFilter.breakdown_limit`: how many breakdown values are shown, the most frequent first.
 * Unset or 0 is the default, as PostHog's `breakdown_limit or BREAKDOWN_VALUES_LIMIT`.
 */
export function readBreakdownLimit(source: Record<string, unknown>, attr: (name: string) => string): number {
  const limit = readObjectField(source, 'breakdownFilter', attr).breakdown_limit ?? 0;
  if (typeof limit !== 'number' || !Number.isInteger(limit)) {
    throw new TrendsQueryError('A valid integer is required.', attr('breakdownFilter__breakdown_limit'));
  }
  if (limit < 0 || limit > MAX_BREAKDOWN_LIMIT) {
    throw new TrendsQueryError(
      `breakdown_limit must be from 1 to ${MAX_BREAKDOWN_LIMIT} (0 or unset: ${DEFAULT_BREAKDOWN_LIMIT}).`,
      attr('breakdownFilter__breakdown_limit'),
    );
  }
  return limit || DEFAULT_BREAKDOWN_LIMIT;
}

/** `breakdownFilter`: one event property, or null. */
export function readEventBreakdown(source: Record<string, unknown>, attr: (name: string) => string): string | null {
  const breakdownFilter = readObjectField(source, 'breakdownFilter', attr);
  const { breakdowns } = breakdownFilter;
  if (breakdowns !== undefined && breakdowns !== null && !(Array.isArray(breakdowns) && breakdowns.length === 0)) {
    throw new TrendsQueryError(
      'Multiple breakdowns are not supported: give one event property as breakdown.',
      attr('breakdownFilter__breakdowns'),
    );
  }
  if (breakdownFilter.breakdown_histogram_bin_count != null) {
    throw new TrendsQueryError('Histogram breakdowns are not supported.', attr('breakdownFilter__breakdown_histogram_bin_count'));
  }
  const breakdown = breakdownFilter.breakdown ?? null;
  if (breakdown !== null && typeof breakdown !== 'string') {
    throw new TrendsQueryError('Only a single event property breakdown is supported.', attr('breakdownFilter__breakdown'));
  }
  if (breakdown !== null && (breakdownFilter.breakdown_type ?? 'event') !== 'event') {
    throw new TrendsQueryError('Only event property breakdowns are supported.', attr('breakdownFilter__breakdown_type'));
  }
  return breakdown;
}
