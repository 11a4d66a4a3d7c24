/**
 * A trends query's date range cut into interval buckets, in the environment's time zone, as
 * PostHog's QueryDateRange does (posthog/hogql_queries/utils/query_date_range.py): relative dates
 * are read on the local wall clock, day/week/month buckets start at local midnight (weeks on the
 * environment's week_start_day: Monday when 1, else Sunday), the range runs through the end of
 * the local day of date_to (of the current hour for hourly relative ranges), and `days`/`labels`
 * name the buckets by their local date. Boundaries come out as UTC instants, so the store reads
 * with plain range conditions; DST days are simply 23 or 25 hours long.
 */
import { addMonths, DAY_MS, effectiveTimezone, fromWall, HOUR_MS, toWall, wallDay } from '../lib/zoned-time.js';

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface TrendsRange {
  interval: Interval;
  dateFrom: string;
  dateTo: string | null;
}

/** Where trends are computed: the environment's `timezone` and `week_start_day` settings, as stored. */
export interface TrendsZone {
  timezone?: unknown;
  weekStartDay?: unknown;
}

export interface TrendsWindow {
  /** Inclusive lower bound of the events to read: the first bucket's start. */
  from: Date;
  /** Exclusive upper bound. */
  to: Date;
  /** Bucket starts (UTC instants), ascending; bucket i ends where i + 1 starts (the last at `to`). */
  buckets: Date[];
  /** PostHog's `days` per bucket: local `YYYY-MM-DD`, or `YYYY-MM-DD HH:MM:SS` by hour. */
  days: string[];
  /** PostHog's `labels` per bucket: `21-Nov-2026`, or `21-Nov-2026 10:00` by hour. */
  labels: string[];
  /** The zone used (UTC when the environment's is missing or unknown). */
  timezone: string;
  /** The first day of a week: 0 Sunday, 1 Monday. */
  weekStart: 0 | 1;
}

/** PostHog's absolute dates: a bare date, or a date-time with or without an offset (read locally without). */
const ABSOLUTE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const RELATIVE = /^-(\d{1,5})([hdwmy])$/;
const MAX_BUCKETS = 5000;

/**
 * PostHog's relative dates (`-7d`, `-24h`, `-2w`, `-3m`, `-1y`, `dStart`, `mStart`, `yStart`,
 * `all`) and absolute ones (`2026-11-01`, ISO date-times), read in `timezone` at `now`. Relative
 * day/week/month/year dates are the start of that local day; `-Nh` the start of the local hour
 * N hours before now.
 * `all` goes back to the epoch (the insight answers start it at the first event). Null when unreadable.
 */
export function parseTrendsDate(value: string, now: Date, timezone = 'UTC'): Date | null {
  const text = value.trim();
  const wallNow = toWall(now.getTime(), timezone);
  const today = wallDay(wallNow);
  const local = (wall: number) => new Date(fromWall(wall, timezone));
  if (text === 'all') return new Date(0);
  if (text === 'dStart') return local(today);
  if (text === 'mStart') return local(today - (new Date(today).getUTCDate() - 1) * DAY_MS);
  if (text === 'yStart') return local(Date.UTC(new Date(today).getUTCFullYear(), 0, 1));
  const relative = RELATIVE.exec(text);
  if (relative) {
    const n = Number(relative[1]);
    switch (relative[2]) {
      case 'h':
        return bucketStart(new Date(now.getTime() - n * HOUR_MS), 'hour', timezone);
      case 'd':
        return local(today - n * DAY_MS);
      case 'w':
        return local(today - n * 7 * DAY_MS);
      case 'm':
        return local(addMonths(today, -n));
      default:
        return local(addMonths(today, -12 * n));
    }
  }
  const m = ABSOLUTE.exec(text);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v)));
  const wall = Date.UTC(year!, month! - 1, day!, hour, minute, second) + Math.floor(Number(`0${m[7] ?? ''}`) * 1000);
  const check = new Date(wall);
  if (check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day! || hour > 23 || minute > 59 || second > 59) return null;
  const zone = m[8];
  if (zone === undefined) return local(wall);
  if (zone === 'Z') return new Date(wall);
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return new Date(wall - sign * (Number(digits.slice(0, 2)) * HOUR_MS + Number(digits.slice(2)) * 60_000));
}

/** The wall-clock start of the local bucket holding wall time `wall`. */
function alignWall(wall: number, interval: Interval, weekStart: number): number {
  const day = wallDay(wall);
  switch (interval) {
    case 'hour':
      return Math.floor(wall / HOUR_MS) * HOUR_MS;
    case 'day':
      return day;
    case 'week':
      return day - ((new Date(day).getUTCDay() - weekStart + 7) % 7) * DAY_MS;
    case 'month':
      return day - (new Date(day).getUTCDate() - 1) * DAY_MS;
  }
}

/** The start (UTC instant) of the local bucket holding instant `t`. */
export function bucketStart(t: Date, interval: Interval, timezone = 'UTC', weekStart = 0): Date {
  const wall = toWall(t.getTime(), timezone);
  if (interval === 'hour') return new Date(t.getTime() - (wall - alignWall(wall, 'hour', weekStart)));
  return new Date(fromWall(alignWall(wall, interval, weekStart), timezone));
}

/** The start of the bucket after the one starting at instant `start`. */
function nextBucket(start: number, interval: Interval, timezone: string): number {
  if (interval === 'hour') {
    // Whole hours of elapsed time, realigned to the local hour (zones with half-hour DST shifts).
    const next = start + HOUR_MS;
    const wall = toWall(next, timezone);
    return next - (wall - Math.floor(wall / HOUR_MS) * HOUR_MS);
  }
  const wall = wallDay(toWall(start, timezone));
  const nextWall = interval === 'day' ? wall + DAY_MS : interval === 'week' ? wall + 7 * DAY_MS : addMonths(wall, 1);
  return fromWall(nextWall, timezone);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function bucketNames(start: number, interval: Interval, timezone: string): { day: string; label: string } {
  const wall = new Date(toWall(start, timezone));
  const iso = wall.toISOString();
  const human = `${wall.getUTCDate()}-${MONTHS[wall.getUTCMonth()]}-${wall.getUTCFullYear()}`;
  if (interval === 'hour') return { day: `${iso.slice(0, 10)} ${iso.slice(11, 19)}`, label: `${human} ${iso.slice(11, 16)}` };
  return { day: iso.slice(0, 10), label: human };
}

/** The exclusive end of the range: through the local day of date_to, or its hour for hourly relative ranges. */
function rangeEnd(range: TrendsRange, now: Date, timezone: string): number {
  const text = range.dateTo?.trim() ?? null;
  const parsed = text === null ? now : (parseTrendsDate(text, now, timezone) ?? now);
  const relative = text === null || RELATIVE.test(text) || ['dStart', 'mStart', 'yStart'].includes(text);
  const bareDate = text !== null && /^\d{4}-\d{2}-\d{2}$/.test(text);
  if (range.interval === 'hour' && relative) return nextBucket(bucketStart(parsed, 'hour', timezone).getTime(), 'hour', timezone);
  if (range.interval === 'hour' && !bareDate) return parsed.getTime() + 1; // an explicit instant, inclusive
  return fromWall(wallDay(toWall(parsed.getTime(), timezone)) + DAY_MS, timezone);
}

/**
 * The range a query covers at `now` in the environment's zone, cut into interval buckets.
 * A pure function of its arguments; at most 5000 buckets.
 */
export function trendsWindow(range: TrendsRange, now: Date, zone: TrendsZone = {}): TrendsWindow {
  const timezone = effectiveTimezone(zone.timezone);
  const fromDate = parseTrendsDate(range.dateFrom, now, timezone) ?? now;
  return windowBetween(fromDate, new Date(rangeEnd(range, now, timezone)), range.interval, zone);
}

/**
 * The buckets from the one holding `fromDate` up to `toDate` (exclusive), in the environment's
 * zone: the window of an explicit period, such as the previous one a comparison reads.
 */
export function windowBetween(fromDate: Date, toDate: Date, interval: Interval, zone: TrendsZone = {}): TrendsWindow {
  const timezone = effectiveTimezone(zone.timezone);
  const weekStart = zone.weekStartDay === 1 ? 1 : 0;
  const to = toDate.getTime();
  const buckets: Date[] = [];
  let b = bucketStart(fromDate, interval, timezone, weekStart).getTime();
  for (; b < to && buckets.length < MAX_BUCKETS; b = nextBucket(b, interval, timezone)) buckets.push(new Date(b));
  const names = buckets.map((start) => bucketNames(start.getTime(), interval, timezone));
  const from = buckets[0] ?? new Date(to);
  const end = buckets.length === MAX_BUCKETS ? b : to;
  return {
    from,
    to: new Date(Math.max(end, from.getTime())),
    buckets,
    days: names.map((n) => n.day),
    labels: names.map((n) => n.label),
    timezone,
    weekStart,
  };
}

/** The bucket holding instant `t` (ms), or -1 outside the window. Binary search over the starts. */
export function bucketIndex(window: TrendsWindow, t: number): number {
  if (t < window.from.getTime() || t >= window.to.getTime()) return -1;
  let lo = 0;
  let hi = window.buckets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (window.buckets[mid]!.getTime() <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
