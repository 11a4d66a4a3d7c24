/**
 * Backtracking patterns (look-around, back-references) run on a thread of their own, bounded in
 * time: a runaway pattern answers `overflow` and the next pattern still runs.
 */
import { describe, expect, it } from 'vitest';
import { boundedRegexTest } from '../../src/platform/bounded-regex.js';

describe('boundedRegexTest', () => {
  it('answers look-around and back-references as V8 does', () => {
    expect(boundedRegexTest(/foo(?=bar)/, 'foobar')).toBe(true);
    expect(boundedRegexTest(/foo(?=bar)/, 'foobaz')).toBe(false);
    expect(boundedRegexTest(/(?<!x)y/u, 'xy')).toBe(false);
    expect(boundedRegexTest(/^(\w)\1$/, 'aa')).toBe(true);
    expect(boundedRegexTest(/^CAFÉ$/iu, 'café')).toBe(true);
  });

  it('gives overflow for a runaway pattern, for any text a while, and goes on answering other patterns', () => {
    // 2^5000 steps for a backtracking engine: no budget is ever enough.
    expect(boundedRegexTest(/^(a+)+(?=b)/, `${'a'.repeat(5000)}!`)).toBe('overflow');
    // The pattern is set aside: a client cannot make each call wait out the budget.
    expect(boundedRegexTest(/^(a+)+(?=b)/, 'aab')).toBe('overflow');
    expect(boundedRegexTest(/^(a+)+(?=c)/, 'aac')).toBe(true);
    expect(boundedRegexTest(/^(a+)+(?=c)/, 'aa')).toBe(false);
  });
});
