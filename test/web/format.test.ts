/**
 * How insights write their numbers (web/src/pages/insights/viz/format.ts): below a quadrillion in
 * full with separators, from a quadrillion up in exponent notation, so a huge total keeps the
 * legend, the table and the bold number narrow.
 */
import { describe, expect, it } from 'vitest';
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
