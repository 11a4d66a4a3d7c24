/**
 * Timestamps printed as PostHog's Python prints a UTC `datetime`: `YYYY-MM-DDTHH:MM:SS`, then
 * `.ffffff` (always six digits) only when the microseconds are not zero, then the zone. Two
 * spellings of the zone reach PostHog's API responses:
 *
 * - `+00:00`: `datetime.isoformat()` itself. The events API prints `timestamp` so
 *   (ClickhouseEventSerializer.get_timestamp: `dt.replace(tzinfo=UTC).astimezone().isoformat()`,
 *   in a process whose local zone is UTC), whatever the team's timezone.
 * - `Z`: DRF's DateTimeField (isoformat with a trailing `+00:00` turned into `Z`) and PostHog's
 *   renderer for datetimes left in a response (orjson with OPT_UTC_Z), so the `created_at` of
 *   persons and groups.
 *
 * Hoglet stores timestamps as ISO 8601 text in UTC (SQLite keeps the text, PostgreSQL's are read
 * back as `Date#toISOString`); the fraction is taken from the text, so no digit is lost or
 * invented.
 */

export type UtcDesignator = 'Z' | '+00:00';

/** A UTC timestamp's text: date, time, optional fraction, and Z, +00:00 (or +0000, +00) or nothing. */
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,](\d+))?(?:Z|[+-]00(?::?00)?)?$/i;

/**
 * The stored timestamp as Python prints it, with that UTC designator. Text with another offset is
 * read as an instant first (to the millisecond); text that is no timestamp comes back as it is.
 */
export function pythonUtcIsoformat(stored: string, designator: UtcDesignator): string {
  const m = UTC_TEXT.exec(stored);
  if (!m) {
    const ms = Date.parse(stored);
    return Number.isNaN(ms) ? stored : pythonUtcIsoformat(new Date(ms).toISOString(), designator);
  }
  // Python keeps microseconds: digits past the sixth were never stored by PostHog either.
  const micros = (m[3] ?? '').slice(0, 6).padEnd(6, '0');
  const fraction = /^0+$/.test(micros) ? '' : `.${micros}`;
  return `${m[1]}T${m[2]}${fraction}${designator}`;
}

/** `datetime.isoformat()` of a UTC datetime: what the events API prints. */
export const pythonIsoformat = (stored: string): string => pythonUtcIsoformat(stored, '+00:00');

/** DRF's DateTimeField (and orjson's OPT_UTC_Z) of a UTC datetime: what persons and groups print. */
export const drfDateTime = (stored: string): string => pythonUtcIsoformat(stored, 'Z');
