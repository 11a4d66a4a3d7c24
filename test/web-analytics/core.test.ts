import { describe, expect, it } from 'vitest';
import { overviewItem, previousPeriod, vitalsBand, vitalsBreakdown, VITALS_THRESHOLDS } from '../../src/web-analytics/core/index.js';

describe('web analytics core', () => {
  it('takes the previous period as long as the current one, just before it', () => {
    const current = { from: new Date('2025-11-09T23:00:00Z'), to: new Date('2025-11-16T23:00:00Z') };
    expect(previousPeriod(current)).toEqual({ from: new Date('2025-11-02T23:00:00Z'), to: new Date('2025-11-09T23:00:00Z') });
  });

  it('shapes tiles as PostHog: percentages 0–100, change rounded, none from zero', () => {
    expect(overviewItem('bounce rate', 'percentage', 0.25, 0.5, true)).toEqual({
      key: 'bounce rate',
      kind: 'percentage',
      value: 25,
      previous: 50,
      changeFromPreviousPct: -50,
      isIncreaseBad: true,
    });
    expect(overviewItem('views', 'unit', 5, 0).changeFromPreviousPct).toBeNull();
    expect(overviewItem('views', 'unit', 2, 3).changeFromPreviousPct).toBe(-33);
    expect(overviewItem('session duration', 'duration_s', null, 10)).toMatchObject({ value: null, changeFromPreviousPct: null });
  });

  it('bands web vitals at the thresholds: good up to the first, poor past the second', () => {
    expect(vitalsBand(2500, VITALS_THRESHOLDS.LCP)).toBe('good');
    expect(vitalsBand(2501, VITALS_THRESHOLDS.LCP)).toBe('needs_improvements');
    expect(vitalsBand(4000, VITALS_THRESHOLDS.LCP)).toBe('needs_improvements');
    expect(vitalsBand(4001, VITALS_THRESHOLDS.LCP)).toBe('poor');
    expect(vitalsBand(0.1, VITALS_THRESHOLDS.CLS)).toBe('good');
    expect(vitalsBand(0.26, VITALS_THRESHOLDS.CLS)).toBe('poor');
    expect(vitalsBand(201, VITALS_THRESHOLDS.INP)).toBe('needs_improvements');
    expect(vitalsBand(3001, VITALS_THRESHOLDS.FCP)).toBe('poor');
    expect(
      vitalsBreakdown(
        [
          { path: '/a', value: 100 },
          { path: '/b', value: 300 },
          { path: '/c', value: 900 },
        ],
        VITALS_THRESHOLDS.INP,
      ),
    ).toEqual({ good: [{ path: '/a', value: 100 }], needs_improvements: [{ path: '/b', value: 300 }], poor: [{ path: '/c', value: 900 }] });
  });
});
