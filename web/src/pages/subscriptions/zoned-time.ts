/**
 * Wall-clock time in a named time zone (the environment's), with Intl only: the app ships no date
 * library, and these are the only conversions the subscription form needs.
 */

export interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time of `instant` in `timeZone`. */
export function wallTime(instant: Date, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute! };
}

const asUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);

/**
 * The instant at which `timeZone`'s clocks show `w` (two passes, for a DST change between the
 * guess and the answer). A wall time a DST change skips gives an instant an hour off it.
 */
export function instantOf(w: WallTime, timeZone: string): Date {
  const guess = asUtc(w);
  const first = guess - (asUtc(wallTime(new Date(guess), timeZone)) - guess);
  const second = guess - (asUtc(wallTime(new Date(first), timeZone)) - first);
  return new Date(asUtc(wallTime(new Date(second), timeZone)) === guess ? second : first);
}

/** Days in `month` (1–12) of `year`. */
export const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Monday = 0 … Sunday = 6 (the server's order) of a calendar date. */
export const weekdayIndex = (year: number, month: number, day: number) => (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export const dateText = (w: Pick<WallTime, 'year' | 'month' | 'day'>) => `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
export const timeText = (w: Pick<WallTime, 'hour' | 'minute'>) => `${pad(w.hour)}:${pad(w.minute)}`;

/** An instant as the environment's clocks show it, with the zone's name. */
export function formatInZone(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(undefined, { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}
