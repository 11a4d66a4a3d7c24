/**
 * Event uuids: validation of client-sent ids and UUIDv7 generation for events that have none
 * (capture-rs generates v7 so ids sort by time, which keeps storage indexes append-friendly).
 */

// Any version/variant: SDKs send v4 (old) and v7 (new); PostHog accepts any RFC 4122 textual form.
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// uuid crates (and Django's UUID()) also accept the brace and un-hyphenated forms.
const UUID_LOOSE = /^\{?([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})\}?$/i;

/** True for the canonical 8-4-4-4-12 hex form. */
export function isValidUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * Normalises the textual forms PostHog's parsers accept (braces, no hyphens, upper case) to the
 * canonical lower-case hyphenated form; undefined when `value` is not a uuid.
 */
export function normalizeUuid(value: string): string | undefined {
  const match = UUID_LOOSE.exec(value.trim());
  if (!match) return undefined;
  return match.slice(1, 6).join('-').toLowerCase();
}

/** One generator for the whole server (lib/uuid.ts); re-exported for the ingestion core's users. */
export { uuidv7 } from '../../lib/uuid.js';
