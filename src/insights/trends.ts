/**
 * The trends insight, as a pure core: reading a PostHog TrendsQuery, then counting its events
 * per bucket into PostHog's result series (trends-counter.ts). The store feeds the events of the
 * range in pages; nothing here touches storage. The range and its buckets, in the environment's time
 * zone, come from trends-window.ts.
 */
import { readPropertyFilters, type PropertyFilterInput } from './properties.js';
import { TrendsQueryError } from './query-error.js';
import { TrendsCounter, BREAKDOWN_NULL, BREAKDOWN_OTHER } from './trends-counter.js';
import { INTERVALS, parseTrendsDate, type Interval, type TrendsWindow } from './trends-window.js';
import { isJsonObject } from '../lib/json-object.js';

export { TrendsQueryError, INTERVALS, TrendsCounter, BREAKDOWN_NULL, BREAKDOWN_OTHER, type Interval, type TrendsWindow };

/** PostHog's math names: `total` counts events, `dau` counts unique persons. */
export const MATHS = ['total', 'dau'] as const;
export type TrendsMath = (typeof MATHS)[number];

export interface TrendsSeries {
  /** null: all events. */
  event: string | null;
  name: string;
  customName: string | null;
  math: TrendsMath;
  properties: PropertyFilterInput[];
}

export interface TrendsQuery {
  series: TrendsSeries[];
  interval: Interval;
  dateFrom: string;
  dateTo: string | null;
  properties: PropertyFilterInput[];
  breakdown: string | null;
}

export interface TrendsEvent {
  event: string;
  distinctId: string;
  personId: string | null;
  properties: Record<string, unknown>;
  timestamp: string;
}

export interface TrendsResult {
  action: Record<string, unknown>;
  label: string;
  count: number;
  data: number[];
  labels: string[];
  days: string[];
  breakdown_value?: string;
}

/** Reads an insight's `query`: an InsightVizNode wrapping a TrendsQuery, or the TrendsQuery itself. */
export function readTrendsQuery(query: unknown): TrendsQuery {
  const source = isJsonObject(query) && query.kind === 'InsightVizNode' ? query.source : query;
  const prefix = isJsonObject(query) && query.kind === 'InsightVizNode' ? 'source__' : '';
  if (!isJsonObject(source) || source.kind !== 'TrendsQuery') {
    throw new TrendsQueryError('Only TrendsQuery insights are supported.', prefix ? 'query__source__kind' : 'query__kind');
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
    return {
      event,
      name: typeof raw.name === 'string' ? raw.name : (event ?? 'All events'),
      customName: typeof raw.custom_name === 'string' ? raw.custom_name : null,
      math: math as TrendsMath,
      properties: readPropertyFilters(raw.properties, attr(`series__${i}__properties`)),
    };
  });
  const interval = source.interval ?? 'day';
  if (!(INTERVALS as readonly unknown[]).includes(interval)) {
    throw new TrendsQueryError(`"${String(interval)}" is not a valid choice.`, attr('interval'));
  }
  const range = isJsonObject(source.dateRange) ? source.dateRange : {};
  const dateFrom = range.date_from ?? '-7d';
  const dateTo = range.date_to ?? null;
  if (typeof dateFrom !== 'string' || parseTrendsDate(dateFrom, new Date()) === null) {
    throw new TrendsQueryError(`Unreadable date_from "${String(dateFrom)}".`, attr('dateRange__date_from'));
  }
  if (dateTo !== null && (typeof dateTo !== 'string' || parseTrendsDate(dateTo, new Date()) === null)) {
    throw new TrendsQueryError(`Unreadable date_to "${String(dateTo)}".`, attr('dateRange__date_to'));
  }
  const breakdownFilter = isJsonObject(source.breakdownFilter) ? source.breakdownFilter : {};
  const breakdown = breakdownFilter.breakdown ?? null;
  if (breakdown !== null && typeof breakdown !== 'string') {
    throw new TrendsQueryError('Only a single event property breakdown is supported.', attr('breakdownFilter__breakdown'));
  }
  if (breakdown !== null && (breakdownFilter.breakdown_type ?? 'event') !== 'event') {
    throw new TrendsQueryError('Only event property breakdowns are supported.', attr('breakdownFilter__breakdown_type'));
  }
  return {
    series,
    interval: interval as Interval,
    dateFrom,
    dateTo,
    properties: readPropertyFilters(source.properties, attr('properties')),
    breakdown,
  };
}

/** Event names the store must read; null when a series counts all events. */
export function eventNamesOf(query: TrendsQuery): string[] | null {
  if (query.series.some((s) => s.event === null)) return null;
  return [...new Set(query.series.map((s) => s.event as string))];
}

/** The event property keys a query reads (filters and breakdown): the store reads only these. */
export function propertyKeysOf(query: TrendsQuery): string[] {
  const keys = new Set<string>();
  for (const filter of query.properties) keys.add(filter.key);
  for (const series of query.series) for (const filter of series.properties) keys.add(filter.key);
  if (query.breakdown !== null) keys.add(query.breakdown);
  return [...keys];
}

/** PostHog's trends result of these events: one entry per series (per breakdown value when broken down). */
export function computeTrends(query: TrendsQuery, events: readonly TrendsEvent[], window: TrendsWindow): TrendsResult[] {
  const counter = new TrendsCounter(query, window);
  for (const event of events) counter.add(event);
  return counter.results();
}
