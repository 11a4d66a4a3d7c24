/**
 * Date parsing for the is_date_* operators, in the team timezone.
 *
 * PostHog interprets naive dates ("2024-06-01", "2024-06-01 10:00") as wall-clock time in the
 * team timezone, honours explicit offsets as written, and anchors relative dates ("-7d") to the
 * wall clock "now" in that timezone. Timezone arithmetic uses Intl (IANA data shipped with Node).
 */

import { DAY_MS, fromWallExact, HOUR_MS, toWall } from '../../lib/zoned-time.js';

export { isValidTimezone } from '../../lib/zoned-time.js';

/** A wall-clock time with no zone, held as milliseconds of a UTC-epoch-like timeline. */
type NaiveMillis = number;

const RELATIVE_DATE = /^-?(\d+)([hdwmy])$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BARE_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const NAIVE_DATETIME = /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/;

/** Wall clock of an instant in a timezone. */
export const toWallClock: (instantMs: number, timezone: string) => NaiveMillis = toWall;

/**
 * The instant at which the timezone's wall clock shows `naive`. In a DST overlap the earliest
 * instant wins; in a spring-forward gap there is none (null), as in the reference.
 */
export const fromWallClock: (naive: NaiveMillis, timezone: string) => number | null = fromWallExact;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month - 1);
}

/** Steps a wall clock back one calendar month, clamping the day (31 Mar → 29 Feb). */
function previousMonth(naive: NaiveMillis): NaiveMillis {
  const d = new Date(naive);
  const year = d.getUTCMonth() === 0 ? d.getUTCFullYear() - 1 : d.getUTCFullYear();
  const month = (d.getUTCMonth() + 11) % 12;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, month));
  return Date.UTC(year, month, day) + (((naive % DAY_MS) + DAY_MS) % DAY_MS);
}

function previousYear(naive: NaiveMillis): NaiveMillis {
  const d = new Date(naive);
  const year = d.getUTCFullYear() - 1;
  const day = Math.min(d.getUTCDate(), daysInMonth(year, d.getUTCMonth()));
  return Date.UTC(year, d.getUTCMonth(), day) + (((naive % DAY_MS) + DAY_MS) % DAY_MS);
}

/**
 * "-7d", "7d", "3h", "2w", "1m", "1y" relative to now. The sign is optional and ignored (both
 * mean "ago"); numbers of 10000 or more are rejected. Arithmetic runs on the wall clock.
 */
export function parseRelativeDate(text: string, now: Date, timezone: string): number | null {
  const match = RELATIVE_DATE.exec(text);
  if (!match) return null;
  const amount = Number(match[1]);
  if (amount >= 10_000) return null;
  let wall = toWallClock(now.getTime(), timezone);
  switch (match[2]) {
    case 'h':
      wall -= amount * HOUR_MS;
      break;
    case 'd':
      wall -= amount * DAY_MS;
      break;
    case 'w':
      wall -= amount * 7 * DAY_MS;
      break;
    case 'm':
      for (let i = 0; i < amount; i++) wall = previousMonth(wall);
      break;
    case 'y':
      for (let i = 0; i < amount; i++) wall = previousYear(wall);
      break;
  }
  return fromWallClock(wall, timezone);
}

function fractionToMs(fraction: string | undefined): number {
  if (!fraction) return 0;
  return Math.floor(Number(`0${fraction}`) * 1000);
}

function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 60) return null;
  const zone = m[8]!;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  }
  return Date.UTC(year, month - 1, day, hour, minute, second) + fractionToMs(m[7]) - offsetMinutes * 60_000;
}

function parseNaive(text: string): NaiveMillis | null {
  let m = BARE_DATE.exec(text);
  if (m) {
    const [year, month, day] = m.slice(1, 4).map(Number) as [number, number, number];
    return validDate(year, month, day) ? Date.UTC(year, month - 1, day) : null;
  }
  m = NAIVE_DATETIME.exec(text);
  if (m) {
    const [year, month, day, hour, minute] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
    const second = m[6] ? Number(m[6]) : 0;
    if (!validDate(year, month, day) || hour > 23 || minute > 59 || second > 59) return null;
    return Date.UTC(year, month - 1, day, hour, minute, second) + fractionToMs(m[7]);
  }
  return null;
}

/**
 * Lenient last resort (the reference uses the `dateparser` crate here and assumes UTC for naive
 * input). We only accept texts that carry their own zone, so the host's local zone never leaks in.
 */
function parseLenient(text: string): number | null {
  if (!/(?:Z|GMT|UTC|[+-]\d{2}:?\d{2})$/i.test(text.trim())) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}

/** Parses a filter-side (or textual property-side) date to epoch milliseconds. */
export function parseDateInTimezone(text: string, timezone: string, now: Date): number | null {
  const relative = parseRelativeDate(text, now, timezone);
  if (relative !== null) return relative;
  const withOffset = parseRfc3339(text);
  if (withOffset !== null) return withOffset;
  const naive = parseNaive(text);
  if (naive !== null) return fromWallClock(naive, timezone);
  return parseLenient(text);
}

/** Unix seconds (fractional allowed) to epoch milliseconds; PostHog stores seconds, not ms. */
export function secondsToMillis(seconds: number): number | null {
  if (!Number.isFinite(seconds)) return null;
  // Mirrors the reference: whole seconds by floor, sub-second part from the sign-keeping
  // remainder, saturated at 0 (so negative fractional timestamps drop their fraction).
  return Math.floor(seconds) * 1000 + Math.max(0, Math.round((seconds % 1) * 1000));
}
