/**
 * How the web analytics page says its numbers, and its filters kept in the address: `from`, `to`
 * (PostHog dates: `-7d`, `2025-11-10`), `path`, `country`, `device`.
 */
import { readDateText } from '../../../../src/posthog/date-grammar';
import type { PropertyFilter } from '../../api/types';
import type { WebOverviewItem, WebRange } from '../../api/web-analytics';
import { DEFAULT_DATE_FROM } from '../../lib/date-range';
import { formatDuration } from '../../lib/format';

/**
 * The three filters every tile takes: the event property each sets, and the values to pick from
 * where the property has a fixed set (posthog-js's `$device_type`).
 */
export const FILTERS: readonly { param: string; key: string; label: string; options?: readonly string[] }[] = [
  { param: 'path', key: '$pathname', label: 'Path' },
  { param: 'country', key: '$geoip_country_code', label: 'Country code' },
  { param: 'device', key: '$device_type', label: 'Device type', options: ['Desktop', 'Mobile', 'Tablet'] },
];

/** The range in the address: `from` and `to`, or PostHog's own `date_from` and `date_to` (its shared links). */
export function readRange(params: URLSearchParams): WebRange {
  return {
    date_from: params.get('from') || params.get('date_from') || DEFAULT_DATE_FROM,
    date_to: params.get('to') || params.get('date_to') || null,
  };
}

const NOT_A_DATE = 'is not a date: use a day such as 2025-11-10, or -7d for the last 7 days.';

/**
 * What is wrong with the range, said once for the whole page (every tile would be refused
 * alike), or null when the server can read it (PostHog's date grammar, as the server reads it).
 * Which field, for marking it.
 */
export function rangeProblem(range: WebRange): { field: 'from' | 'to'; message: string } | null {
  const from = range.date_from.trim();
  const to = range.date_to?.trim() ?? null;
  const start = readDateText(from);
  const end = to === null ? null : readDateText(to);
  if (!start) return { field: 'from', message: `"${from}" ${NOT_A_DATE}` };
  if (to !== null && !end) return { field: 'to', message: `"${to}" ${NOT_A_DATE}` };
  // A reversed range has no days to show.
  const day = (d: { year: number; month: number; day: number }) => d.year * 10_000 + d.month * 100 + d.day;
  if (start.kind === 'absolute' && end?.kind === 'absolute' && day(end) < day(start)) {
    return { field: 'to', message: `The range ends (${to}) before it starts (${from}).` };
  }
  return null;
}

export function readProperties(params: URLSearchParams): PropertyFilter[] {
  return FILTERS.flatMap(({ param, key }) => {
    const value = params.get(param)?.trim();
    return value ? [{ key, operator: 'exact', value, type: 'event' as const }] : [];
  });
}

const number = new Intl.NumberFormat('en-US');

/** A tile's value: counts in full, durations as PostHog writes them (`17s`, `2m 5s`, `2h 49m`), percentages to one decimal. */
export function formatTile(kind: WebOverviewItem['kind'], value: number | null): string {
  if (value === null) return '–';
  if (kind === 'percentage') return `${value.toFixed(1)}%`;
  if (kind === 'duration_s') return formatDuration(value);
  return number.format(value);
}

export function formatCount(value: number): string {
  return number.format(value);
}

/** A web vital as PostHog shows it: LCP and FCP in seconds, INP in milliseconds, CLS unitless. */
export function formatVital(metric: string, value: number): string {
  if (metric === 'CLS') return value.toFixed(3);
  if (metric === 'INP') return `${Math.round(value)}ms`;
  return `${(value / 1000).toFixed(2)}s`;
}

export const TILE_LABELS: Record<string, string> = {
  visitors: 'Visitors',
  views: 'Page views',
  sessions: 'Sessions',
  'session duration': 'Session duration',
  'bounce rate': 'Bounce rate',
};
