/**
 * The trends view of a funnel (PostHog's FunnelTrends, posthog/hogql_queries/insights/funnels/
 * funnel_trends.py), as a pure core: the conversion rate per interval of the first step, shaped
 * from what ClickHouse counted (funnels-store.ts funnelTrends).
 *
 * A person enters a bucket when they do the first step in it, and counts once per bucket they
 * entered, by the furthest step of the attempts they started there: "from" when it reached step
 * `fromStep`, "to" when it also reached `toStep`, within the conversion window. Each bucket's value
 * is to / from as a percentage rounded to 2 decimals (0 when nobody reached `fromStep`); every
 * bucket of the range has one.
 */
import type { FunnelsQuery } from './funnels.js';
import { bucketIndex, type TrendsWindow } from './trends-window.js';

/** What ClickHouse counted for one bucket (its start, in Unix seconds) and breakdown value. */
export interface FunnelTrendsCell {
  breakdownValue: string | null;
  bucket: number;
  reachedFrom: number;
  reachedTo: number;
}

/**
 * PostHog's FunnelTrends entry: `count` is the number of buckets (its `len(summary)`), `data` the
 * conversion percentage per bucket, `days` its local date (with the time by hour), `labels` its
 * local day as `6-Oct-2025` whatever the interval; with a breakdown, `breakdown_value` as the
 * steps view gives it (one value in a list).
 */
export interface FunnelTrendsResult {
  count: number;
  data: number[];
  days: string[];
  labels: string[];
  breakdown_value?: string[];
}

/** ClickHouse's round(x, 2) of a Float64: x × 100 to the nearest integer, ties to even (nearbyint). */
function roundPercent(value: number): number {
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  const rest = scaled - floor;
  const whole = rest < 0.5 ? floor : rest > 0.5 ? floor + 1 : floor % 2 === 0 ? floor : floor + 1;
  return whole / 100;
}

/** PostHog's conversion_rate: round(to / from × 100, 2), 0 when nobody reached the from step. */
export function conversionRate(reachedFrom: number, reachedTo: number): number {
  return reachedFrom > 0 ? roundPercent((reachedTo / reachedFrom) * 100) : 0;
}

/**
 * The entries: one without a breakdown (zeros where nobody entered); with one, one per value
 * entered, the `breakdownLimit` values most entered kept (PostHog's ORDER BY the value's entries,
 * then the value, both descending), answered in the values' order, as its groupby sorts them.
 */
export function funnelTrendsResults(query: FunnelsQuery, window: TrendsWindow, cells: FunnelTrendsCell[]): FunnelTrendsResult[] {
  const starts = new Map(window.buckets.map((b, i) => [b.getTime(), i]));
  const slot = (seconds: number) => starts.get(seconds * 1000) ?? bucketIndex(window, seconds * 1000);
  const days = window.days;
  // PostHog's labels are the day alone ("%-d-%b-%Y"), hourly buckets too.
  const labels = window.labels.map((label) => label.split(' ')[0]!);
  const byValue = new Map<string, { from: number[]; to: number[]; entered: number }>();
  for (const cell of cells) {
    const key = query.breakdown === null ? '' : (cell.breakdownValue ?? '');
    let counts = byValue.get(key);
    if (!counts) byValue.set(key, (counts = { from: days.map(() => 0), to: days.map(() => 0), entered: 0 }));
    const i = slot(cell.bucket);
    if (i < 0) continue;
    counts.from[i]! += cell.reachedFrom;
    counts.to[i]! += cell.reachedTo;
    counts.entered += cell.reachedFrom;
  }
  const entry = (key: string): FunnelTrendsResult => {
    const counts = byValue.get(key);
    const data = days.map((_, i) => (counts ? conversionRate(counts.from[i]!, counts.to[i]!) : 0));
    return { count: days.length, data, days, labels };
  };
  if (query.breakdown === null) return [entry('')];
  const descending = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
  return [...byValue.entries()]
    .sort(([a, x], [b, y]) => y.entered - x.entered || descending(a, b))
    .slice(0, query.breakdownLimit)
    .map(([key]) => key)
    .sort((a, b) => descending(b, a))
    .map((key) => ({ ...entry(key), breakdown_value: [key] }));
}
