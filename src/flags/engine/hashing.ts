/**
 * PostHog's `sha1_60_v1` bucketing hash and the comparisons built on it.
 *
 * Every SDK and the server agree on these numbers bit for bit, so the arithmetic is kept
 * exactly as PostHog does it: one binary64 division of the top 60 digest bits by 2^60 - 1
 * (which is 2^60 once converted to a double), inclusive rollout, exclusive variant boundaries.
 */
import { packText, sha1Head, type PackedText } from './sha1.js';
import type { FlagVariant } from './types.js';

/** 0xFFFFFFFFFFFFFFF; as a double it is exactly 2^60. */
// eslint-disable-next-line no-loss-of-precision -- PostHog's constant, which Python reads as this same double
export const LONG_SCALE = 0xfffffffffffffff;

/** Identifiers longer than this many Unicode scalar values are truncated before hashing. */
export const MAX_IDENTIFIER_LENGTH = 200;

export const ROLLOUT_SALT = '';
export const VARIANT_SALT = 'variant';
export const HOLDOUT_PREFIX = 'holdout-';

/**
 * Packed texts of recent identifiers. One request hashes the same few identifiers (its distinct
 * id, a group key) against every flag, so packing each once per request is enough.
 */
const recentlyPacked: PackedText[] = [];
const RECENT_LIMIT = 8;
let nextRecent = 0;

/** The entry found last: the flags of one request hash its distinct id in turn, a flag or two apart. */
let lastPacked: PackedText | undefined;

/** The packed form of a text hashed often, from the recent memo. */
function packedIdentifier(text: string): PackedText {
  if (lastPacked !== undefined && lastPacked.text === text) return lastPacked;
  for (let i = 0; i < recentlyPacked.length; i++) {
    const packed = recentlyPacked[i]!;
    if (packed.text === text) return (lastPacked = packed);
  }
  const packed = packText(text);
  recentlyPacked[nextRecent] = packed;
  nextRecent = (nextRecent + 1) % RECENT_LIMIT;
  return (lastPacked = packed);
}

/** Prefixes and salts are few and fixed: kept for good (bounded, in case of unbounded keys). */
const fixedTexts = new Map<string, PackedText>();

function packedFixedText(text: string): PackedText {
  let packed = fixedTexts.get(text);
  if (packed === undefined) {
    if (fixedTexts.size >= 10_000) fixedTexts.clear();
    fixedTexts.set(text, (packed = packText(text)));
  }
  return packed;
}

export const PACKED_ROLLOUT_SALT = packedFixedText(ROLLOUT_SALT);
export const PACKED_VARIANT_SALT = packedFixedText(VARIANT_SALT);
const PACKED_HOLDOUT_PREFIX = packedFixedText(HOLDOUT_PREFIX);

const digestHead = new Uint32Array(2);

/** The top 60 bits of SHA-1(prefix + identifier + salt), as a decimal-free bigint. */
export function hashBits60(prefix: string, identifier: string, salt: string): bigint {
  sha1Head(packText(prefix), packText(identifier), packText(salt), digestHead);
  return (BigInt(digestHead[0]!) << 28n) | BigInt(digestHead[1]! >>> 4);
}

/**
 * hash01 in [0, 1]. `Number(bigint)` rounds once to the nearest double and the division is a
 * second rounding, which is what the reference does (the corpus pins this double rounding).
 */
export function hash01(prefix: string, identifier: string, salt: string): number {
  return packedHash01(packedFixedText(prefix), packedIdentifier(identifier), packedFixedText(salt));
}

/** hash01 over packed texts (compiled flags keep their packed prefix). */
export function packedHash01(prefix: PackedText, identifier: PackedText, salt: PackedText): number {
  // Hot path (several hashes per flag per request), so no BigInt: the 60 bits are split into
  // two 30-bit halves. high * 2^30 is exact, so the one rounding of the sum equals
  // Number(hashBits60(...)), the single rounding the reference makes.
  sha1Head(prefix, identifier, salt, digestHead);
  const first = digestHead[0]!;
  const high = first >>> 2;
  const low = ((first & 0b11) << 28) | (digestHead[1]! >>> 4);
  return (high * 2 ** 30 + low) / LONG_SCALE;
}

/** Truncates to the first 200 Unicode scalar values (not bytes, not UTF-16 units). */
export function truncateIdentifier(identifier: string): string {
  if (identifier.length <= MAX_IDENTIFIER_LENGTH) return identifier;
  const scalars = Array.from(identifier);
  return scalars.length <= MAX_IDENTIFIER_LENGTH ? identifier : scalars.slice(0, MAX_IDENTIFIER_LENGTH).join('');
}

/** Normalises a distinct id or group key to the string that gets hashed, or null if unusable. */
export function identifierToString(raw: unknown): string | null {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) {
    return Number.isInteger(raw) ? BigInt(raw).toString() : String(raw);
  }
  return null;
}

/**
 * Rollout/variant hash of a flag for one identifier. The v1 reference short-circuits an empty
 * identifier to 0.0 (so it passes every rollout and gets the first variant) instead of hashing.
 */
export function flagHash(flagKey: string, identifier: string, salt: string): number {
  return prefixedFlagHash(packedFixedText(`${flagKey}.`), identifier, packedFixedText(salt));
}

/** flagHash with the `<key>.` prefix already packed (compiled flags keep it). */
export function prefixedFlagHash(prefix: PackedText, identifier: string, salt: PackedText): number {
  if (identifier === '') return 0;
  return packedHash01(prefix, packedIdentifier(identifier), salt);
}

/** Holdouts hash without the flag key and do NOT short-circuit an empty identifier. */
export function holdoutHash(identifier: string): number {
  return packedHash01(PACKED_HOLDOUT_PREFIX, packedIdentifier(identifier), PACKED_ROLLOUT_SALT);
}

/** Inclusive comparison; 100 (or more) includes everyone without looking at the hash. */
export function isHashInRollout(hash: number, rolloutPercentage: number): boolean {
  if (rolloutPercentage >= 100) return true;
  return hash <= rolloutPercentage / 100;
}

/**
 * Cumulative upper bounds of the variants. They are accumulated left to right in doubles, so
 * weights summing to 0.9999999999999999 can leave the top of the range unassigned: then there
 * is no variant and the flag is plain `true`.
 */
export function variantBoundaries(variants: readonly FlagVariant[]): number[] {
  const boundaries: number[] = [];
  let boundary = 0;
  for (const variant of variants) {
    boundary += variant.rollout_percentage / 100;
    boundaries.push(boundary);
  }
  return boundaries;
}

/** The first variant whose boundary is strictly above the hash (boundaries from variantBoundaries). */
export function variantForHash(hash: number, keys: readonly string[], boundaries: readonly number[]): string | null {
  for (let i = 0; i < boundaries.length; i++) if (hash < boundaries[i]!) return keys[i]!;
  return null;
}

export function selectVariantForHash(hash: number, variants: readonly FlagVariant[]): string | null {
  return variantForHash(
    hash,
    variants.map((variant) => variant.key),
    variantBoundaries(variants),
  );
}

/** Holdout membership: same comparison as a rollout, against the exclusion percentage. */
export function isHoldoutMember(identifier: string, exclusionPercentage: number): boolean {
  if (exclusionPercentage >= 100) return true;
  return isHashInRollout(holdoutHash(identifier), exclusionPercentage);
}
