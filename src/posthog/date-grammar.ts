/**
 * PostHog's date texts, as its query date ranges take them: named dates (`all`, `dStart`,
 * `mStart`, `yStart`), relative ones (`-24h`, `-7d`, `-2w`, `-3m`, `-1y`) and absolute ones (a day
 * `2025-11-10`, or an ISO date-time with or without an offset). Only the grammar: what a text says,
 * not which instant it is (that needs a time zone and a clock: src/insights/trends-window.ts).
 *
 * Imports nothing: the web app reads the same grammar from here (eslint.config.js allows it).
 */

export const NAMED_DATES = ['all', 'dStart', 'mStart', 'yStart'] as const;
export type NamedDate = (typeof NAMED_DATES)[number];
export const RELATIVE_DATE = /^-(\d{1,5})([hdwmy])$/;
export const ABSOLUTE_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

export type RelativeUnit = 'h' | 'd' | 'w' | 'm' | 'y';

export interface AbsoluteDate {
  kind: 'absolute';
  year: number;
  /** 1–12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Whether a time of day was written (`2025-11-10` has none). */
  hasTime: boolean;
  /** Minutes east of UTC when written (`Z` is 0); null for a local (wall clock) date. */
  offsetMinutes: number | null;
}

export type DateText = { kind: 'named'; name: NamedDate } | { kind: 'relative'; amount: number; unit: RelativeUnit } | AbsoluteDate;

/**
 * Milliseconds since the epoch of a UTC calendar time, out-of-range parts carried as Date.UTC
 * carries them; unlike Date.UTC, years 0–99 are those years, not 1900–1999.
 */
export function utcTime(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millisecond = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millisecond);
  return date.getTime();
}

function isNamed(text: string): text is NamedDate {
  return (NAMED_DATES as readonly string[]).includes(text);
}

/** What a date text says (surrounding spaces ignored), or null when it is none, such as `2025-11-31`. */
export function readDateText(value: string): DateText | null {
  const text = value.trim();
  if (isNamed(text)) return { kind: 'named', name: text };
  const relative = RELATIVE_DATE.exec(text);
  if (relative) return { kind: 'relative', amount: Number(relative[1]), unit: relative[2] as RelativeUnit };
  const m = ABSOLUTE_DATE.exec(text);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => (v === undefined ? undefined : Number(v)));
  const calendar = new Date(utcTime(year!, month!, day!));
  // Year 0 is no year (Python's datetime starts at 1).
  if (year === 0 || calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day! || hour > 23 || minute > 59 || second > 59) {
    return null;
  }
  const zone = m[8];
  let offsetMinutes: number | null = null;
  if (zone === 'Z') offsetMinutes = 0;
  else if (zone !== undefined) {
    const digits = zone.slice(1).replace(':', '');
    const [offsetHours, offsetMinute] = [Number(digits.slice(0, 2)), Number(digits.slice(2))];
    // An offset is less than a day, as dateutil's isoparse has it.
    if (offsetHours > 23 || offsetMinute > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinute);
  }
  return {
    kind: 'absolute',
    year: year!,
    month: month!,
    day: day!,
    hour,
    minute,
    second,
    millisecond: Math.floor(Number(`0${m[7] ?? ''}`) * 1000),
    hasTime: m[4] !== undefined,
    offsetMinutes,
  };
}
