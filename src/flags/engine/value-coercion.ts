/**
 * Coercions of JSON property values the way PostHog's Rust evaluator (serde_json) sees them.
 * They matter because comparisons are textual: `5` equals `"5"`, and a null property reads as
 * the text `"null"` for icontains.
 */

/** Rust's `str::parse::<f64>` grammar: no whitespace, no hex, `inf`/`nan` allowed. */
const RUST_FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/**
 * Text of a value: strings as-is, everything else as compact JSON. Integral numbers print as
 * integers; JSON.parse has already lost the `1.0` vs `1` distinction serde would keep.
 */
export function toPropertyString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'number') return numberToString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

function numberToString(value: number): string {
  // Request NaN/Infinity are replaced by null before evaluation on the server.
  if (!Number.isFinite(value)) return 'null';
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 64) return BigInt(value).toString();
  // serde/ryu writes exponents without "+".
  return String(value).replace('e+', 'e');
}

/** Parses a string like Rust's f64 parser; returns null when it is not a number. */
export function parseRustFloat(text: string): number | null {
  if (!RUST_FLOAT.test(text)) return null;
  // Ending in a digit or a dot, the grammar above leaves only forms Number() reads the same way;
  // only inf/nan spellings (which end in a letter) need the slower handling.
  const last = text.charCodeAt(text.length - 1);
  if ((last >= 0x30 && last <= 0x39) || last === 0x2e) return Number(text);
  const lower = text.toLowerCase().replace(/^\+/, '');
  if (lower === 'nan' || lower === '-nan') return Number.NaN;
  if (lower === 'inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

/** A number from a JSON number, or from text that parses as one; else null. */
export function toPropertyNumber(value: unknown): number | null {
  if (typeof value === 'number') return value;
  return parseRustFloat(toPropertyString(value));
}

const ASCII_UPPER = /[A-Z]/;

/** ASCII-only lowercase, as used by icontains/starts_with/ends_with. */
export function asciiLowercase(text: string): string {
  // Most values are already lowercase: a test is cheaper than a replace that changes nothing.
  if (!ASCII_UPPER.test(text)) return text;
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/** `true`, or a string equal to "true" ignoring case; arrays need every element truthy. */
export function isTruthyPropertyValue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  if (Array.isArray(value)) return value.every(isTruthyPropertyValue);
  return false;
}

/** Booleans, "true"/"false" strings (any case), or arrays made only of those. */
export function isBooleanLikePropertyValue(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false';
  }
  if (Array.isArray(value)) return value.every(isBooleanLikePropertyValue);
  return false;
}

export function hasOwn(map: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, key);
}
