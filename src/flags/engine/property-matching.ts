/**
 * One property filter against one property map, with the server's (Rust, full-properties)
 * semantics: a missing key is never an error, "negative" operators match missing keys, and any
 * matching problem (bad number, bad regex, bad date) is simply "no match".
 */
import { parseDateInTimezone, secondsToMillis } from './dates.js';
import { personMetadataKey } from './person-metadata.js';
import { compareVersions, parseVersion, satisfiesRequirement } from './semver.js';
import type { PropertyFilter, PropertyMap } from './types.js';
import { boundedRegexTest } from '../../platform/bounded-regex.js';
import { compileLinearRegex } from '../../lib/linear-regex.js';
import {
  asciiLowercase,
  hasOwn,
  isBooleanLikePropertyValue,
  isTruthyPropertyValue,
  parseRustFloat,
  toPropertyNumber,
  toPropertyString,
} from './value-coercion.js';

/** Where "now" and the team timezone come from for date operators. */
export interface MatchEnvironment {
  timezone: string;
  now: Date;
}

/** Operators that are true when the property is missing (they are negations). */
export const TRUE_WHEN_MISSING: ReadonlySet<string> = new Set([
  'is_not',
  'not_icontains',
  'not_icontains_multi',
  'not_regex',
  'not_starts_with',
  'not_ends_with',
  'not_between',
  'is_not_set',
]);

/** The map key a filter reads; person_metadata columns live under a reserved prefix. */
export function propertyLookupKey(filter: PropertyFilter): string {
  return filter.type === 'person_metadata' ? personMetadataKey(filter.key) : filter.key;
}

/** Evaluates a non-cohort, non-flag property filter. */
export function matchProperty(filter: PropertyFilter, properties: PropertyMap, env: MatchEnvironment): boolean {
  const key = propertyLookupKey(filter);
  const operator = filter.operator ?? 'exact';
  const present = hasOwn(properties, key);

  if (operator === 'is_set') return present;
  if (operator === 'is_not_set') return !present;
  // Every other operator needs a filter value; a null one never matches (not even negations).
  if (filter.value === undefined || filter.value === null) return false;
  if (!present) return TRUE_WHEN_MISSING.has(operator);
  const value = properties[key];

  switch (operator) {
    case 'exact':
      return matchesExact(filter.value, value);
    case 'is_not':
      return !matchesExact(filter.value, value);
    case 'icontains':
      return containsIgnoringAsciiCase(value, filter.value);
    case 'not_icontains':
      return !containsIgnoringAsciiCase(value, filter.value);
    case 'icontains_multi':
      return containsAny(value, filter.value);
    case 'not_icontains_multi':
      return !containsAny(value, filter.value);
    case 'starts_with':
      return asciiLowercase(toPropertyString(value)).startsWith(asciiLowercase(toPropertyString(filter.value)));
    case 'not_starts_with':
      return !asciiLowercase(toPropertyString(value)).startsWith(asciiLowercase(toPropertyString(filter.value)));
    case 'ends_with':
      return asciiLowercase(toPropertyString(value)).endsWith(asciiLowercase(toPropertyString(filter.value)));
    case 'not_ends_with':
      return !asciiLowercase(toPropertyString(value)).endsWith(asciiLowercase(toPropertyString(filter.value)));
    case 'regex':
    case 'not_regex':
      return matchesRegexOperator(operator, filter.value, value);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compareNumbers(operator, value, filter.value);
    case 'between':
    case 'not_between':
      return matchesBetween(operator, value, filter.value);
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte':
      return compareSemver(operator, value, filter.value);
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard': {
      const version = parseVersion(value);
      return version !== null && satisfiesRequirement(operator, filter.value, version) === true;
    }
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact':
      return compareDates(operator, value, filter.value, env);
    default:
      // in/not_in belong to cohort filters and flag_evaluates_to to flag filters; unknown
      // operators never match.
      return false;
  }
}

/**
 * exact: boolean-like filter values compare truthiness (so "false" matches anything that is
 * not true/"true"); arrays match any element; otherwise Unicode case-insensitive text equality.
 */
export function matchesExact(filterValue: unknown, propertyValue: unknown): boolean {
  if (isBooleanLikePropertyValue(filterValue)) {
    return isTruthyPropertyValue(filterValue) === isTruthyPropertyValue(propertyValue);
  }
  const target = toPropertyString(propertyValue).toLowerCase();
  if (Array.isArray(filterValue)) {
    return filterValue.some((candidate) => toPropertyString(candidate).toLowerCase() === target);
  }
  return toPropertyString(filterValue).toLowerCase() === target;
}

function containsIgnoringAsciiCase(propertyValue: unknown, needle: unknown): boolean {
  return asciiLowercase(toPropertyString(propertyValue)).includes(asciiLowercase(toPropertyString(needle)));
}

function containsAny(propertyValue: unknown, needles: unknown): boolean {
  const list = Array.isArray(needles) ? needles : [needles];
  return list.some((needle) => containsIgnoringAsciiCase(propertyValue, needle));
}

/** What a regex condition needs of a compiled pattern: null when matching overflowed its bound. */
export interface PatternTest {
  test(text: string): boolean | null;
}

const fancyCache = new Map<string, PatternTest | null>();

/**
 * fancy-regex's own syntax beyond Rust's `regex` crate: look-around, back-references, atomic
 * groups, possessive repeats, conditionals.
 */
const FANCY_SYNTAX = /\\[1-9]|\\k<|\(\?(?:[=!>(]|<[=!])|[*+?}]\+/;

/**
 * Compiles a flag condition's pattern as the flags service does (fancy-regex): a pattern the
 * `regex` crate accepts runs on a linear-time engine (src/lib/linear-regex.ts), so no pattern
 * can stall evaluation by backtracking; only a pattern with fancy-regex's own features
 * (look-around, back-references) runs on V8's backtracking engine, bounded in time as fancy-regex
 * bounds its backtracking (platform/bounded-regex.ts). Invalid patterns give null.
 */
export function compileRegex(pattern: string): PatternTest | null {
  const linear = compileLinearRegex(pattern);
  if (linear || !FANCY_SYNTAX.test(pattern)) return linear;
  const cached = fancyCache.get(pattern);
  if (cached !== undefined) return cached;
  let source = pattern;
  let flags = '';
  // Leading inline flags like "(?i)" (Rust syntax, not JS) become RegExp flags.
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    flags = [...new Set(inline[1]!.replace('x', ''))].join('');
  }
  // Unicode mode first; patterns only valid without it get a second try.
  let compiled: PatternTest | null = null;
  for (const extra of ['u', '']) {
    try {
      const regex = new RegExp(source, flags + extra);
      compiled = { test: (text) => ifBounded(boundedRegexTest(regex, text)) };
      break;
    } catch {
      compiled = null;
    }
  }
  if (fancyCache.size > 1000) fancyCache.clear();
  fancyCache.set(pattern, compiled);
  return compiled;
}

const ifBounded = (answer: boolean | 'overflow') => (answer === 'overflow' ? null : answer);

/** An invalid pattern, or one whose matching overflowed, is false for BOTH regex and not_regex, as on the server. */
function matchesRegexOperator(operator: 'regex' | 'not_regex', pattern: unknown, propertyValue: unknown): boolean {
  const regex = compileRegex(toPropertyString(pattern));
  if (!regex) return false;
  const found = regex.test(toPropertyString(propertyValue));
  if (found === null) return false;
  return operator === 'regex' ? found : !found;
}

/** Numeric only: no lexicographic fallback on the server. */
function compareNumbers(operator: 'gt' | 'gte' | 'lt' | 'lte', propertyValue: unknown, filterValue: unknown): boolean {
  const left = toPropertyNumber(propertyValue);
  const right = toPropertyNumber(filterValue);
  if (left === null || right === null) return false;
  switch (operator) {
    case 'gt':
      return left > right;
    case 'gte':
      return left >= right;
    case 'lt':
      return left < right;
    case 'lte':
      return left <= right;
  }
}

/** Inclusive [min, max]; malformed bounds or a non-numeric property never match either way. */
function matchesBetween(operator: 'between' | 'not_between', propertyValue: unknown, bounds: unknown): boolean {
  if (!Array.isArray(bounds) || bounds.length !== 2) return false;
  const low = toPropertyNumber(bounds[0]);
  const high = toPropertyNumber(bounds[1]);
  if (low === null || high === null || Number.isNaN(low) || Number.isNaN(high) || low > high) return false;
  const value = toPropertyNumber(propertyValue);
  if (value === null || Number.isNaN(value)) return false;
  const inRange = value >= low && value <= high;
  return operator === 'between' ? inRange : !inRange;
}

function compareSemver(operator: string, propertyValue: unknown, filterValue: unknown): boolean {
  const left = parseVersion(propertyValue);
  const right = parseVersion(filterValue);
  if (!left || !right) return false;
  const order = compareVersions(left, right);
  switch (operator) {
    case 'semver_eq':
      return order === 0;
    case 'semver_neq':
      return order !== 0;
    case 'semver_gt':
      return order > 0;
    case 'semver_gte':
      return order >= 0;
    case 'semver_lt':
      return order < 0;
    default:
      return order <= 0;
  }
}

/** Property-side date: numbers (and numeric text) are Unix seconds; other text is parsed like filters. */
export function parsePropertyDate(value: unknown, env: MatchEnvironment): number | null {
  if (typeof value === 'number') return secondsToMillis(value);
  if (typeof value !== 'string') return null;
  const seconds = parseRustFloat(value);
  if (seconds !== null) return secondsToMillis(seconds);
  return parseDateInTimezone(value, env.timezone, env.now);
}

function compareDates(operator: string, propertyValue: unknown, filterValue: unknown, env: MatchEnvironment): boolean {
  const propertyDate = parsePropertyDate(propertyValue, env);
  if (propertyDate === null || typeof filterValue !== 'string') return false;
  const filterDate = parseDateInTimezone(filterValue, env.timezone, env.now);
  if (filterDate === null) return false;
  if (operator === 'is_date_before') return propertyDate < filterDate;
  if (operator === 'is_date_after') return propertyDate > filterDate;
  return propertyDate === filterDate;
}
