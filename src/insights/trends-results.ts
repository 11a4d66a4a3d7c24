/**
 * A trends series as PostHog answers it, from what ClickHouse computed for it (trends-store.ts):
 * one entry per series, or per breakdown value (the most frequent first, then "other"), each with
 * a value for every bucket of the window, 0 where ClickHouse had no row. Pure.
 */
import { bucketIndex, MAX_BUCKETS, type Interval, type TrendsWindow } from './trends-window.js';
import { TrendsQueryError } from './query-error.js';
import type { TrendsQuery, TrendsSeries } from './trends.js';

export const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
export const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';

export interface TrendsResult {
  action: Record<string, unknown>;
  label: string;
  /** 0 for a total-value display. */
  count: number;
  /** Empty for a total-value display. */
  data: number[];
  /** Absent for a total-value display. */
  labels?: string[];
  days: string[];
  /** A total-value display's one value over the range. */
  aggregated_value?: number;
  breakdown_value?: string;
  /** With `compareFilter.compare`: true, and which period the entry is of. */
  compare?: true;
  compare_label?: string;
}

/** One value ClickHouse computed: a bucket (its start, in Unix seconds) and breakdown value. */
export interface TrendsCell {
  bucket: number;
  value: string;
  total: number;
}

export interface SeriesCells {
  /** The breakdown values to show, in order (BREAKDOWN_OTHER last when there is one); null without a breakdown. */
  values: string[] | null;
  cells: TrendsCell[];
}

/** The bucket starting at `seconds` (ClickHouse's toStartOf… in the same zone gives the window's own starts). */
function bucketOf(window: TrendsWindow, starts: Map<number, number>, seconds: number): number {
  const ms = seconds * 1000;
  return starts.get(ms) ?? bucketIndex(window, Math.max(ms, window.from.getTime()));
}

/** The series' entries; `cumulative`: each bucket holds the running sum up to it (PostHog's ActionsLineGraphCumulative). */
export function seriesResults(
  series: TrendsSeries,
  order: number,
  window: TrendsWindow,
  computed: SeriesCells,
  cumulative = false,
): TrendsResult[] {
  const starts = new Map(window.buckets.map((b, i) => [b.getTime(), i]));
  const keys = computed.values ?? [''];
  const data = new Map(keys.map((key) => [key, new Array<number>(window.buckets.length).fill(0)]));
  for (const cell of computed.cells) {
    const row = data.get(cell.value);
    const i = bucketOf(window, starts, cell.bucket);
    // A value outside the shown ones: only read for the trailing days of weekly/monthly active users.
    if (row && i >= 0) row[i] = cell.total;
  }
  const base = { action: actionOf(series, order), labels: window.labels, days: window.days };
  const label = series.customName ?? series.name;
  return keys.map((key) => {
    const values = cumulative ? runningSums(data.get(key)!) : data.get(key)!;
    const result: TrendsResult = { ...base, label, count: sum(values), data: values };
    if (computed.values === null) return result;
    return { ...result, label: `${label} - ${key}`, breakdown_value: key };
  });
}

/**
 * A total-value display's entries (PostHog's `aggregate_values` series): one value per series or
 * breakdown value, `count` 0, no `data`, `days` or `labels` buckets.
 */
export function totalResults(series: TrendsSeries, order: number, computed: SeriesCells): TrendsResult[] {
  const totals = new Map(computed.cells.map((c) => [c.value, c.total]));
  const label = series.customName ?? series.name;
  const keys = computed.values ?? [''];
  return keys.map((key) => {
    const result: TrendsResult = {
      action: actionOf(series, order),
      label,
      count: 0,
      data: [],
      days: [],
      aggregated_value: totals.get(key) ?? 0,
    };
    if (computed.values === null) return result;
    return { ...result, label: `${label} - ${key}`, breakdown_value: key };
  });
}

function actionOf(series: TrendsSeries, order: number): Record<string, unknown> {
  return {
    id: series.event,
    type: 'events',
    order,
    name: series.name,
    custom_name: series.customName,
    math: series.math,
    math_property: series.mathProperty,
    properties: series.properties,
  };
}

const sum = (data: number[]) => data.reduce((a, b) => a + b, 0);

/**
 * PostHog's cumulative series: the running sum, each bucket after the first whose sum is not
 * positive showing the one before instead (its `arrayFill(x -> x > 0, …)`, which only a property
 * math over negative numbers can tell from a plain running sum).
 */
function runningSums(values: number[]): number[] {
  let total = 0;
  let shown = 0;
  return values.map((v, i) => {
    total += v;
    if (i === 0 || total > 0) shown = total;
    return shown;
  });
}

/**
 * The most values a trends answer may hold, counted before it is computed: its series, each
 * broken down into at most `breakdownLimit` values and "other", in one or two periods, by bucket.
 * Each value also carries its bucket's day and label, so this bounds an answer at tens of MB.
 */
export const MAX_TRENDS_VALUES = 1_000_000;

/**
 * Refuses a window cut short at MAX_BUCKETS buckets: its answer would leave out the range's most
 * recent part without saying so. A total over the range (`byDayOnly`) is read by day whatever the
 * interval, so only a shorter range helps it.
 */
export function checkWindowWhole(window: TrendsWindow, interval: Interval, byDayOnly = false): void {
  if (!window.cut) return;
  throw new TrendsQueryError(
    `This date range has more than ${MAX_BUCKETS.toLocaleString('en-US')} ${interval}s, the most an answer is cut into: use a shorter date range${byDayOnly ? '' : ' or a longer interval'}.`,
    'query__dateRange',
  );
}

/** Refuses a query whose answer could pass MAX_TRENDS_VALUES over `buckets` buckets a period. */
export function checkTrendsAnswerSize(
  query: Pick<TrendsQuery, 'breakdown' | 'breakdownLimit' | 'compare'> & { series: readonly unknown[] },
  buckets: number,
): void {
  const perSeries = query.breakdown === null ? 1 : query.breakdownLimit + 1;
  const periods = query.compare === null ? 1 : 2;
  const values = query.series.length * perSeries * periods * Math.max(buckets, 1);
  if (values <= MAX_TRENDS_VALUES) return;
  const parts = [
    `${query.series.length} series`,
    ...(perSeries > 1 ? [`${perSeries} breakdown values`] : []),
    ...(periods > 1 ? ['2 periods'] : []),
  ];
  throw new TrendsQueryError(
    `This query could answer ${values.toLocaleString('en-US')} values (${parts.join(' × ')} × ${buckets} intervals), more than ${MAX_TRENDS_VALUES.toLocaleString('en-US')}: use fewer series, a shorter date range or a longer interval.`,
    'query__series',
  );
}
