/**
 * User patterns run on a linear-time engine (RE2's syntax, as ClickHouse's `match` and Rust's
 * `regex` crate): a pattern that makes a backtracking engine take exponential time answers at
 * once, and ClickHouse's replacement syntax is honoured.
 */
import { describe, expect, it } from 'vitest';
import { compileClickHouseRegex, compileLinearRegex } from '../../src/lib/linear-regex.js';

/** Inputs on which a backtracking engine runs for 2^n steps before failing. */
const EXPLOSIVE = [
  { pattern: '(a+)+$', text: `${'a'.repeat(5000)}!`, fixed: 'a'.repeat(5000) },
  { pattern: '^(a|a)*b', text: 'a'.repeat(5000), fixed: `${'a'.repeat(5000)}b` },
  { pattern: '^(\\w+\\s?)*$', text: `${'word '.repeat(2000)}!`, fixed: 'word '.repeat(2000) },
  { pattern: '(x+x+)+y', text: 'x'.repeat(5000), fixed: `${'x'.repeat(5000)}y` },
];

describe('compileLinearRegex', () => {
  it('matches unanchored, with RE2 syntax (inline flags, named groups, Unicode and POSIX classes)', () => {
    const test = (pattern: string, text: string) => compileLinearRegex(pattern)!.test(text);
    expect(test('alu', 'value')).toBe(true);
    expect(test('^alu', 'value')).toBe(false);
    expect(test('(?i)^VALUE$', 'value')).toBe(true);
    expect(test('^VALUE$', 'value')).toBe(false);
    expect(test('(?P<user>\\w+)@example\\.com$', 'ada@example.com')).toBe(true);
    expect(test('(?<user>\\w+)@', 'ada@example.com')).toBe(true);
    expect(test('^\\p{L}+$', 'café')).toBe(true);
    expect(test('^[[:digit:]]+$', '2026')).toBe(true);
    expect(test('^.$', '😀')).toBe(true);
    expect(test('(?s)a.b', 'a\nb')).toBe(true);
    expect(test('a.b', 'a\nb')).toBe(false);
    expect(test('(?m)^b$', 'a\nb')).toBe(true);
  });

  it("lets `.` match a newline as ClickHouse's match does, not as the regex crate", () => {
    expect(compileClickHouseRegex('a.b')!.test('a\nb')).toBe(true);
    expect(compileClickHouseRegex('(?-s)a.b')!.test('a\nb')).toBe(false);
    expect(compileLinearRegex('a.b')!.test('a\nb')).toBe(false);
    expect(compileClickHouseRegex('a.b')!.replaceAll('a\nb', 'x')).toBe('x');
  });

  it("reads Rust's \\u escapes as code points", () => {
    expect(compileLinearRegex('^caf\\u00e9$')!.test('café')).toBe(true);
    expect(compileLinearRegex('^caf\\u{E9}$')!.test('café')).toBe(true);
    expect(compileLinearRegex('^\\U0001F600$')!.test('😀')).toBe(true);
    expect(compileLinearRegex('^\\\\u00e9$')!.test('\\u00e9')).toBe(true);
  });

  it('refuses \\u escapes for ClickHouse, whose RE2 has none (a bound pattern with one fails the query)', () => {
    expect(compileClickHouseRegex('^caf\\u00e9$')).toBeNull();
    expect(compileClickHouseRegex('^caf\\x{e9}$')!.test('café')).toBe(true);
  });

  it('gives null for what RE2 does not accept: invalid syntax, look-around, back-references', () => {
    for (const pattern of ['(', '?*', '[z-a]', 'a{2,1}', 'a{1001}', 'foo(?=bar)', '(?<!x)y', '(a)\\1', '(?x) a b']) {
      expect(compileLinearRegex(pattern), pattern).toBeNull();
    }
  });

  it.each(EXPLOSIVE)('answers $pattern without backtracking', ({ pattern, text, fixed }) => {
    const regex = compileLinearRegex(pattern)!;
    expect(regex.test(text)).toBe(false);
    expect(regex.test(fixed)).toBe(true);
  });

  it("replaces as ClickHouse's replaceRegexpAll: \\0 the match, \\1…\\9 groups, \\\\ a backslash", () => {
    const replace = (pattern: string, text: string, replacement: string) => compileLinearRegex(pattern)!.replaceAll(text, replacement);
    expect(replace('/u/(\\d+)', '/u/42/x/u/7', '/user-\\1')).toBe('/user-42/x/user-7');
    expect(replace('\\d+', 'a1b22', '<\\0>')).toBe('a<1>b<22>');
    expect(replace('(a)|(b)', 'ab', '[\\1\\2]')).toBe('[a][b]');
    expect(replace('(a)', 'a', '\\5|\\\\|$1|$&')).toBe('|\\|$1|$&');
    expect(replace('price', '/price', '$cost')).toBe('/$cost');
    expect(replace('(a+)+$', `${'a'.repeat(3000)}!`, 'x')).toBe(`${'a'.repeat(3000)}!`);
  });

  it('compiles each pattern once', () => {
    expect(compileLinearRegex('^same$')).toBe(compileLinearRegex('^same$'));
    expect(compileLinearRegex('(')).toBeNull();
  });
});
