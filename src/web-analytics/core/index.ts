/**
 * Web analytics, the pure part: the period a query covers and the one before it, the overview
 * tiles in PostHog's shape (WebOverviewItem), and web vitals thresholds (PostHog's, Google's).
 */

export interface Period {
  from: Date;
  /** Exclusive. */
  to: Date;
}

/** The previous period: as long as the current one, ending where it starts (PostHog's compare to previous). */
export function previousPeriod(current: Period): Period {
  const length = current.to.getTime() - current.from.getTime();
  return { from: new Date(current.from.getTime() - length), to: new Date(current.from.getTime()) };
}

export type OverviewKind = 'unit' | 'duration_s' | 'percentage';

export interface WebOverviewItem {
  key: string;
  kind: OverviewKind;
  value: number | null;
  previous: number | null;
  changeFromPreviousPct: number | null;
  isIncreaseBad?: boolean;
}

/** PostHog's `to_data`: percentages as 0–100, the change rounded to a whole percent, none from zero. */
export function overviewItem(
  key: string,
  kind: OverviewKind,
  value: number | null,
  previous: number | null,
  isIncreaseBad?: boolean,
): WebOverviewItem {
  const scale = (v: number | null) => (v === null || !Number.isFinite(v) ? null : kind === 'percentage' ? v * 100 : v);
  const now = scale(value);
  const before = scale(previous);
  const change = now !== null && before !== null && before !== 0 ? Math.round((100 * (now - before)) / before) : null;
  return {
    key,
    kind,
    value: now,
    previous: before,
    changeFromPreviousPct: change,
    ...(isIncreaseBad === undefined ? {} : { isIncreaseBad }),
  };
}

export interface OverviewCounts {
  visitors: number;
  views: number;
  sessions: number;
  /** Average seconds; null without sessions. */
  duration: number | null;
  /** Share of bounced sessions, 0–1; null without sessions. */
  bounceRate: number | null;
}

/** The five tiles, in PostHog's order and keys; `previous` null when not compared. */
export function overviewResults(current: OverviewCounts, previous: OverviewCounts | null): WebOverviewItem[] {
  return [
    overviewItem('visitors', 'unit', current.visitors, previous?.visitors ?? null),
    overviewItem('views', 'unit', current.views, previous?.views ?? null),
    overviewItem('sessions', 'unit', current.sessions, previous?.sessions ?? null),
    overviewItem('session duration', 'duration_s', current.duration, previous?.duration ?? null),
    overviewItem('bounce rate', 'percentage', current.bounceRate, previous?.bounceRate ?? null, true),
  ];
}

export const VITALS_METRICS = ['LCP', 'INP', 'CLS', 'FCP'] as const;
export type VitalsMetric = (typeof VITALS_METRICS)[number];
export const VITALS_PERCENTILES = { p75: 0.75, p90: 0.9, p99: 0.99 } as const;
export type VitalsPercentile = keyof typeof VITALS_PERCENTILES;

/** [good up to, needs improvement up to] per metric: milliseconds, CLS unitless (PostHog's WEB_VITALS_THRESHOLDS). */
export const VITALS_THRESHOLDS: Readonly<Record<VitalsMetric, readonly [number, number]>> = {
  LCP: [2500, 4000],
  INP: [200, 500],
  CLS: [0.1, 0.25],
  FCP: [1800, 3000],
};

export type VitalsBand = 'good' | 'needs_improvements' | 'poor';

/** The band of a value: good at or under the first threshold, poor over the second. */
export function vitalsBand(value: number, thresholds: readonly [number, number]): VitalsBand {
  if (value <= thresholds[0]) return 'good';
  if (value <= thresholds[1]) return 'needs_improvements';
  return 'poor';
}

export interface PathValue {
  path: string;
  value: number;
}

/** PostHog's WebVitalsPathBreakdownResult: paths in each band, the worst first. */
export function vitalsBreakdown(rows: readonly PathValue[], thresholds: readonly [number, number]): Record<VitalsBand, PathValue[]> {
  const bands: Record<VitalsBand, PathValue[]> = { good: [], needs_improvements: [], poor: [] };
  const sorted = [...rows].sort((a, b) => b.value - a.value || a.path.localeCompare(b.path));
  for (const row of sorted) bands[vitalsBand(row.value, thresholds)].push(row);
  return bands;
}
