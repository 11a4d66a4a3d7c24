/**
 * PostHog's `relative_date_parse` (posthog/utils.py), which the events list reads `after` and
 * `before` with: dateutil's `isoparse` first (then `strptime("%Y-%m-%d")` for unpadded dates),
 * naive times in the project's timezone; otherwise the first `-?N<unit>[Start|End]` anywhere in the
 * text, subtracted from now as a dateutil `relativedelta` on the project's wall clock; and text with
 * no such unit is silently now. Wall times are UTC-like milliseconds (see lib/zoned-time.ts).
 */
import { DAY_MS, HOUR_MS, toWall } from '../lib/zoned-time.js';
import { utcTime } from '../posthog/date-grammar.js';
import { pyInt } from '../posthog/python-values.js';

/** A date Python's datetime cannot hold (years 1-9999): PostHog fails with a server error there. */
export class DateOutOfRangeError extends Error {}

const MINUTE_MS = 60_000;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

/** A wall time within datetime's range, or the error PostHog would fail with. */
function inRange(wall: number): number {
  const year = new Date(wall).getUTCFullYear();
  if (!(year >= 1 && year <= 9999)) throw new DateOutOfRangeError('date value out of range');
  return wall;
}

/** The offset (ms) `timezone` is at, at `instant`. */
const offsetAt = (instant: number, timezone: string) => toWall(instant, timezone) - instant;

/**
 * The instant a naive (wall) time means in `timezone`, as zoneinfo reads it with fold=0: in a DST
 * overlap the first of the two; in a gap, with the offset in force before the transition.
 */
export function wallToInstant(wall: number, timezone: string): number {
  const before = wall - offsetAt(wall - DAY_MS, timezone);
  const after = wall - offsetAt(wall + DAY_MS, timezone);
  const exact = [before, after].filter((t) => toWall(t, timezone) === wall);
  return exact.length ? Math.min(...exact) : before;
}

interface IsoParsed {
  /** Wall-clock milliseconds, microseconds as a fraction. */
  wall: number;
  /** Minutes east of UTC; null for a naive time. */
  offset: number | null;
}

function int(text: string): number {
  const n = pyInt(text);
  if (n === null) throw new RangeError('invalid literal for int()');
  return n;
}

function isoDateCommon(s: string): [number[], number] {
  const len = s.length;
  if (len < 4) throw new RangeError('ISO string too short');
  const c = [int(s.slice(0, 4)), 1, 1];
  let pos = 4;
  if (pos >= len) return [c, pos];
  const hasSep = s[pos] === '-';
  if (hasSep) pos++;
  if (len - pos < 2) throw new RangeError('Invalid common month');
  c[1] = int(s.slice(pos, pos + 2));
  pos += 2;
  if (pos >= len) {
    if (hasSep) return [c, pos];
    throw new RangeError('Invalid ISO format');
  }
  if (hasSep) {
    if (s[pos] !== '-') throw new RangeError('Invalid separator in ISO string');
    pos++;
  }
  if (len - pos < 2) throw new RangeError('Invalid common day');
  c[2] = int(s.slice(pos, pos + 2));
  return [c, pos + 2];
}

function validYear(year: number): void {
  if (year < 1 || year > 9999) throw new RangeError('year is out of range');
}

/** Week dates (YYYY-Www-D) and ordinal dates (YYYY-DDD). */
function isoDateUncommon(s: string): [number[], number] {
  if (s.length < 4) throw new RangeError('ISO string too short');
  const year = int(s.slice(0, 4));
  const hasSep = s[4] === '-';
  let pos = 4 + (hasSep ? 1 : 0);
  let base: number;
  if (s[pos] === 'W') {
    pos++;
    const week = int(s.slice(pos, pos + 2));
    pos += 2;
    let day = 1;
    if (s.length > pos) {
      if ((s[pos] === '-') !== hasSep) throw new RangeError('Inconsistent use of dash separator');
      pos += hasSep ? 1 : 0;
      day = int(s.slice(pos, pos + 1));
      pos++;
    }
    if (!(week > 0 && week < 54) || !(day > 0 && day < 8)) throw new RangeError('Invalid week');
    validYear(year);
    const jan4 = utcTime(year, 1, 4);
    const isoWeekday = ((new Date(jan4).getUTCDay() + 6) % 7) + 1;
    base = inRange(jan4 - (isoWeekday - 1) * DAY_MS + ((week - 1) * 7 + (day - 1)) * DAY_MS);
  } else {
    if (s.length - pos < 3) throw new RangeError('Invalid ordinal day');
    const ordinal = int(s.slice(pos, pos + 3));
    pos += 3;
    if (ordinal < 1 || ordinal > 365 + (isLeap(year) ? 1 : 0)) throw new RangeError('Invalid ordinal day');
    validYear(year);
    base = inRange(utcTime(year, 1, 1) + (ordinal - 1) * DAY_MS);
  }
  const d = new Date(base);
  return [[d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()], pos];
}

/** An ISO offset in minutes east of UTC. */
function isoOffset(tz: string): number {
  if (tz === 'Z' || tz === 'z') return 0;
  if (![3, 5, 6].includes(tz.length)) throw new RangeError('Time zone offset must be 1, 3, 5 or 6 characters');
  const sign = tz[0] === '-' ? -1 : tz[0] === '+' ? 1 : 0;
  if (!sign) throw new RangeError('Time zone offset requires sign');
  const hours = int(tz.slice(1, 3));
  const minutes = tz.length === 3 ? 0 : int(tz.slice(tz[3] === ':' ? 4 : 3));
  if (hours === 0 && minutes === 0) return 0;
  if (minutes > 59 || hours > 23) throw new RangeError('Invalid offset');
  return sign * (hours * 60 + minutes);
}

/** [hour, minute, second, microsecond, offset | null] */
function isoTime(t: string): [number, number, number, number, number | null] {
  const len = t.length;
  const c: [number, number, number, number, number | null] = [0, 0, 0, 0, null];
  if (len < 2) throw new RangeError('ISO time too short');
  const hasSep = len >= 3 && t[2] === ':';
  let pos = 0;
  for (let comp = -1; pos < len && comp < 5;) {
    comp++;
    if ('-+Zz'.includes(t[pos]!)) {
      c[4] = isoOffset(t.slice(pos));
      pos = len;
      break;
    }
    if (comp < 3) {
      c[comp] = int(t.slice(pos, pos + 2));
      pos += 2;
      if (hasSep && pos < len && t[pos] === ':') pos++;
    }
    if (comp === 3) {
      const frac = /^[.,]([0-9]+)/.exec(t.slice(pos));
      if (!frac) continue;
      const us = frac[1]!.slice(0, 6);
      c[3] = Number(us) * 10 ** (6 - us.length);
      pos += frac[0].length;
    }
  }
  if (pos < len) throw new RangeError('Unused components in ISO string');
  if (c[0] === 24 && (c[1] !== 0 || c[2] !== 0 || c[3] !== 0)) throw new RangeError('Hour may only be 24 at 24:00:00.000');
  return c;
}

/** dateutil's `isoparse` (any single separator character); null where it raises ValueError. */
export function isoparse(s: string): IsoParsed | null {
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(s)) return null;
  try {
    let date: [number[], number];
    try {
      date = isoDateCommon(s);
    } catch {
      date = isoDateUncommon(s);
    }
    const [[year, month, day], pos] = date as [[number, number, number], number];
    const [hour, minute, second, micro, offset] = s.length > pos ? isoTime(s.slice(pos + 1)) : [0, 0, 0, 0, null];
    // datetime(*components): every field in range, or ValueError.
    if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
    if (hour < 0 || hour > 24 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
    // 24:00 is the next day's midnight: a timedelta past 9999-12-31 overflows (a server error there).
    const wall = utcTime(year, month, day) + (hour === 24 ? 0 : hour) * HOUR_MS + minute * MINUTE_MS + second * 1000 + micro / 1000;
    return { wall: hour === 24 ? inRange(wall + DAY_MS) : wall, offset };
  } catch (error) {
    if (error instanceof DateOutOfRangeError) throw error;
    return null;
  }
}

/** `strptime(text, "%Y-%m-%d")`: unpadded months and days (a day may also be " 1"). */
function strptimeDate(s: string): number | null {
  const m = /^([0-9]{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12][0-9]|0[1-9]|[1-9]| [1-9])$/.exec(s);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3]!.trim())];
  return year >= 1 && day <= daysIn(year, month) ? utcTime(year, month, day) : null;
}

/** `relativedelta` fields, as `get_delta_mapping_for` sets them. */
interface Delta {
  years?: number;
  months?: number;
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  microsecond?: number;
}

const START_OF_HOUR = { minute: 0, second: 0, microsecond: 0 };
const END_OF_HOUR = { minute: 59, second: 59, microsecond: 999_999 };

function deltaFor(kind: string, number: number | null, position: string | undefined): Delta {
  const n = number ?? undefined;
  switch (kind) {
    case 'h':
      return { hours: n, ...(position === 'Start' ? START_OF_HOUR : position === 'End' ? END_OF_HOUR : {}) };
    case 'd':
      return {
        days: n,
        ...(position === 'Start' ? { hour: 0, ...START_OF_HOUR } : position === 'End' ? { hour: 23, ...END_OF_HOUR } : {}),
      };
    case 'w':
      return { days: n === undefined ? undefined : n * 7 };
    case 'm':
      return { months: n, ...(position === 'Start' ? { day: 1 } : position === 'End' ? { day: 31 } : {}) };
    case 'M':
      return { minutes: n };
    case 's':
      return { seconds: n };
    case 'q':
      return { days: n === undefined ? undefined : n * 91 };
    case 'y':
      return { years: n, ...(position === 'Start' ? { month: 1, day: 1 } : position === 'End' ? { day: 31 } : {}) };
    default:
      // The regex also takes H, D, W, Q, Y and S, which set nothing: now.
      return {};
  }
}

/** `wall - relativedelta(**delta)`: absolute fields replace, then the relative ones go back. */
function subtractDelta(wall: number, delta: Delta): number {
  const d = new Date(wall);
  const totalMonths = d.getUTCFullYear() * 12 + (delta.month ?? d.getUTCMonth() + 1) - 1 - (delta.years ?? 0) * 12 - (delta.months ?? 0);
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12 + 1;
  if (!(year >= 1 && year <= 9999)) throw new DateOutOfRangeError('date value out of range');
  const day = Math.min(daysIn(year, month), delta.day ?? d.getUTCDate());
  const time =
    (delta.hour ?? d.getUTCHours()) * HOUR_MS +
    (delta.minute ?? d.getUTCMinutes()) * MINUTE_MS +
    (delta.second ?? d.getUTCSeconds()) * 1000 +
    (delta.microsecond !== undefined ? delta.microsecond / 1000 : d.getUTCMilliseconds() + (wall % 1));
  const back = (delta.days ?? 0) * DAY_MS + (delta.hours ?? 0) * HOUR_MS + (delta.minutes ?? 0) * MINUTE_MS + (delta.seconds ?? 0) * 1000;
  return inRange(utcTime(year, month, day) + time - back);
}

/**
 * The first `-?N<unit>[Start|End]` in the text, found without a backtracking regex: the first unit
 * letter, the digits right before it, and a '-' before those.
 */
function findRelative(text: string): { number: number | null; kind: string; position: string | undefined } | null {
  const at = text.search(/[hdwmqysHDWMQY]/);
  if (at < 0) return null;
  let start = at;
  while (start > 0 && text.charCodeAt(start - 1) >= 48 && text.charCodeAt(start - 1) <= 57) start--;
  const digits = text.slice(start, at);
  const position = /^(Start|End)/.exec(text.slice(at + 1, at + 6))?.[1];
  return { number: digits ? Number(digits) : null, kind: text[at]!, position };
}

/**
 * `relative_date_parse(text, team timezone)` as epoch milliseconds (a fraction for microseconds).
 * Throws DateOutOfRangeError where Python's datetime overflows.
 */
export function relativeDateParse(text: string, timezone: string, now: number = Date.now()): number {
  const iso = isoparse(text);
  if (iso) return iso.offset === null ? wallToInstant(iso.wall, timezone) : iso.wall - iso.offset * MINUTE_MS;
  const date = strptimeDate(text);
  if (date !== null) return wallToInstant(date, timezone);
  const wallNow = toWall(now, timezone);
  const relative = findRelative(text);
  if (!relative) return now;
  const delta = deltaFor(relative.kind, relative.number, relative.position);
  return wallToInstant(subtractDelta(wallNow, delta), timezone);
}
