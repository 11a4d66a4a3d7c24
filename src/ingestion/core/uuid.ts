/**
 * Event uuids: validation of client-sent ids and UUIDv7 generation for events that have none
 * (capture-rs generates v7 so ids sort by time, which keeps storage indexes append-friendly).
 */
import { randomBytes } from 'node:crypto';

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

/**
 * RFC 9562 UUIDv7: 48-bit Unix ms timestamp, version 7, variant 10, 74 random bits.
 * `random` is injectable (10+ bytes) so callers and tests can be deterministic.
 */
export function uuidv7(nowMs: number, random: Uint8Array = randomBytes(10)): string {
  if (random.length < 10) throw new RangeError('uuidv7 needs at least 10 random bytes');
  const bytes = new Uint8Array(16);
  let ms = Math.max(0, Math.floor(nowMs));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (random[0]! & 0x0f);
  bytes[7] = random[1]!;
  bytes[8] = 0x80 | (random[2]! & 0x3f);
  for (let i = 9; i < 16; i++) bytes[i] = random[i - 6]!;
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
