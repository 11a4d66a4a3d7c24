/**
 * The trends insight's query, read and checked: a PostHog TrendsQuery (or the InsightVizNode around
 * it). Pure: ClickHouse computes the series (trends-store.ts), trends-results.ts shapes them, and
 * the range and its buckets, in the environment's time zone, come from trends-window.ts.
 */
import { readPropertyFilters, type PropertyFilterInput } from './properties.js';
import { TrendsQueryError } from './query-error.js';
import { readBreakdownLimit, readDateRange, readEventBreakdown, readInterval } from './query-fields.js';
import { INTERVALS, type Interval, type TrendsWindow } from './trends-window.js';
import { isJsonObject } from '../lib/json-object.js';
import { isReadableCompareTo } from './core/compare-period.js';
import { SERIES_DISPLAYS, TOTAL_DISPLAYS, UNSUPPORTED_DISPLAYS } from '../posthog/trends-displays.js';

export { TrendsQueryError, INTERVALS, type Interval, type TrendsWindow };

/**
 * PostHog's math names: `total` counts events; `dau` counts unique persons, `weekly_active` and
 * `monthly_active` those of the trailing 7 and 30 days; `unique_session` counts sessions; the
 * others aggregate the number in `math_property`.
 */
export const MATHS = [
  'total',
  'dau',
  'weekly_active',
  'monthly_active',
  'unique_session',
  'sum',
  'avg',
  'min',
  'max',
  'median',
  'p75',
  'p90',
  'p95',
  'p99',
] as const;
export type TrendsMath = (typeof MATHS)[number];

/** Maths over a numeric event property. */
export const PROPERTY_MATHS = ['sum', 'avg', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const;

export interface TrendsSeries {
  /** null: all events. */
  event: string | null;
  name: string;
  customName: string | null;
  math: TrendsMath;
  /** The event property a property math aggregates; null otherwise (PostHog then counts events). */
  mathProperty: string | null;
  properties: PropertyFilterInput[];
}

export interface TrendsQuery {
  series: TrendsSeries[];
  interval: Interval;
  dateFrom: string;
  dateTo: string | null;
  properties: PropertyFilterInput[];
  breakdown: string | null;
  /** How many breakdown values are shown (the rest are summed as "other"). */
  breakdownLimit: number;
  /**
   * `trendsFilter.display` is one PostHog computes as one value per series over the whole range
   * (BoldNumber, ActionsPie, ActionsBarValue, ActionsTable, WorldMap): `aggregated_value`, no buckets.
   */
  totalValue: boolean;
  /**
   * `trendsFilter.display` is ActionsLineGraphCumulative: each bucket's value is the running sum up
   * to it; unique users count each person once, in the bucket of their first event in the range.
   */
  cumulative: boolean;
  /** `compareFilter`: null without a comparison; else the `compare_to` date (null: the previous period). */
  compare: { compareTo: string | null } | null;
}

function readMathProperty(raw: Record<string, unknown>, attr: (name: string) => string): string | null {
  const property = raw.math_property ?? null;
  if (property === null) return null;
  if (typeof property !== 'string') throw new TrendsQueryError('Not a valid string.', attr('math_property'));
  const type = raw.math_property_type ?? 'event_properties';
  if (type !== 'event_properties') throw new TrendsQueryError('Only event property math is supported.', attr('math_property_type'));
  // PostHog reads it from the sessions table, which Hoglet does not have.
  if (property === '$session_duration') throw new TrendsQueryError('Session duration math is not supported.', attr('math_property'));
  return property;
}

/** Reads an insight's `query`: an InsightVizNode wrapping a TrendsQuery, or the TrendsQuery itself. */
export function readTrendsQuery(query: unknown): TrendsQuery {
  const source = isJsonObject(query) && query.kind === 'InsightVizNode' ? query.source : query;
  const prefix = isJsonObject(query) && query.kind === 'InsightVizNode' ? 'source__' : '';
  if (!isJsonObject(source) || source.kind !== 'TrendsQuery') {
    throw new TrendsQueryError('Only TrendsQuery and FunnelsQuery insights are supported.', prefix ? 'query__source__kind' : 'query__kind');
  }
  const attr = (name: string) => `query__${prefix}${name}`;
  if (!Array.isArray(source.series) || source.series.length === 0) {
    throw new TrendsQueryError('A trends query needs at least one series.', attr('series'));
  }
  const series = source.series.map((raw, i): TrendsSeries => {
    if (!isJsonObject(raw) || raw.kind !== 'EventsNode') {
      throw new TrendsQueryError('Each series must be an EventsNode.', attr(`series__${i}__kind`));
    }
    const event = raw.event === undefined || raw.event === null ? null : raw.event;
    if (event !== null && typeof event !== 'string') throw new TrendsQueryError('Not a valid string.', attr(`series__${i}__event`));
    const math = raw.math ?? 'total';
    if (!(MATHS as readonly unknown[]).includes(math)) {
      throw new TrendsQueryError(`"${String(math)}" is not a valid choice.`, attr(`series__${i}__math`));
    }
    const mathProperty = readMathProperty(raw, (name) => attr(`series__${i}__${name}`));
    const propertyMath = (PROPERTY_MATHS as readonly string[]).includes(math as string);
    // Without its property a sum or percentile would be the event count under the math's name.
    if (propertyMath && mathProperty === null) {
      throw new TrendsQueryError(
        `The "${String(math)}" math needs math_property: the numeric event property it aggregates.`,
        attr(`series__${i}__math_property`),
      );
    }
    return {
      event,
      name: typeof raw.name === 'string' ? raw.name : (event ?? 'All events'),
      customName: typeof raw.custom_name === 'string' ? raw.custom_name : null,
      math: math as TrendsMath,
      mathProperty: propertyMath ? mathProperty : null,
      properties: readPropertyFilters(raw.properties, attr(`series__${i}__properties`)),
    };
  });
  const interval = readInterval(source, attr);
  const { dateFrom, dateTo } = readDateRange(source, attr);
  const breakdown = readEventBreakdown(source, attr);
  const compare = readCompareFilter(source, attr);
  const display = readDisplay(source, attr);
  const totalValue = display === 'total';
  return {
    series,
    interval,
    dateFrom,
    dateTo,
    properties: readPropertyFilters(source.properties, attr('properties')),
    breakdown,
    breakdownLimit: readBreakdownLimit(source, attr),
    totalValue,
    cumulative: display === 'cumulative',
    compare,
  };
}

/** `trendsFilter.display`: by interval (the default line graph), running sums by interval, or totals over the range. */
function readDisplay(source: Record<string, unknown>, attr: (name: string) => string): 'series' | 'cumulative' | 'total' {
  const filter = source.trendsFilter ?? null;
  if (filter === null) return 'series';
  if (!isJsonObject(filter)) throw new TrendsQueryError('Expected an object.', attr('trendsFilter'));
  const display = filter.display ?? null;
  if (display === null || SERIES_DISPLAYS.includes(display as string)) return 'series';
  if (display === 'ActionsLineGraphCumulative') return 'cumulative';
  if (TOTAL_DISPLAYS.includes(display as string)) return 'total';
  if (UNSUPPORTED_DISPLAYS.includes(display as string)) {
    throw new TrendsQueryError(`The ${String(display)} display is not supported.`, attr('trendsFilter__display'));
  }
  throw new TrendsQueryError(`"${String(display)}" is not a valid choice.`, attr('trendsFilter__display'));
}

/** `compareFilter`: `compare` a boolean, `compare_to` a date PostHog's relative_date_parse reads (`-1w`, …). */
function readCompareFilter(source: Record<string, unknown>, attr: (name: string) => string): TrendsQuery['compare'] {
  const filter = source.compareFilter ?? null;
  if (filter === null) return null;
  if (!isJsonObject(filter)) throw new TrendsQueryError('Expected an object.', attr('compareFilter'));
  const compare = filter.compare ?? false;
  if (typeof compare !== 'boolean') throw new TrendsQueryError('Must be a valid boolean.', attr('compareFilter__compare'));
  const compareTo = filter.compare_to ?? null;
  if (compareTo !== null && (typeof compareTo !== 'string' || !isReadableCompareTo(compareTo.trim()))) {
    throw new TrendsQueryError(
      `Unreadable compare_to "${String(compareTo)}": use a relative date such as -1d, -1w, -1m, -1q or -1y, or a date.`,
      attr('compareFilter__compare_to'),
    );
  }
  return compare ? { compareTo: compareTo === null ? null : compareTo.trim() } : null;
}
