/**
 * Property filters compiled once per definition set: what matchProperty works out from the
 * filter on every call (the map key, the operator, the filter value as lowercase text, a number,
 * a version, a compiled pattern) is worked out when the flag is compiled, and a request only
 * reads its property. The answers are exactly matchProperty's, which stays the reference
 * (test/flags/property-matchers.test.ts compares the two over generated filters and values):
 * operators whose filter side depends on the request (dates, relative to now and the timezone)
 * or that are rare (semver ranges) call matchProperty itself.
 */
import { compileRegex, matchProperty, propertyLookupKey, TRUE_WHEN_MISSING, type MatchEnvironment } from './property-matching.js';
import { compareVersions, parseVersion } from './semver.js';
import type { PropertyFilter, PropertyMap } from './types.js';
import {
  asciiLowercase,
  hasOwn,
  isBooleanLikePropertyValue,
  isTruthyPropertyValue,
  toPropertyNumber,
  toPropertyString,
} from './value-coercion.js';

/** One compiled filter against one property map: matchProperty(filter, properties, env). */
export type PropertyMatcher = (properties: PropertyMap, env: MatchEnvironment) => boolean;

/** A test of a present property's value. */
type ValueTest = (value: unknown) => boolean;

const NEVER: ValueTest = () => false;

const negated =
  (test: ValueTest): ValueTest =>
  (value) =>
    !test(value);

/** exact (matchesExact) with the filter side read once. */
function exactTest(filterValue: unknown): ValueTest {
  if (isBooleanLikePropertyValue(filterValue)) {
    const truthy = isTruthyPropertyValue(filterValue);
    return (value) => isTruthyPropertyValue(value) === truthy;
  }
  if (Array.isArray(filterValue)) {
    const candidates = filterValue.map((candidate) => toPropertyString(candidate).toLowerCase());
    return (value) => candidates.includes(toPropertyString(value).toLowerCase());
  }
  const expected = toPropertyString(filterValue).toLowerCase();
  return (value) => toPropertyString(value).toLowerCase() === expected;
}

function containsTest(needle: unknown): ValueTest {
  const lowered = asciiLowercase(toPropertyString(needle));
  return (value) => asciiLowercase(toPropertyString(value)).includes(lowered);
}

function containsAnyTest(needles: unknown): ValueTest {
  const lowered = (Array.isArray(needles) ? needles : [needles]).map((needle) => asciiLowercase(toPropertyString(needle)));
  return (value) => {
    const text = asciiLowercase(toPropertyString(value));
    for (const needle of lowered) if (text.includes(needle)) return true;
    return false;
  };
}

function affixTest(operator: 'starts_with' | 'ends_with', affix: unknown): ValueTest {
  const lowered = asciiLowercase(toPropertyString(affix));
  return operator === 'starts_with'
    ? (value) => asciiLowercase(toPropertyString(value)).startsWith(lowered)
    : (value) => asciiLowercase(toPropertyString(value)).endsWith(lowered);
}

/** An invalid pattern, or a match that overflowed its bound, is false for both operators. */
function regexTest(operator: 'regex' | 'not_regex', pattern: unknown): ValueTest {
  const regex = compileRegex(toPropertyString(pattern));
  if (!regex) return NEVER;
  return (value) => {
    const found = regex.test(toPropertyString(value));
    if (found === null) return false;
    return operator === 'regex' ? found : !found;
  };
}

function numberTest(operator: 'gt' | 'gte' | 'lt' | 'lte', filterValue: unknown): ValueTest {
  const right = toPropertyNumber(filterValue);
  if (right === null) return NEVER;
  const left = (value: unknown) => toPropertyNumber(value);
  switch (operator) {
    case 'gt':
      return (value) => {
        const number = left(value);
        return number !== null && number > right;
      };
    case 'gte':
      return (value) => {
        const number = left(value);
        return number !== null && number >= right;
      };
    case 'lt':
      return (value) => {
        const number = left(value);
        return number !== null && number < right;
      };
    case 'lte':
      return (value) => {
        const number = left(value);
        return number !== null && number <= right;
      };
  }
}

function betweenTest(operator: 'between' | 'not_between', bounds: unknown): ValueTest {
  if (!Array.isArray(bounds) || bounds.length !== 2) return NEVER;
  const low = toPropertyNumber(bounds[0]);
  const high = toPropertyNumber(bounds[1]);
  if (low === null || high === null || Number.isNaN(low) || Number.isNaN(high) || low > high) return NEVER;
  return (value) => {
    const number = toPropertyNumber(value);
    if (number === null || Number.isNaN(number)) return false;
    const inRange = number >= low && number <= high;
    return operator === 'between' ? inRange : !inRange;
  };
}

const SEMVER_ORDER_TESTS: Readonly<Record<string, (order: number) => boolean>> = {
  semver_eq: (order) => order === 0,
  semver_neq: (order) => order !== 0,
  semver_gt: (order) => order > 0,
  semver_gte: (order) => order >= 0,
  semver_lt: (order) => order < 0,
  semver_lte: (order) => order <= 0,
};

function semverTest(operator: string, filterValue: unknown): ValueTest {
  const right = parseVersion(filterValue);
  const accepts = SEMVER_ORDER_TESTS[operator]!;
  if (!right) return NEVER;
  return (value) => {
    const left = parseVersion(value);
    return left !== null && accepts(compareVersions(left, right));
  };
}

/** The test of a present value for an operator that needs a (non-null) filter value, or null to defer to matchProperty. */
function valueTest(operator: string, filterValue: unknown): ValueTest | null {
  switch (operator) {
    case 'exact':
      return exactTest(filterValue);
    case 'is_not':
      return negated(exactTest(filterValue));
    case 'icontains':
      return containsTest(filterValue);
    case 'not_icontains':
      return negated(containsTest(filterValue));
    case 'icontains_multi':
      return containsAnyTest(filterValue);
    case 'not_icontains_multi':
      return negated(containsAnyTest(filterValue));
    case 'starts_with':
    case 'ends_with':
      return affixTest(operator, filterValue);
    case 'not_starts_with':
      return negated(affixTest('starts_with', filterValue));
    case 'not_ends_with':
      return negated(affixTest('ends_with', filterValue));
    case 'regex':
    case 'not_regex':
      return regexTest(operator, filterValue);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return numberTest(operator, filterValue);
    case 'between':
    case 'not_between':
      return betweenTest(operator, filterValue);
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte':
      return semverTest(operator, filterValue);
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard':
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact':
      return null;
    default:
      // Unknown operators (and in/not_in, flag_evaluates_to, which are not property filters) never match.
      return NEVER;
  }
}

/**
 * Compiles a non-cohort, non-flag property filter (an object; see matchProperty). The filter is
 * read now: compile again after changing it.
 */
export function compilePropertyMatcher(filter: PropertyFilter): PropertyMatcher {
  const key = propertyLookupKey(filter);
  const operator = filter.operator ?? 'exact';
  if (operator === 'is_set') return (properties) => hasOwn(properties, key);
  if (operator === 'is_not_set') return (properties) => !hasOwn(properties, key);
  // Every other operator needs a filter value; a null one never matches (not even negations).
  if (filter.value === undefined || filter.value === null) return () => false;
  const test = valueTest(operator, filter.value);
  if (test === null) {
    const snapshot = { ...filter };
    return (properties, env) => matchProperty(snapshot, properties, env);
  }
  if (TRUE_WHEN_MISSING.has(operator)) return (properties) => !hasOwn(properties, key) || test(properties[key]);
  return (properties) => hasOwn(properties, key) && test(properties[key]);
}
