/**
 * How the app writes a date or a date-time to a person: one style everywhere (PostHog's "Nov 30,
 * 2026, 11:55 AM", in the browser's locale), in the environment's time zone where a page has one
 * and the browser's otherwise.
 */

type DateValue = string | number | Date | null | undefined;

const SHORT: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
const FULL: Intl.DateTimeFormatOptions = { dateStyle: 'long', timeStyle: 'long' };
const DAY: Intl.DateTimeFormatOptions = { dateStyle: 'medium' };

// Building a DateTimeFormat is slow next to using one, and long lists format many dates.
const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(name: string, options: Intl.DateTimeFormatOptions, timeZone: string | undefined): Intl.DateTimeFormat {
  const key = `${name} ${timeZone ?? ''}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, { ...options, timeZone });
    formats.set(key, format);
  }
  return format;
}

/** The value as a Date, or null when it is missing or not a date. */
export function toDate(value: DateValue): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const formatWith = (name: string, options: Intl.DateTimeFormatOptions) => (value: DateValue, timeZone?: string) => {
  const date = toDate(value);
  if (date) return formatFor(name, options, timeZone).format(date);
  return typeof value === 'string' ? value : '';
};

/** A date-time as lists and headers show it: "Nov 30, 2026, 11:55 AM". The text as sent when it is not a date. */
export const formatDateTime = formatWith('short', SHORT);

/** A date-time in full, to the second and with its zone (a tooltip's text). */
export const formatDateTimeFull = formatWith('full', FULL);

/** A calendar day: "Nov 30, 2026". */
export const formatDate = formatWith('day', DAY);

/** Seconds as PostHog writes durations, in at most two units: `45s`, `3m 5s`, `2h 10m`, `3d 4h`. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}
