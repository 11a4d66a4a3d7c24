/**
 * Date-time parsing and formatting the way PostHog's API does it: DRF `DateTimeField` with the
 * default `iso-8601` input format, i.e. Django's `parse_datetime` (Python 3.11+
 * `datetime.fromisoformat`, then Django's own regex as a fallback), naive values read in the
 * server time zone (UTC), aware values converted to UTC. Output is DRF's representation:
 * `isoformat()` with `+00:00` replaced by `Z`, microseconds only when non-zero.
 */

/** A UTC instant with microsecond precision (JS `Date` only holds milliseconds). */
export interface UtcDateTime {
  /** The instant, truncated to the millisecond. */
  date: Date;
  /** Microseconds within the millisecond, 0..999. */
  extraMicros: number;
}

export type DateTimeParseResult =
  { ok: true; value: UtcDateTime; iso: string } | { ok: false; code: 'invalid' | 'overflow'; detail: string };

/** DRF's humanised `iso-8601` input format, as it appears in the "wrong format" message. */
export const DRF_ISO_8601_HUMANIZED = 'YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]';
export const DATETIME_INVALID_MESSAGE = `Datetime has wrong format. Use one of these formats instead: ${DRF_ISO_8601_HUMANIZED}.`;
export const DATETIME_OVERFLOW_MESSAGE = 'Datetime value out of range.';

/** A datetime's fields as Python holds them: the wall time, and its offset (null: naive). */
export interface PythonDateTimeFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micro: number;
  /** Offset east of UTC in microseconds; null = naive. */
  offsetMicros: number | null;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
  const dim = m === 2 && isLeap(y) ? 29 : (DAYS_IN_MONTH[m - 1] ?? 0);
  return d <= dim;
}

/** Python's fraction handling: first 6 digits, right-padded with zeros. */
function fractionToMicros(frac: string | undefined): number {
  if (!frac) return 0;
  return Number(frac.slice(0, 6).padEnd(6, '0'));
}

// Python `datetime.fromisoformat` (3.11+), calendar dates only: date (extended or basic) and
// optionally any single separator character, then `hh[:mm[:ss[.f+]]]` or `hhmm[ss[.f+]]`
// (separators used consistently) and an optional `Z` / `±hh[:mm[:ss[.f+]]]` offset.
const PY_ISO = new RegExp(
  '^(\\d{4})(-?)(\\d{2})\\2(\\d{2})' + // 1 year, 2 dash, 3 month, 4 day
    '(?:[\\s\\S]' +
    '(\\d{2})(?:(:?)(\\d{2})(?:\\6(\\d{2})(?:[.,](\\d+))?)?)?' + // 5 hh, 6 colon, 7 mm, 8 ss, 9 frac
    '(?:(Z)|([+-])(\\d{2})(?:(:?)(\\d{2})(?:\\13(\\d{2})(?:[.,](\\d+))?)?)?)?' + // 10 Z, 11 sign, 12 hh, 13 colon, 14 mm, 15 ss, 16 frac
    ')?$',
);

/** Django's `datetime_re` (used when `fromisoformat` refuses the value). Python's `$` also matches before a final newline. */
const DJANGO_DATETIME_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?\n?$/;

function parsePyIso(value: string): PythonDateTimeFields | null | 'invalid' {
  const m = PY_ISO.exec(value);
  if (!m) return null;
  const [, y, , mo, d, hh, , mi, ss, frac, z, sign, tzh, , tzm, tzs, tzfrac] = m;
  const f: PythonDateTimeFields = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: hh ? Number(hh) : 0,
    minute: mi ? Number(mi) : 0,
    second: ss ? Number(ss) : 0,
    micro: fractionToMicros(frac),
    offsetMicros: null,
  };
  if (z) f.offsetMicros = 0;
  else if (sign) {
    const h = Number(tzh);
    const mm = tzm ? Number(tzm) : 0;
    const s = tzs ? Number(tzs) : 0;
    if (mm > 59 || s > 59) return 'invalid';
    const total = ((h * 60 + mm) * 60 + s) * 1_000_000 + fractionToMicros(tzfrac);
    if (total >= 24 * 3600 * 1_000_000) return 'invalid';
    f.offsetMicros = sign === '-' ? -total : total;
  }
  return f;
}

function parseDjango(value: string): PythonDateTimeFields | null | 'invalid' {
  const m = DJANGO_DATETIME_RE.exec(value);
  if (!m) return null;
  const [, y, mo, d, hh, mi, ss, frac, tz] = m;
  const f: PythonDateTimeFields = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(hh),
    minute: Number(mi),
    second: ss ? Number(ss) : 0,
    micro: fractionToMicros(frac),
    offsetMicros: null,
  };
  if (tz === 'Z') f.offsetMicros = 0;
  else if (tz) {
    const mins = tz.length > 3 ? Number(tz.slice(-2)) : 0;
    const offset = 60 * Number(tz.slice(1, 3)) + mins;
    if (offset >= 24 * 60) return 'invalid';
    f.offsetMicros = (tz[0] === '-' ? -offset : offset) * 60 * 1_000_000;
  }
  return f;
}

function fieldsValid(f: PythonDateTimeFields): boolean {
  return validDate(f.year, f.month, f.day) && f.hour <= 23 && f.minute <= 59 && f.second <= 59;
}

function utcMs(year: number, month: number, day: number, h: number, mi: number, s: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(h, mi, s, 0);
  return d.getTime();
}

/** Python's `datetime.fromisoformat` (3.11+): the fields, or null where it raises ValueError. */
export function pythonFromIsoformat(value: string): PythonDateTimeFields | null {
  const f = parsePyIso(value);
  return f === null || f === 'invalid' || !fieldsValid(f) ? null : f;
}

/** Parse like DRF's DateTimeField (`iso-8601`), returning the UTC instant and DRF's output string. */
export function parseDrfDateTime(value: unknown): DateTimeParseResult {
  const invalid = { ok: false as const, code: 'invalid' as const, detail: DATETIME_INVALID_MESSAGE };
  if (typeof value !== 'string') return invalid;
  let f = parsePyIso(value);
  if (f === null || f === 'invalid' || !fieldsValid(f)) {
    // fromisoformat raised ValueError: Django falls back to its regex.
    f = parseDjango(value);
    if (f === null || f === 'invalid' || !fieldsValid(f)) return invalid;
  }
  const utc = instantOf(f, f.offsetMicros ?? 0);
  const year = utc.date.getUTCFullYear();
  if (year < 1 || year > 9999) {
    return { ok: false, code: 'overflow', detail: DATETIME_OVERFLOW_MESSAGE };
  }
  return { ok: true, value: utc, iso: formatDrfDateTime(utc) };
}

/** The instant of a wall time at this offset (microseconds east of UTC), to the microsecond. */
export function instantOf(f: PythonDateTimeFields, offsetMicros: number): UtcDateTime {
  const micros = f.micro - offsetMicros;
  const msShift = Math.floor(micros / 1000);
  return { date: new Date(utcMs(f.year, f.month, f.day, f.hour, f.minute, f.second) + msShift), extraMicros: micros - msShift * 1000 };
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/**
 * DRF's output form of an aware UTC datetime: `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`.
 * Accepts a `Date` (millisecond precision) or a `UtcDateTime`.
 */
export function formatDrfDateTime(value: Date | UtcDateTime): string {
  const date = value instanceof Date ? value : value.date;
  const extra = value instanceof Date ? 0 : value.extraMicros;
  if (Number.isNaN(date.getTime())) throw new RangeError('Invalid date');
  const micro = date.getUTCMilliseconds() * 1000 + extra;
  const base =
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}`;
  return `${base}${micro ? `.${pad(micro, 6)}` : ''}Z`;
}

/** Python's `+HH:MM[:SS[.ffffff]]` of an offset in microseconds. */
function offsetText(micros: number): string {
  const sign = micros < 0 ? '-' : '+';
  const abs = Math.abs(micros);
  const seconds = Math.floor(abs / 1_000_000);
  const rest = abs % 1_000_000;
  let text = `${sign}${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}`;
  if (seconds % 60 !== 0 || rest !== 0) text += `:${pad(seconds % 60, 2)}`;
  if (rest !== 0) text += `.${pad(rest, 6)}`;
  return text;
}

/**
 * Python's `isoformat()` of a datetime with these fields at this offset (microseconds east of
 * UTC; null: naive, printed without one): `YYYY-MM-DDTHH:MM:SS[.ffffff][±HH:MM…]`.
 */
export function fieldsIsoformat(f: PythonDateTimeFields, offsetMicros: number | null): string {
  const wall = `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}`;
  return `${wall}${f.micro ? `.${pad(f.micro, 6)}` : ''}${offsetMicros === null ? '' : offsetText(offsetMicros)}`;
}
