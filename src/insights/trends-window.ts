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
import { readDateText, utcTime } from '../posthog/date-grammar.js';

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
  /** True when the range needs more than MAX_BUCKETS buckets: the window then stops short of its end. */
  cut: boolean;
}

export const MAX_BUCKETS = 5000;

/**
 * PostHog's relative dates (`-7d`, `-24h`, `-2w`, `-3m`, `-1y`, `dStart`, `mStart`, `yStart`,
 * `all`) and absolute ones (`2026-11-01`, ISO date-times), read in `timezone` at `now`. Relative
 * day/week/month/year dates are the start of that local day; `-Nh` the start of the local hour
 * N hours before now.
 * `all` goes back to the epoch (insights and web analytics start it at the first event: resolvedFrom
 * in service.ts). Null when unreadable.
 */
export function parseTrendsDate(value: string, now: Date, timezone = 'UTC'): Date | null {
  const date = readDateText(value);
  if (date === null) return null;
  const wallNow = toWall(now.getTime(), timezone);
  const today = wallDay(wallNow);
  const local = (wall: number) => new Date(fromWall(wall, timezone));
  if (date.kind === 'named') {
    switch (date.name) {
      case 'all':
        return new Date(0);
      case 'dStart':
        return local(today);
      case 'mStart':
        return local(today - (new Date(today).getUTCDate() - 1) * DAY_MS);
      case 'yStart':
        return local(Date.UTC(new Date(today).getUTCFullYear(), 0, 1));
    }
  }
  if (date.kind === 'relative') {
    const n = date.amount;
    switch (date.unit) {
      case 'h':
        return bucketStart(new Date(now.getTime() - n * HOUR_MS), 'hour', timezone);
      case 'd':
        return local(today - n * DAY_MS);
      case 'w':
        return local(today - n * 7 * DAY_MS);
      case 'm':
        return local(addMonths(today, -n));
      case 'y':
        return local(addMonths(today, -12 * n));
    }
  }
  const wall = utcTime(date.year, date.month, date.day, date.hour, date.minute, date.second, date.millisecond);
  return date.offsetMinutes === null ? local(wall) : new Date(wall - date.offsetMinutes * 60_000);
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
export function nextBucket(start: number, interval: Interval, timezone: string): number {
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

/** The start of the bucket `count` buckets before the one starting at `start` (local days, weeks, months; hours of elapsed time). */
export function bucketsBefore(start: Date, count: number, interval: Interval, timezone: string): Date {
  if (interval === 'hour') return new Date(start.getTime() - count * HOUR_MS);
  const wall = wallDay(toWall(start.getTime(), timezone));
  const back = interval === 'day' ? wall - count * DAY_MS : interval === 'week' ? wall - 7 * count * DAY_MS : addMonths(wall, -count);
  return new Date(fromWall(back, timezone));
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
  const date = text === null ? null : readDateText(text);
  const relative = text === null || date?.kind === 'relative' || (date?.kind === 'named' && date.name !== 'all');
  const bareDate = date?.kind === 'absolute' && !date.hasTime && date.offsetMinutes === null;
  if (range.interval === 'hour' && relative) return nextBucket(bucketStart(parsed, 'hour', timezone).getTime(), 'hour', timezone);
  if (range.interval === 'hour' && !bareDate) return parsed.getTime() + 1; // an explicit instant, inclusive
  return fromWall(wallDay(toWall(parsed.getTime(), timezone)) + DAY_MS, timezone);
}

/** The zone a range is read in (UTC when the environment's is missing or unknown) and its first day of a week. */
function zoneSettings(zone: TrendsZone): { timezone: string; weekStart: 0 | 1 } {
  return { timezone: effectiveTimezone(zone.timezone), weekStart: zone.weekStartDay === 1 ? 1 : 0 };
}

/**
 * What a window and its bounds share: the start of the bucket holding date_from and the exclusive
 * end of the range (before `from` when the range is backwards), in the environment's zone.
 */
function rangeBounds(range: TrendsRange, now: Date, zone: TrendsZone) {
  const { timezone, weekStart } = zoneSettings(zone);
  const from = bucketStart(parseTrendsDate(range.dateFrom, now, timezone) ?? now, range.interval, timezone, weekStart);
  return { from, to: rangeEnd(range, now, timezone), timezone, weekStart };
}

/**
 * The range a query covers at `now` in the environment's zone, cut into interval buckets.
 * A pure function of its arguments; at most 5000 buckets.
 */
export function trendsWindow(range: TrendsRange, now: Date, zone: TrendsZone = {}): TrendsWindow {
  const { from, to, timezone, weekStart } = rangeBounds(range, now, zone);
  return cutWindow(from.getTime(), to, range.interval, timezone, weekStart);
}

/**
 * The bounds of a range at `now` without its buckets, so with no cap on its length (a long `all`
 * spans more than 5000 days): what a total over the range, such as a web analytics tile, reads.
 */
export function trendsBounds(range: TrendsRange, now: Date, zone: TrendsZone = {}): { from: Date; to: Date; timezone: string } {
  const { from, to, timezone } = rangeBounds(range, now, zone);
  return { from, to: new Date(Math.max(to, from.getTime())), timezone };
}

/**
 * The buckets from the one holding `fromDate` up to `toDate` (exclusive), in the environment's
 * zone: the window of an explicit period, such as the previous one a comparison reads.
 */
export function windowBetween(fromDate: Date, toDate: Date, interval: Interval, zone: TrendsZone = {}): TrendsWindow {
  const { timezone, weekStart } = zoneSettings(zone);
  return cutWindow(bucketStart(fromDate, interval, timezone, weekStart).getTime(), toDate.getTime(), interval, timezone, weekStart);
}

/** The buckets from `first` (a bucket start) up to `to` (exclusive), at most 5000; none when `to` is not past `first`. */
function cutWindow(first: number, to: number, interval: Interval, timezone: string, weekStart: 0 | 1): TrendsWindow {
  const buckets: Date[] = [];
  let b = first;
  for (; b < to && buckets.length < MAX_BUCKETS; b = nextBucket(b, interval, timezone)) buckets.push(new Date(b));
  const names = buckets.map((start) => bucketNames(start.getTime(), interval, timezone));
  const from = buckets[0] ?? new Date(to);
  const end = buckets.length === MAX_BUCKETS ? b : to;
  return {
    cut: end < to,
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
