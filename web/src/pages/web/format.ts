/**
 * How the web analytics page says its numbers, and its filters kept in the address: `from`, `to`
 * (PostHog dates: `-7d`, `2025-11-10`), `path`, `country`, `device`.
 */
import type { PropertyFilter } from '../../api/types';
import type { WebOverviewItem, WebRange } from '../../api/web-analytics';

export const RANGES = [
  { value: '-24h', label: 'Last 24 hours' },
  { value: '-7d', label: 'Last 7 days' },
  { value: '-14d', label: 'Last 14 days' },
  { value: '-30d', label: 'Last 30 days' },
  { value: '-90d', label: 'Last 90 days' },
] as const;
export const DEFAULT_FROM = '-7d';

/**
 * The three filters every tile takes: the event property each sets, and the values to pick from
 * where the property has a fixed set (posthog-js's `$device_type`).
 */
export const FILTERS: readonly { param: string; key: string; label: string; options?: readonly string[] }[] = [
  { param: 'path', key: '$pathname', label: 'Path' },
  { param: 'country', key: '$geoip_country_code', label: 'Country code' },
  { param: 'device', key: '$device_type', label: 'Device type', options: ['Desktop', 'Mobile', 'Tablet'] },
];

export function readRange(params: URLSearchParams): WebRange {
  return { date_from: params.get('from') || DEFAULT_FROM, date_to: params.get('to') || null };
}

/** The dates PostHog reads (as the server does): `all`, `dStart`, `mStart`, `yStart`, `-7d`, a day or a time. */
const NAMED = ['all', 'dStart', 'mStart', 'yStart'];
const RELATIVE = /^-\d{1,5}[hdwmy]$/;
const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function readable(text: string): boolean {
  if (NAMED.includes(text) || RELATIVE.test(text)) return true;
  const m = ABSOLUTE.exec(text);
  if (!m) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v)));
  const check = new Date(Date.UTC(year!, month! - 1, day!));
  return check.getUTCMonth() === month! - 1 && check.getUTCDate() === day! && hour <= 23 && minute <= 59 && second <= 59;
}

/**
 * What is wrong with the range, said once for the whole page (every tile would be refused
 * alike), or null when the server can read it. Which field, for marking it.
 */
export function rangeProblem(range: WebRange): { field: 'from' | 'to'; message: string } | null {
  const from = range.date_from.trim();
  const to = range.date_to?.trim() ?? null;
  if (!readable(from))
    return { field: 'from', message: `"${from}" is not a date: use a day such as 2025-11-10, or -7d for the last 7 days.` };
  if (to !== null && !readable(to))
    return { field: 'to', message: `"${to}" is not a date: use a day such as 2025-11-10, or -7d for the last 7 days.` };
  // Days in the same form compare as text; a reversed range has no days to show.
  if (to !== null && ABSOLUTE.test(from) && ABSOLUTE.test(to) && to.slice(0, 10) < from.slice(0, 10)) {
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

/** A tile's value: counts in full, durations as `17s` / `2m 5s`, percentages to one decimal. */
export function formatTile(kind: WebOverviewItem['kind'], value: number | null): string {
  if (value === null) return '–';
  if (kind === 'percentage') return `${value.toFixed(1)}%`;
  if (kind === 'duration_s') {
    const seconds = Math.round(value);
    return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  }
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
