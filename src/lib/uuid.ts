import { createHash, randomFillSync, randomUUID } from 'node:crypto';

/** The timestamp part of the last uuid made: ids made in the same millisecond share it. */
let lastMs = -1;
let lastPrefix = '';

function timePrefix(ms: number): string {
  if (ms !== lastMs) {
    const time = ms.toString(16).padStart(12, '0').slice(-12);
    lastPrefix = `${time.slice(0, 8)}-${time.slice(8)}-7`;
    lastMs = ms;
  }
  return lastPrefix;
}

/**
 * A time-ordered UUID (RFC 9562 version 7: 48-bit ms timestamp, version 7, variant 10, 74 random
 * bits), like PostHog's UUIDT: ids sort by creation time, which keeps B-tree inserts local and lets
 * lists ordered by id read in creation order. The random part comes from `randomUUID`, which draws
 * from a pre-filled entropy pool (far cheaper a call than `randomBytes`; capture makes one per
 * event sent without a uuid). `random` (10+ bytes) makes the result deterministic, for tests.
 */
export function uuidv7(nowMs: number = Date.now(), random?: Uint8Array): string {
  const ms = Math.max(0, Math.floor(nowMs));
  if (!random) {
    // randomUUID: xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V already the 10xx variant.
    return timePrefix(ms) + randomUUID().slice(15);
  }
  if (random.length < 10) throw new RangeError('uuidv7 needs at least 10 random bytes');
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(ms % 2 ** 48, 0, 6);
  bytes[6] = 0x70 | (random[0]! & 0x0f);
  bytes[7] = random[1]!;
  bytes[8] = 0x80 | (random[2]! & 0x3f);
  for (let i = 9; i < 16; i++) bytes[i] = random[i - 6]!;
  return uuidText(bytes.toString('hex'));
}

/**
 * A name-based UUID (RFC 9562 version 5): SHA-1 of the namespace's 16 bytes then the name's UTF-8,
 * cut to 16 bytes with version 5 and variant 10 set, as Python's `uuid.uuid5` and the npm `uuid`
 * package's `v5` make it.
 */
export function uuidv5(namespace: string, name: string): string {
  const namespaceBytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (namespaceBytes.length !== 16) throw new RangeError(`not a UUID namespace: ${namespace}`);
  const bytes = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = 0x50 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  return uuidText(bytes.toString('hex'));
}

/** 32 hex digits in the 8-4-4-4-12 form of a UUID's text. */
export function uuidText(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The canonical text (lower case, hyphenated) of a uuid as Python's `uuid.UUID(text)` reads it:
 * "urn:" and "uuid:" removed, braces stripped from the ends, hyphens anywhere ignored, 32 hex
 * digits left. This is also exactly what PostHog's `UUIDT.is_valid_uuid` accepts. Null when not a uuid.
 */
export function canonicalUuid(text: string): string | null {
  const hex = text
    .replaceAll('urn:', '')
    .replaceAll('uuid:', '')
    .replace(/^[{}]+|[{}]+$/g, '')
    .replaceAll('-', '');
  if (!HEX32.test(hex)) return null;
  return uuidText(hex.toLowerCase());
}

const HEX32 = /^[0-9a-fA-F]{32}$/;

/**
 * The canonical text of a uuid in one of the four forms Rust's `Uuid::parse_str` accepts
 * (hyphenated, 32 bare hex digits, braced, `urn:uuid:`), as PostHog's flags service reads
 * `X-Request-Id`. Stricter than `canonicalUuid` on purpose: no hyphens elsewhere, no stray braces.
 */
export function canonicalUuidStrict(text: string): string | null {
  let hyphenated = text;
  if (text.length === 32) return HEX32.test(text) ? uuidText(text.toLowerCase()) : null;
  if (text.length === 45 && text.startsWith('urn:uuid:')) hyphenated = text.slice(9);
  else if (text.length === 38 && text.startsWith('{') && text.endsWith('}')) hyphenated = text.slice(1, -1);
  if (hyphenated.length !== 36) return null;
  if (hyphenated[8] !== '-' || hyphenated[13] !== '-' || hyphenated[18] !== '-' || hyphenated[23] !== '-') return null;
  const hex = hyphenated.slice(0, 8) + hyphenated.slice(9, 13) + hyphenated.slice(14, 18) + hyphenated.slice(19, 23) + hyphenated.slice(24);
  return HEX32.test(hex) ? uuidText(hex.toLowerCase()) : null;
}

/** Random bytes for randomUuidV4, drawn 128 ids at a time. */
const V4_BATCH = 128;
const v4Random = Buffer.allocUnsafe(16 * V4_BATCH);
let v4Next = V4_BATCH;
const v4Text = Buffer.allocUnsafe(36);
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random (version 4) UUID, as `randomUUID` makes it, written as one string: node's joins
 * twenty pieces into a rope that is flattened again where it is used, several hundred bytes of
 * garbage per id (decide makes one per answer).
 */
export function randomUuidV4(): string {
  if (v4Next === V4_BATCH) {
    randomFillSync(v4Random);
    v4Next = 0;
  }
  const at = v4Next++ * 16;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) v4Text[out++] = 0x2d;
    let byte = v4Random[at + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40;
    else if (i === 8) byte = (byte & 0x3f) | 0x80;
    v4Text[out++] = HEX_DIGITS[byte >> 4]!;
    v4Text[out++] = HEX_DIGITS[byte & 15]!;
  }
  return v4Text.toString('latin1', 0, 36);
}
