/**
 * The previous period a trends comparison reads (`compareFilter: {compare: true}`), as PostHog's
 * QueryPreviousPeriodDateRange and QueryCompareToDateRange compute it. Pure.
 *
 * PostHog does this arithmetic on the local wall clock, with an inclusive end one microsecond
 * before the exclusive one: wall times are held here as microseconds so its rounding rules (a
 * `replace()` of the time of day, the extra day of "-7d") come out the same.
 */
import { addMonths, DAY_MS, fromWall, HOUR_MS, toWall } from '../../lib/zoned-time.js';
import { parseTrendsDate, type Interval, type TrendsRange, type TrendsWindow } from '../trends-window.js';

const US = 1000;
const DAY = DAY_MS * US;
const HOUR = HOUR_MS * US;

const floorTo = (wall: number, unit: number) => Math.floor(wall / unit) * unit;
/** The date of `wall` with the time of day of `time` (Python's `replace(hour=…, minute=…, …)`). */
const withTimeOf = (wall: number, time: number) => floorTo(wall, DAY) + (time - floorTo(time, DAY));
/** The date and hour of `wall` with the minutes and below of `time`. */
const withMinutesOf = (wall: number, time: number) => floorTo(wall, HOUR) + (time - floorTo(time, HOUR));
const monthsBack = (wall: number, months: number) => addMonths(Math.floor(wall / US), -months) * US + (wall - floorTo(wall, US));

const COMPARE_TO = /^-(\d{1,5})([hdwqmy])$/;
const RELATIVE_DAYS = /^-(\d{1,5})d$/;
const ABSOLUTE = /^\d{4}-\d{2}-\d{2}/;

/** Whether PostHog reads `compare_to` as a date Hoglet can too: `-Nh`, `-Nd`, `-Nw`, `-Nq`, `-Nm`, `-Ny` or an absolute date. */
export function isReadableCompareTo(text: string): boolean {
  return COMPARE_TO.test(text) || (ABSOLUTE.test(text) && parseTrendsDate(text, new Date(0)) !== null);
}

/** `compare_to` read relative to the current period's start (wall µs), not truncated, as relative_date_parse does. */
function compareToStart(text: string, from: number, timezone: string): number {
  const m = COMPARE_TO.exec(text);
  if (!m) return toWall(parseTrendsDate(text, new Date(0), timezone)!.getTime(), timezone) * US;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'h':
      return from - n * HOUR;
    case 'd':
      return from - n * DAY;
    case 'w':
      return from - 7 * n * DAY;
    case 'q':
      return from - 13 * 7 * n * DAY; // PostHog's quarter: 13 weeks
    case 'm':
      return monthsBack(from, n);
    default:
      return monthsBack(from, 12 * n);
  }
}

export interface PreviousPeriod {
  from: Date;
  /** Exclusive. */
  to: Date;
}

/**
 * The period compared with `current`, the window `range` covers at `now`: the `compareTo` date on
 * when given, else the previous period of the same length (PostHog's get_compare_period_dates,
 * with its calendar-unit and "all" cases).
 */
export function previousPeriod(
  range: TrendsRange,
  current: Pick<TrendsWindow, 'from' | 'to' | 'timezone'>,
  now: Date,
  compareTo: string | null,
): PreviousPeriod {
  const tz = current.timezone;
  const wall = (d: Date) => toWall(d.getTime(), tz) * US;
  const parsedFrom = parseTrendsDate(range.dateFrom, now, tz) ?? now;
  // PostHog's date_from: the hour's start by hour, else the local day's (not the week's or month's).
  const from = range.interval === 'hour' || range.dateFrom === 'all' ? wall(current.from) : floorTo(wall(parsedFrom), DAY);
  const to = wall(current.to) - 1;
  const diff = to - from;
  let start: number;
  let end: number;
  if (compareTo !== null) {
    start = compareToStart(compareTo, from, tz);
    end = start + diff;
  } else if (range.dateTo === null && (range.dateFrom === 'mStart' || range.dateFrom === 'yStart')) {
    // "This month/year" so far is compared with the whole previous one.
    start = monthsBack(from, range.dateFrom === 'mStart' ? 1 : 12);
    end = from - 1;
  } else if (range.dateFrom === 'all') {
    end = from - 1;
    start = end - diff;
  } else {
    ({ start, end } = comparePeriodDates(from, to, range, range.interval));
  }
  const instant = (w: number) => new Date(fromWall(Math.ceil(w / US), tz));
  return { from: instant(start), to: instant(end + 1) };
}

/** PostHog's get_compare_period_dates, on inclusive wall times. */
function comparePeriodDates(from: number, to: number, range: TrendsRange, interval: Interval): { start: number; end: number } {
  const diff = to - from;
  if (interval === 'hour') {
    const start = withTimeOf(from - diff, from);
    return { start, end: withMinutesOf(start + diff, to) };
  }
  let start = withTimeOf(from - diff, from);
  // PostHog's kludge: "-7d" is 8 days long, so week-multiple day ranges start a day later.
  const days = RELATIVE_DAYS.exec(range.dateFrom);
  const relativeTo = range.dateTo !== null && !ABSOLUTE.test(range.dateTo.trim());
  if (interval === 'day' && days && Number(days[1]) > 0 && Number(days[1]) % 7 === 0 && !relativeTo) start += DAY;
  return { start, end: withTimeOf(start + diff, to) };
}

/** PostHog's marks on compared results: every entry `compare: true` and its period. */
export function labelPeriod<T extends object>(
  results: T[],
  period: 'current' | 'previous',
): Array<T & { compare: true; compare_label: string }> {
  return results.map((r) => ({ ...r, compare: true as const, compare_label: period }));
}
