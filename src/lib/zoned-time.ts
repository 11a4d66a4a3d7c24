/**
 * Wall-clock arithmetic in an IANA time zone with Intl (the zone data shipped with Node), for
 * trends buckets and the flag engine's date operators. A "wall" time is the zone's local date and
 * time held as milliseconds on a UTC-like timeline (Date.UTC of the local fields), so calendar
 * steps are plain UTC arithmetic.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(timezone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      formatter = null;
    }
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** Whether Intl knows this IANA name. */
export function isValidTimezone(timezone: string): boolean {
  return formatterFor(timezone) !== null;
}

/**
 * The zone trends are computed in: the environment's `timezone` when the runtime knows it, else
 * UTC (missing, not a string, or unknown), as PostHog falls back to UTC.
 */
export function effectiveTimezone(timezone: unknown): string {
  if (typeof timezone !== 'string' || timezone.trim() === '') return 'UTC';
  return formatterFor(timezone) ? timezone : 'UTC';
}

/**
 * The wall clock an instant shows in `timezone`. Years before 100 and before the common era are
 * read as they are (Date.UTC would read 0-99 as 1900-1999; Python's dates start at year 1).
 */
export function toWall(instant: number, timezone: string): number {
  const formatter = timezone === 'UTC' ? null : formatterFor(timezone);
  if (!formatter) return instant;
  const whole = Math.floor(instant / 1000) * 1000;
  const p: Record<string, string> = {};
  for (const part of formatter.formatToParts(new Date(whole))) p[part.type] = part.value;
  const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
  const time = ((Number(p.hour) * 60 + Number(p.minute)) * 60 + Number(p.second)) * 1000;
  return new Date(0).setUTCFullYear(year, Number(p.month) - 1, Number(p.day)) + time + (instant - whole);
}

/** The instants at which `timezone`'s clock shows `wall`: two in a DST overlap, none in a gap. */
function wallInstants(wall: number, timezone: string): { exact: number[]; offsets: number[] } {
  const offsets = [...new Set([-DAY_MS, 0, DAY_MS].map((shift) => toWall(wall + shift, timezone) - (wall + shift)))];
  return { exact: offsets.map((o) => wall - o).filter((t) => toWall(t, timezone) === wall), offsets };
}

/**
 * The instant at which `timezone`'s clock shows `wall`. When the clock shows it twice (the hour
 * repeated when DST ends) the earlier instant; when never (skipped by DST, e.g. a midnight some
 * zones jump over) the instant the gap ends, which is the first instant of that local day.
 */
export function fromWall(wall: number, timezone: string): number {
  if (timezone === 'UTC' || !formatterFor(timezone)) return wall;
  const { exact, offsets } = wallInstants(wall, timezone);
  if (exact.length) return Math.min(...exact);
  return Math.max(...offsets.map((o) => wall - o));
}

/** As fromWall, but a wall time skipped by DST has no instant (null), as in PostHog's flag reference. */
export function fromWallExact(wall: number, timezone: string): number | null {
  if (timezone === 'UTC' || !formatterFor(timezone)) return wall;
  const { exact } = wallInstants(wall, timezone);
  return exact.length ? Math.min(...exact) : null;
}

/** Wall-clock midnight of the day holding `wall`. */
export const wallDay = (wall: number): number => Math.floor(wall / DAY_MS) * DAY_MS;

/** `wall` moved by whole calendar months, the day clamped to the month's length (31 Mar - 1 month = 28/29 Feb). */
export function addMonths(wall: number, months: number): number {
  const d = new Date(wall);
  const target = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(target / 12);
  const month = target - year * 12;
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999.
  const day = Math.min(d.getUTCDate(), new Date(new Date(0).setUTCFullYear(year, month + 1, 0)).getUTCDate());
  return new Date(0).setUTCFullYear(year, month, day) + (wall - wallDay(wall));
}
