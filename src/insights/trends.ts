/**
 * The trends insight, as a pure core: reading a PostHog TrendsQuery, resolving its date range
 * into interval buckets, matching event properties and shaping PostHog's result series. The
 * store hands in the events of the range; nothing here touches storage. All dates are UTC.
 */
import { matchesProperties, readPropertyFilters, type PropertyFilterInput } from './properties.js';
import { TrendsQueryError } from './query-error.js';

export { TrendsQueryError };

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads an insight's `query`: an InsightVizNode wrapping a TrendsQuery, or the TrendsQuery itself. */
export function readTrendsQuery(query: unknown): TrendsQuery {
  const source = isObject(query) && query.kind === 'InsightVizNode' ? query.source : query;
  const prefix = isObject(query) && query.kind === 'InsightVizNode' ? 'source__' : '';
  if (!isObject(source) || source.kind !== 'TrendsQuery') {
    throw new TrendsQueryError('Only TrendsQuery insights are supported.', prefix ? 'query__source__kind' : 'query__kind');
  }
  const attr = (name: string) => `query__${prefix}${name}`;
  if (!Array.isArray(source.series) || source.series.length === 0) {
    throw new TrendsQueryError('A trends query needs at least one series.', attr('series'));
  }
  const series = source.series.map((raw, i): TrendsSeries => {
    if (!isObject(raw) || raw.kind !== 'EventsNode') {
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
  const range = isObject(source.dateRange) ? source.dateRange : {};
  const dateFrom = range.date_from ?? '-7d';
  const dateTo = range.date_to ?? null;
  if (typeof dateFrom !== 'string' || parseRelativeDate(dateFrom, new Date()) === null) {
    throw new TrendsQueryError(`Unreadable date_from "${String(dateFrom)}".`, attr('dateRange__date_from'));
  }
  if (dateTo !== null && (typeof dateTo !== 'string' || parseRelativeDate(dateTo, new Date()) === null)) {
    throw new TrendsQueryError(`Unreadable date_to "${String(dateTo)}".`, attr('dateRange__date_to'));
  }
  const breakdownFilter = isObject(source.breakdownFilter) ? source.breakdownFilter : {};
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

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/**
 * PostHog's relative dates (`-7d`, `-24h`, `-2w`, `-3m`, `-1y`, `dStart`, `mStart`, `yStart`,
 * `all`) and absolute ones (`2026-11-01`, ISO date-times). Relative day/week/month/year ranges
 * start at the beginning of that day, as PostHog's do. `all` goes back to the epoch.
 */
export function parseRelativeDate(value: string, now: Date): Date | null {
  const text = value.trim();
  const startOfDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  if (text === 'all') return new Date(0);
  if (text === 'dStart') return startOfDay(now);
  if (text === 'mStart') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  if (text === 'yStart') return new Date(Date.UTC(now.getUTCFullYear(), 0, 1));
  const relative = /^-(\d{1,5})([hdwmy])$/.exec(text);
  if (relative) {
    const n = Number(relative[1]);
    const unit = relative[2] as 'h' | 'd' | 'w' | 'm' | 'y';
    if (unit === 'h') return new Date(Math.floor((now.getTime() - n * UNIT_MS.h) / UNIT_MS.h) * UNIT_MS.h);
    if (unit === 'd' || unit === 'w') return startOfDay(new Date(now.getTime() - n * UNIT_MS[unit]));
    const d = startOfDay(now);
    if (unit === 'm') d.setUTCMonth(d.getUTCMonth() - n);
    else d.setUTCFullYear(d.getUTCFullYear() - n);
    return d;
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const d = new Date(text.length === 10 ? `${text}T00:00:00Z` : /Z|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

/** The start of the interval bucket holding `d` (weeks start on Sunday, PostHog's default). */
export function bucketStart(d: Date, interval: Interval): Date {
  const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  switch (interval) {
    case 'hour':
      return new Date(Math.floor(d.getTime() / UNIT_MS.h) * UNIT_MS.h);
    case 'day':
      return new Date(day);
    case 'week':
      return new Date(day - d.getUTCDay() * UNIT_MS.d);
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  }
}

function nextBucket(d: Date, interval: Interval): Date {
  if (interval === 'hour') return new Date(d.getTime() + UNIT_MS.h);
  if (interval === 'day') return new Date(d.getTime() + UNIT_MS.d);
  if (interval === 'week') return new Date(d.getTime() + UNIT_MS.w);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** PostHog's `days` (machine) and `labels` (human) for a bucket. */
function bucketNames(d: Date, interval: Interval): { day: string; label: string } {
  const iso = d.toISOString();
  const human = `${d.getUTCDate()}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()}`;
  if (interval === 'hour') return { day: `${iso.slice(0, 10)} ${iso.slice(11, 19)}`, label: `${human} ${iso.slice(11, 16)}` };
  return { day: iso.slice(0, 10), label: human };
}

export interface TrendsWindow {
  /** Inclusive lower bound of the events to read. */
  from: Date;
  /** Exclusive upper bound. */
  to: Date;
  buckets: Date[];
}

/** The range the query covers at `now`, cut into interval buckets. */
export function trendsWindow(query: TrendsQuery, now: Date): TrendsWindow {
  const from = bucketStart(parseRelativeDate(query.dateFrom, now) ?? now, query.interval);
  const toDate = query.dateTo === null ? now : (parseRelativeDate(query.dateTo, now) ?? now);
  // A bare date as date_to means "through that day".
  const to = query.dateTo !== null && /^\d{4}-\d{2}-\d{2}$/.test(query.dateTo.trim()) ? new Date(toDate.getTime() + UNIT_MS.d) : toDate;
  const buckets: Date[] = [];
  for (let b = from; b.getTime() < to.getTime() && buckets.length < 5000; b = nextBucket(b, query.interval)) buckets.push(b);
  const end = query.dateTo === null ? nextBucket(bucketStart(now, query.interval), query.interval) : to;
  return { from, to: end, buckets };
}

/** Event names the store must read; null when a series counts all events. */
export function eventNamesOf(query: TrendsQuery): string[] | null {
  if (query.series.some((s) => s.event === null)) return null;
  return [...new Set(query.series.map((s) => s.event as string))];
}

export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
const BREAKDOWN_LIMIT = 25;

function breakdownValue(event: TrendsEvent, key: string): string {
  const value = event.properties[key];
  if (value === undefined || value === null || value === '') return BREAKDOWN_NULL;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Counts per bucket (events, or distinct persons for `dau`). */
function countSeries(events: TrendsEvent[], series: TrendsSeries, window: TrendsWindow, interval: Interval): number[] {
  const index = new Map(window.buckets.map((b, i) => [b.getTime(), i]));
  const totals = new Array<number>(window.buckets.length).fill(0);
  const persons = window.buckets.map(() => new Set<string>());
  for (const event of events) {
    const i = index.get(bucketStart(new Date(event.timestamp), interval).getTime());
    if (i === undefined) continue;
    if (series.math === 'dau') persons[i]!.add(event.personId ?? event.distinctId);
    else totals[i]! += 1;
  }
  return series.math === 'dau' ? persons.map((s) => s.size) : totals;
}

/** PostHog's trends result: one entry per series (per breakdown value when broken down). */
export function computeTrends(query: TrendsQuery, events: readonly TrendsEvent[], window: TrendsWindow): TrendsResult[] {
  const names = window.buckets.map((b) => bucketNames(b, query.interval));
  const inRange = events.filter((e) => {
    const t = new Date(e.timestamp).getTime();
    return t >= window.from.getTime() && t < window.to.getTime() && matchesProperties(e.properties, query.properties);
  });
  const results: TrendsResult[] = [];
  query.series.forEach((series, order) => {
    const matching = inRange.filter(
      (e) => (series.event === null || e.event === series.event) && matchesProperties(e.properties, series.properties),
    );
    const action = {
      id: series.event,
      type: 'events',
      order,
      name: series.name,
      custom_name: series.customName,
      math: series.math,
      math_property: null,
      properties: series.properties,
    };
    const base = { action, labels: names.map((n) => n.label), days: names.map((n) => n.day) };
    const label = series.customName ?? series.name;
    if (query.breakdown === null) {
      const data = countSeries(matching, series, window, query.interval);
      results.push({ ...base, label, count: data.reduce((a, b) => a + b, 0), data });
      return;
    }
    const groups = new Map<string, TrendsEvent[]>();
    for (const e of matching) {
      const value = breakdownValue(e, query.breakdown);
      groups.set(value, [...(groups.get(value) ?? []), e]);
    }
    const ranked = [...groups.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    const kept = ranked.slice(0, BREAKDOWN_LIMIT);
    const rest = ranked.slice(BREAKDOWN_LIMIT).flatMap(([, list]) => list);
    if (rest.length) kept.push([BREAKDOWN_OTHER, rest]);
    for (const [value, list] of kept) {
      const data = countSeries(list, series, window, query.interval);
      results.push({ ...base, label: `${label} - ${value}`, count: data.reduce((a, b) => a + b, 0), data, breakdown_value: value });
    }
  });
  return results;
}
