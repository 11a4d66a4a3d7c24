/**
 * `GET /api/environments/:id/web_vitals/?pathname=` as PostHog answers it for the toolbar: a trends query
 * over the last 7 days, weekly interval, four series on `$web_vitals` with `math: "p90"` over
 * `$web_vitals_{INP,LCP,CLS,FCP}_value`, filtered by `$pathname` (exact match after path cleaning).
 *
 * Percentile: ClickHouse `quantile(0.9)`, which on the small samples involved is the linearly interpolated
 * quantile at position `(n - 1) * 0.9` of the sorted values (8 values 50…400 step 50 → 365).
 * Weeks with no value give 0; with no data at all the four series are still returned, all zeros.
 */
import { compileClickHouseRegex } from '../../lib/linear-regex.js';
import { isJsonObject } from '../../lib/json-object.js';
import { type ErrorEnvelope, validationEnvelope } from '../../posthog/errors.js';

export const WEB_VITALS_EVENT = '$web_vitals';
export const WEB_VITALS_METRICS = ['INP', 'LCP', 'CLS', 'FCP'] as const;
export type WebVitalsMetric = (typeof WEB_VITALS_METRICS)[number];
export const WEB_VITALS_QUANTILE = 0.9;
const DAY_MS = 86_400_000;

export interface WebVitalsEventInput {
  event?: string;
  /** ISO string, epoch milliseconds or Date. */
  timestamp: string | number | Date;
  properties: Record<string, unknown>;
}

/** One of a team's `path_cleaning_filters`: `replaceRegexpAll(path, regex, alias)`. */
export interface PathCleaningFilter {
  regex: string;
  alias: string;
}

export interface WebVitalsOptions {
  pathname: string;
  /** Defaults to the current time. */
  now?: Date;
  /** Team `week_start_day`: 0 = Sunday (PostHog default), 1 = Monday. */
  weekStartDay?: 0 | 1;
  pathCleaningFilters?: readonly PathCleaningFilter[];
}

export interface WebVitalsAction {
  id: string;
  type: 'events';
  order: number;
  name: WebVitalsMetric;
  custom_name: WebVitalsMetric;
  math: 'p90';
  math_property: string;
  math_hogql: null;
  math_group_type_index: null;
  properties: Record<string, never>;
}

export interface WebVitalsSeries {
  action: WebVitalsAction;
  label: WebVitalsMetric;
  count: number;
  data: number[];
  labels: string[];
  days: string[];
}

export interface WebVitalsResponse {
  results: WebVitalsSeries[];
  is_cached: boolean;
  last_refresh: string;
  next_allowed_client_refresh: string;
  cache_key: string;
  timezone: string;
  hogql: string;
  timings: unknown[];
  modifiers: Record<string, unknown>;
  resolved_date_range: { date_from: string; date_to: string };
  query_status: null;
}

export type WebVitalsQueryCheck = { ok: true; pathname: string } | { ok: false; status: 400; body: ErrorEnvelope };

/** Validates the query string: `pathname` is required (newer PostHog answers this 400). */
export function checkWebVitalsQuery(query: Record<string, unknown>): WebVitalsQueryCheck {
  const raw = query['pathname'];
  const pathname = Array.isArray(raw) ? raw[0] : raw;
  if (typeof pathname !== 'string' || pathname === '') {
    return {
      ok: false,
      status: 400,
      body: validationEnvelope('This field is required.', 'pathname'),
    };
  }
  return { ok: true, pathname };
}

/** ClickHouse `quantile(level)` for an exact sample: linear interpolation between closest ranks. */
export function quantileLinear(values: readonly number[], level: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * level;
  const lower = Math.floor(position);
  const upper = Math.min(lower + 1, sorted.length - 1);
  const weight = position - lower;
  const a = sorted[lower]!;
  const b = sorted[upper]!;
  return a + (b - a) * weight;
}

/** Applies the team's path cleaning rules in order. Invalid regexes are skipped. */
export function cleanPath(path: string, filters: readonly PathCleaningFilter[] = []): string {
  let out = path;
  for (const filter of filters) {
    if (!filter || typeof filter.regex !== 'string') continue;
    // ClickHouse's replaceRegexpAll: RE2 (linear time), `\1` for a group in the alias.
    const regex = compileClickHouseRegex(filter.regex);
    if (regex) out = regex.replaceAll(out, String(filter.alias ?? ''));
  }
  return out;
}

function pathnameOf(properties: Record<string, unknown>): string | undefined {
  const direct = properties['$pathname'];
  if (typeof direct === 'string') return direct;
  const url = properties['$current_url'];
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

function toMillis(ts: string | number | Date): number {
  if (ts instanceof Date) return ts.getTime();
  if (typeof ts === 'number') return ts;
  return Date.parse(ts);
}

/** HogQL `toFloat` of a property value: finite numbers and numeric strings. */
function numericValue(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function startOfDayUtc(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function startOfWeekUtc(ms: number, weekStartDay: 0 | 1): number {
  const day = startOfDayUtc(ms);
  const weekday = new Date(day).getUTCDay(); // 0 = Sunday
  const back = (weekday - weekStartDay + 7) % 7;
  return day - back * DAY_MS;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function label(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()}`;
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Computes the web vitals response from `$web_vitals` events (events with another `event` name are
 * ignored; events without `event` are assumed to be `$web_vitals`). UTC only.
 */
export function computeWebVitals(events: Iterable<WebVitalsEventInput>, options: WebVitalsOptions): WebVitalsResponse {
  const samples = new WebVitalsSamples(options);
  for (const event of events) samples.add(event);
  return samples.response();
}

/** The weeks and the path a web vitals answer covers. */
export interface WebVitalsWindow {
  now: number;
  weekStartDay: 0 | 1;
  pathCleaningFilters: readonly PathCleaningFilter[];
  /** Start of the day 7 days back, and the last millisecond of today (UTC, epoch ms). */
  dateFrom: number;
  dateTo: number;
  /** The path asked for, cleaned. */
  target: string;
  /** The start of each week in the range (epoch ms). */
  weeks: number[];
}

export function webVitalsWindow(options: WebVitalsOptions): WebVitalsWindow {
  const now = (options.now ?? new Date()).getTime();
  const weekStartDay = options.weekStartDay ?? 0;
  const pathCleaningFilters = options.pathCleaningFilters ?? [];
  const dateFrom = startOfDayUtc(now - 7 * DAY_MS);
  const dateTo = startOfDayUtc(now) + DAY_MS - 1;
  const weeks: number[] = [];
  for (let w = startOfWeekUtc(dateFrom, weekStartDay); w <= dateTo; w += 7 * DAY_MS) weeks.push(w);
  return { now, weekStartDay, pathCleaningFilters, dateFrom, dateTo, target: cleanPath(options.pathname, pathCleaningFilters), weeks };
}

/** The answer, from each metric's p90 of each week of the window (`p90(metric, weekIndex)`). */
export function webVitalsResponse(window: WebVitalsWindow, p90: (metric: WebVitalsMetric, week: number) => number): WebVitalsResponse {
  const { now, dateFrom, dateTo, target, weeks } = window;
  const results: WebVitalsSeries[] = WEB_VITALS_METRICS.map((metric, order) => {
    const data = weeks.map((_, week) => p90(metric, week));
    return {
      action: {
        id: WEB_VITALS_EVENT,
        type: 'events',
        order,
        name: metric,
        custom_name: metric,
        math: 'p90',
        math_property: `$web_vitals_${metric}_value`,
        math_hogql: null,
        math_group_type_index: null,
        properties: {},
      },
      label: metric,
      count: data.reduce((a, b) => a + b, 0),
      data,
      labels: weeks.map(label),
      days: weeks.map(isoDay),
    };
  });

  const nowIso = new Date(now).toISOString();
  return {
    results,
    is_cached: false,
    last_refresh: nowIso,
    next_allowed_client_refresh: new Date(now + 60_000).toISOString(),
    cache_key: `web_vitals_${target}_${isoDay(now)}`,
    timezone: 'UTC',
    hogql: '',
    timings: [],
    modifiers: {},
    resolved_date_range: { date_from: new Date(dateFrom).toISOString(), date_to: new Date(dateTo).toISOString() },
    query_status: null,
  };
}

/** computeWebVitals fed an event at a time: only each metric's values per week are kept, never the events. */
export class WebVitalsSamples {
  private readonly window: WebVitalsWindow;
  private readonly samples = new Map<WebVitalsMetric, number[][]>();

  constructor(options: WebVitalsOptions) {
    this.window = webVitalsWindow(options);
    for (const metric of WEB_VITALS_METRICS)
      this.samples.set(
        metric,
        this.window.weeks.map(() => []),
      );
  }

  add(event: WebVitalsEventInput): void {
    const { dateFrom, dateTo, pathCleaningFilters, target, weekStartDay, weeks } = this.window;
    if (event.event !== undefined && event.event !== WEB_VITALS_EVENT) return;
    if (!isJsonObject(event.properties)) return;
    const ts = toMillis(event.timestamp);
    if (!Number.isFinite(ts) || ts < dateFrom || ts > dateTo) return;
    const path = pathnameOf(event.properties);
    if (path === undefined || cleanPath(path, pathCleaningFilters) !== target) return;
    const bucket = Math.floor((startOfWeekUtc(ts, weekStartDay) - weeks[0]!) / (7 * DAY_MS));
    for (const metric of WEB_VITALS_METRICS) {
      const value = numericValue(event.properties[`$web_vitals_${metric}_value`]);
      if (value !== undefined) this.samples.get(metric)![bucket]!.push(value);
    }
  }

  response(): WebVitalsResponse {
    return webVitalsResponse(this.window, (metric, week) => quantileLinear(this.samples.get(metric)![week]!, WEB_VITALS_QUANTILE));
  }
}
