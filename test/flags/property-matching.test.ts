import { describe, expect, it } from 'vitest';
import { compileRegex, matchProperty, type MatchEnvironment, type PropertyFilter } from '../../src/flags/engine/index.js';

const env: MatchEnvironment = { timezone: 'UTC', now: new Date('2024-06-15T12:00:00Z') };

function match(operator: string | undefined, value: unknown, properties: Record<string, unknown>, key = 'key'): boolean {
  const filter: PropertyFilter = { key, type: 'person', value, ...(operator === undefined ? {} : { operator }) };
  return matchProperty(filter, properties, env);
}

describe('exact / is_not', () => {
  it('defaults to exact when no operator is given', () => {
    expect(match(undefined, 'value', { key: 'value' })).toBe(true);
    expect(match(undefined, 'value', { key: 'value2' })).toBe(false);
  });

  it('compares case-insensitively (Unicode lowercase)', () => {
    expect(match('exact', 'VALUE', { key: 'value' })).toBe(true);
    expect(match('exact', 'ÉCOLE', { key: 'école' })).toBe(true);
  });

  it('matches any element of an array value, case-insensitively', () => {
    expect(match('exact', ['US', 'CA', 'Uk'], { key: 'uk' })).toBe(true);
    expect(match('exact', ['US', 'CA'], { key: 'de' })).toBe(false);
    expect(match('exact', [], { key: 'us' })).toBe(false);
  });

  it('compares numbers and strings as text', () => {
    expect(match('exact', 5, { key: '5' })).toBe(true);
    expect(match('exact', '5', { key: 5 })).toBe(true);
    expect(match('exact', ['1', '2'], { key: 2 })).toBe(true);
    expect(match('exact', '5.0', { key: 5 })).toBe(false);
  });

  it('treats boolean-like filter values by truthiness', () => {
    expect(match('exact', true, { key: 'TRUE' })).toBe(true);
    expect(match('exact', 'true', { key: true })).toBe(true);
    expect(match('exact', 'True', { key: 'true' })).toBe(true);
    // "false" matches anything that is not true/"true", including unrelated text and null.
    expect(match('exact', 'false', { key: 'banana' })).toBe(true);
    expect(match('exact', false, { key: null })).toBe(true);
    expect(match('exact', false, { key: 'true' })).toBe(false);
    // An array of only true/false strings compares truthiness too: all-truthy vs P.
    expect(match('exact', ['true', 'false'], { key: 'true' })).toBe(false);
    expect(match('exact', ['true', 'false'], { key: 'no' })).toBe(true);
  });

  it('compares null property values as the text "null"', () => {
    expect(match('exact', 'null', { key: null })).toBe(true);
    expect(match('exact', 'value', { key: null })).toBe(false);
  });

  it('is_not negates exact and is true when the property is missing', () => {
    expect(match('is_not', 'value', { key: 'value2' })).toBe(true);
    expect(match('is_not', 'value', { key: 'VALUE' })).toBe(false);
    expect(match('is_not', 'value', { key: null })).toBe(true);
    expect(match('is_not', ['value1', 'value2'], { key: 'value2' })).toBe(false);
    expect(match('is_not', 'value', { other: 'x' })).toBe(true);
  });

  it('exact is false for a missing property', () => {
    expect(match('exact', 'value', {})).toBe(false);
  });

  it('never matches a null or absent filter value, even for negating operators', () => {
    expect(match('exact', null, { key: null })).toBe(false);
    expect(match('is_not', null, {})).toBe(false);
    expect(match('not_icontains', undefined, { key: 'x' })).toBe(false);
  });
});

describe('is_set / is_not_set', () => {
  it('counts a key present with null as set', () => {
    expect(match('is_set', 'is_set', { key: null })).toBe(true);
    expect(match('is_not_set', 'is_not_set', { key: null })).toBe(false);
  });

  it('missing keys are not set', () => {
    expect(match('is_set', 'is_set', { other: 1 })).toBe(false);
    expect(match('is_not_set', 'is_not_set', { other: 1 })).toBe(true);
  });

  it('does not need a filter value', () => {
    expect(match('is_set', undefined, { key: '' })).toBe(true);
  });
});

describe('icontains family', () => {
  it('icontains is ASCII case-insensitive and stringifies numbers', () => {
    expect(match('icontains', 'valUe', { key: '343tfvalue5' })).toBe(true);
    expect(match('icontains', 'valUe', { key: 'Alakazam' })).toBe(false);
    expect(match('icontains', '3', { key: 323 })).toBe(true);
    expect(match('icontains', 'valUe', { key: 123 })).toBe(false);
  });

  it('uses ASCII-only lowercasing (non-ASCII letters must match case exactly)', () => {
    expect(match('icontains', 'É', { key: 'école' })).toBe(false);
    expect(match('icontains', 'é', { key: 'ÉCOLE é' })).toBe(true);
  });

  it('reads a null property as the text "null"', () => {
    expect(match('icontains', 'nu', { key: null })).toBe(true);
  });

  it('not_icontains negates, and is true for a missing property', () => {
    expect(match('not_icontains', 'foo', { key: 'xFOOx' })).toBe(false);
    expect(match('not_icontains', 'foo', { key: 'bar' })).toBe(true);
    expect(match('not_icontains', 'foo', {})).toBe(true);
    expect(match('icontains', 'foo', {})).toBe(false);
  });

  it('icontains_multi matches when any value is contained', () => {
    expect(match('icontains_multi', ['abc', 'XYZ'], { key: '--xyz--' })).toBe(true);
    expect(match('icontains_multi', ['abc', 'xyz'], { key: 'nothing' })).toBe(false);
    expect(match('not_icontains_multi', ['abc', 'xyz'], { key: 'nothing' })).toBe(true);
    expect(match('not_icontains_multi', ['abc'], {})).toBe(true);
  });

  it('starts_with / ends_with and their negations', () => {
    expect(match('starts_with', 'Val', { key: 'value' })).toBe(true);
    expect(match('starts_with', 'Val', { key: 'a value' })).toBe(false);
    expect(match('not_starts_with', 'Val', { key: 'a value' })).toBe(true);
    expect(match('ends_with', 'LUE', { key: 'value' })).toBe(true);
    expect(match('not_ends_with', 'LUE', { key: 'value' })).toBe(false);
    expect(match('not_ends_with', 'x', {})).toBe(true);
    expect(match('ends_with', 'x', {})).toBe(false);
  });
});

describe('regex / not_regex', () => {
  it('searches unanchored in the property text', () => {
    expect(match('regex', 'alue', { key: 'value' })).toBe(true);
    expect(match('regex', '^val', { key: 'value' })).toBe(true);
    expect(match('regex', '^alue', { key: 'value' })).toBe(false);
    expect(match('regex', '\\d+', { key: 'abc123' })).toBe(true);
    expect(match('regex', '^12', { key: 123 })).toBe(true);
  });

  it('is false for BOTH regex and not_regex when the pattern is invalid', () => {
    expect(match('regex', '?*', { key: 'value' })).toBe(false);
    expect(match('not_regex', '?*', { key: 'value' })).toBe(false);
    expect(compileRegex('?*')).toBeNull();
  });

  it('supports look-around and Rust-style leading inline flags', () => {
    expect(match('regex', 'foo(?=bar)', { key: 'foobar' })).toBe(true);
    expect(match('regex', '(?i)^VALUE$', { key: 'value' })).toBe(true);
    expect(match('regex', '^VALUE$', { key: 'value' })).toBe(false);
  });

  it('bounds a pattern with look-around: overflow is false for both regex and not_regex', () => {
    // fancy-regex's backtrack limit; here a time bound on the pattern's own thread.
    const long = { key: `${'a'.repeat(5000)}!` };
    expect(match('regex', '^(a+)+(?=b)', long)).toBe(false);
    expect(match('not_regex', '^(a+)+(?=b)', long)).toBe(false);
    expect(match('not_regex', '^(a+)+(?=c)', { key: 'aac' })).toBe(false);
    expect(match('not_regex', '^(a+)+(?=c)', { key: 'aa' })).toBe(true);
  });

  it('supports back-references, and (?i) inside a pattern', () => {
    expect(match('regex', '^(\\w)\\1$', { key: 'aa' })).toBe(true);
    expect(match('regex', '^(\\w)\\1$', { key: 'ab' })).toBe(false);
    expect(match('regex', '^a(?i)B$', { key: 'ab' })).toBe(true);
  });

  it('runs a pattern without look-around or back-references in linear time, as the regex crate', () => {
    // A backtracking engine takes 2^5000 steps here; fancy-regex hands this pattern to the regex crate.
    const long = { key: `${'a'.repeat(5000)}!` };
    expect(match('regex', '(a+)+$', long)).toBe(false);
    expect(match('not_regex', '(a+)+$', long)).toBe(true);
    expect(match('regex', '^(a|a)*!$', long)).toBe(true);
    expect(match('regex', '(\\u0061+)+$', long)).toBe(false);
  });

  it('not_regex negates and is true for a missing property', () => {
    expect(match('not_regex', '^val', { key: 'value' })).toBe(false);
    expect(match('not_regex', '^val', { key: 'other' })).toBe(true);
    expect(match('not_regex', '^val', {})).toBe(true);
    expect(match('regex', '^val', {})).toBe(false);
  });
});

describe('numeric comparisons', () => {
  it('compares numbers and numeric strings numerically', () => {
    expect(match('gt', 1, { key: 2 })).toBe(true);
    expect(match('gt', '1', { key: '2' })).toBe(true);
    expect(match('gt', 100, { key: '30' })).toBe(false);
    expect(match('lt', '100', { key: '30' })).toBe(true); // not "100" < "30" lexicographically
    expect(match('gte', 2, { key: 2 })).toBe(true);
    expect(match('lte', 2, { key: 2.5 })).toBe(false);
    expect(match('lt', 0, { key: -1.5 })).toBe(true);
    expect(match('gt', '1e3', { key: 1001 })).toBe(true);
  });

  it('has no lexicographic fallback: non-numeric values never match', () => {
    expect(match('gt', 'a', { key: 'b' })).toBe(false);
    expect(match('lt', 5, { key: 'abc' })).toBe(false);
    expect(match('gt', 5, { key: null })).toBe(false);
    expect(match('gt', 5, { key: true })).toBe(false);
    expect(match('gt', 5, { key: ' 7' })).toBe(false); // Rust's parser rejects whitespace
  });

  it('is false for a missing property', () => {
    expect(match('gt', 1, {})).toBe(false);
    expect(match('lte', 1, {})).toBe(false);
  });

  it('between is inclusive; not_between is its complement and true when missing', () => {
    expect(match('between', [1, 10], { key: 1 })).toBe(true);
    expect(match('between', ['1', '10'], { key: '10' })).toBe(true);
    expect(match('between', [1, 10], { key: 11 })).toBe(false);
    expect(match('not_between', [1, 10], { key: 11 })).toBe(true);
    expect(match('not_between', [1, 10], {})).toBe(true);
    expect(match('between', [1, 10], {})).toBe(false);
  });

  it('between rejects malformed bounds and non-numeric properties for both operators', () => {
    expect(match('between', [10, 1], { key: 5 })).toBe(false);
    expect(match('not_between', [10, 1], { key: 5 })).toBe(false);
    expect(match('between', [1], { key: 1 })).toBe(false);
    expect(match('not_between', ['a', 3], { key: 5 })).toBe(false);
    expect(match('not_between', [1, 3], { key: 'abc' })).toBe(false);
    expect(match('not_between', [1, 3], { key: 'NaN' })).toBe(false);
  });
});

describe('other operators', () => {
  it('in / not_in / flag_evaluates_to / unknown operators never match a plain property', () => {
    expect(match('in', 'x', { key: 'x' })).toBe(false);
    expect(match('not_in', 'x', { key: 'y' })).toBe(false);
    expect(match('flag_evaluates_to', true, { key: true })).toBe(false);
    expect(match('made_up', 'x', { key: 'x' })).toBe(false);
  });

  it('reads person_metadata filters from their reserved key', () => {
    const filter: PropertyFilter = { key: 'created_at', type: 'person_metadata', operator: 'is_set', value: null };
    expect(matchProperty(filter, { created_at: 1 }, env)).toBe(false);
    expect(matchProperty(filter, { __posthog_person_metadata__created_at: 1 }, env)).toBe(true);
  });
});
