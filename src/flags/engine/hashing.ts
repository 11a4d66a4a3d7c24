/**
 * PostHog's `sha1_60_v1` bucketing hash and the comparisons built on it.
 *
 * Every SDK and the server agree on these numbers bit for bit, so the arithmetic is kept
 * exactly as PostHog does it: one binary64 division of the top 60 digest bits by 2^60 - 1
 * (which is 2^60 once converted to a double), inclusive rollout, exclusive variant boundaries.
 */
import { sha1FirstWords } from './sha1.js';
import type { FlagVariant } from './types.js';

/** 0xFFFFFFFFFFFFFFF; as a double it is exactly 2^60. */
export const LONG_SCALE = 0xfffffffffffffff;

/** Identifiers longer than this many Unicode scalar values are truncated before hashing. */
export const MAX_IDENTIFIER_LENGTH = 200;

export const ROLLOUT_SALT = '';
export const VARIANT_SALT = 'variant';
export const HOLDOUT_PREFIX = 'holdout-';

/** The top 60 bits of SHA-1(prefix + identifier + salt), as a decimal-free bigint. */
export function hashBits60(prefix: string, identifier: string, salt: string): bigint {
  const [first, second] = sha1FirstWords(prefix + identifier + salt);
  return (BigInt(first) << 28n) | BigInt(second >>> 4);
}

/**
 * hash01 in [0, 1]. `Number(bigint)` rounds once to the nearest double and the division is a
 * second rounding, which is what the reference does (the corpus pins this double rounding).
 */
export function hash01(prefix: string, identifier: string, salt: string): number {
  // Hot path (several hashes per flag per request), so no BigInt: the 60 bits are split into
  // two 30-bit halves. high * 2^30 is exact, so the one rounding of the sum equals
  // Number(hashBits60(...)), the single rounding the reference makes.
  const [first, second] = sha1FirstWords(prefix + identifier + salt);
  const high = first >>> 2;
  const low = ((first & 0b11) << 28) | (second >>> 4);
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
  if (identifier === '') return 0;
  return hash01(`${flagKey}.`, identifier, salt);
}

/** Holdouts hash without the flag key and do NOT short-circuit an empty identifier. */
export function holdoutHash(identifier: string): number {
  return hash01(HOLDOUT_PREFIX, identifier, ROLLOUT_SALT);
}

/** Inclusive comparison; 100 (or more) includes everyone without looking at the hash. */
export function isHashInRollout(hash: number, rolloutPercentage: number): boolean {
  if (rolloutPercentage >= 100) return true;
  return hash <= rolloutPercentage / 100;
}

/**
 * Picks the first variant whose cumulative boundary is strictly above the hash. Boundaries are
 * accumulated left to right in doubles, so weights summing to 0.9999999999999999 can leave the
 * top of the range unassigned: then there is no variant and the flag is plain `true`.
 */
export function selectVariantForHash(hash: number, variants: readonly FlagVariant[]): string | null {
  let boundary = 0;
  for (const variant of variants) {
    boundary += variant.rollout_percentage / 100;
    if (hash < boundary) return variant.key;
  }
  return null;
}

/** Holdout membership: same comparison as a rollout, against the exclusion percentage. */
export function isHoldoutMember(identifier: string, exclusionPercentage: number): boolean {
  if (exclusionPercentage >= 100) return true;
  return isHashInRollout(holdoutHash(identifier), exclusionPercentage);
}
