/**
 * How insights write their numbers (web/src/pages/insights/viz/format.ts): below a quadrillion in
 * full with separators, from a quadrillion up in exponent notation, so a huge total keeps the
 * legend, the table and the bold number narrow. And durations, as insights and web analytics
 * write them (web/src/lib/format.ts). Both modules import nothing, so they run under Node.
 */
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../web/src/lib/format.js';
import { formatNumber } from '../../web/src/pages/insights/viz/format.js';

describe('formatNumber', () => {
  it('writes numbers below a quadrillion in full, with separators and up to two decimals', () => {
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(1234.567)).toBe('1,234.57');
    expect(formatNumber(-42)).toBe('-42');
    expect(formatNumber(999_999_999_999_999)).toBe('999,999,999,999,999');
    expect(formatNumber(-999_999_999_999_999)).toBe('-999,999,999,999,999');
  });

  it('writes a quadrillion and more, either sign, in exponent notation', () => {
    expect(formatNumber(1e15)).toBe('1e15');
    expect(formatNumber(1.234e15)).toBe('1.23e15');
    expect(formatNumber(-1.5e20)).toBe('-1.5e20');
    expect(formatNumber(1e308)).toBe('1e308');
    expect(formatNumber(Number.MAX_VALUE)).toBe('1.8e308');
    expect(formatNumber(-1e308)).toBe('-1e308');
  });

  it('says a missing number with a dash', () => {
    expect(formatNumber(null)).toBe('–');
    expect(formatNumber(undefined)).toBe('–');
    expect(formatNumber(Number.NaN)).toBe('–');
  });
});

describe('formatDuration', () => {
  it('writes seconds in at most two units, as PostHog does, from seconds to days', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [17.4, '17s'],
      [59.6, '1m 0s'],
      [125, '2m 5s'],
      [3600, '1h 0m'],
      [10_170.5, '2h 49m'],
      [86_400 * 3 + 3600 * 4 + 59, '3d 4h'],
    ];
    expect(cases.map(([seconds]) => formatDuration(seconds))).toEqual(cases.map(([, text]) => text));
    expect(formatDuration(null)).toBe('–');
  });
});
