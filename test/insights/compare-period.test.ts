/**
 * The previous period of a trends comparison, as PostHog's QueryPreviousPeriodDateRange and
 * QueryCompareToDateRange compute it; each expected range is worked out by hand in its comment.
 */
import { describe, expect, it } from 'vitest';
import { isReadableCompareTo, labelPeriod, previousPeriod } from '../../src/insights/core/compare-period.js';
import { trendsWindow, windowBetween, type Interval } from '../../src/insights/trends-window.js';

const NOW = new Date('2026-11-21T10:30:00Z'); // a Saturday

function previous(dateFrom: string, dateTo: string | null, interval: Interval = 'day', compareTo: string | null = null, timezone = 'UTC') {
  const range = { interval, dateFrom, dateTo };
  const p = previousPeriod(range, trendsWindow(range, NOW, { timezone }), NOW, compareTo);
  return [p.from.toISOString(), p.to.toISOString()];
}

describe('the previous period', () => {
  it('moves "-7d" back by its length plus PostHog\'s extra day, so both periods have 8 days', () => {
    // Current: Nov 14 .. Nov 21 23:59:59.999999, 7d 23:59:59.999999 long; minus that is Nov 6
    // 00:00:00.000001, the time of day set to Nov 14's (Nov 6), plus a day: Nov 7 .. Nov 14 23:59:59.999999.
    expect(previous('-7d', null)).toEqual(['2026-11-07T00:00:00.000Z', '2026-11-15T00:00:00.000Z']);
    expect(windowBetween(new Date('2026-11-07T00:00:00Z'), new Date('2026-11-15T00:00:00Z'), 'day').days).toEqual([
      '2026-11-07',
      '2026-11-08',
      '2026-11-09',
      '2026-11-10',
      '2026-11-11',
      '2026-11-12',
      '2026-11-13',
      '2026-11-14',
    ]);
  });

  it('moves other ranges back by their length without the extra day', () => {
    // -30d: Oct 22 .. Nov 21 end, 30d 23:59:59.999999 long: Sep 21 .. Oct 21 end.
    expect(previous('-30d', null)).toEqual(['2026-09-21T00:00:00.000Z', '2026-10-22T00:00:00.000Z']);
    // Absolute dates have no delta: Nov 1 .. Nov 7 end is compared with Oct 25 .. Oct 31 end.
    expect(previous('2026-11-01', '2026-11-07')).toEqual(['2026-10-25T00:00:00.000Z', '2026-11-01T00:00:00.000Z']);
    // A relative date_to: no extra day for -14d. Nov 7 .. Nov 20 end (13d 23:59:59.999999): Oct 24 .. Nov 6 end.
    expect(previous('-14d', '-1d')).toEqual(['2026-10-24T00:00:00.000Z', '2026-11-07T00:00:00.000Z']);
  });

  it('keeps the time of day by hour', () => {
    // -24h at 10:30: Nov 20 10:00 .. Nov 21 10:59:59.999999; back by 1d 0:59:59.999999 is Nov 19
    // 09:00:00.000001, set to 10:00: Nov 19 10:00 .. Nov 20 10:59:59.999999 (25 hours, as the current).
    expect(previous('-24h', null, 'hour')).toEqual(['2026-11-19T10:00:00.000Z', '2026-11-20T11:00:00.000Z']);
  });

  it('reads week and month ranges from the day date_from names, not the bucket start', () => {
    // By week the current window starts on Sunday Oct 18, but the period is Oct 22 .. Nov 21 end.
    expect(previous('-30d', null, 'week')).toEqual(['2026-09-21T00:00:00.000Z', '2026-10-22T00:00:00.000Z']);
  });

  it('compares this month or year so far with the whole previous one', () => {
    expect(previous('mStart', null)).toEqual(['2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z']);
    expect(previous('yStart', null)).toEqual(['2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']);
  });

  it('counts local days across a DST change', () => {
    // New York, -14d at 05:30 EST: Nov 7 .. Nov 21 end local; back 14d 23:59:59.999999 is Oct 23,
    // plus a day: Oct 24 00:00 EDT (04:00Z) .. Nov 7 23:59:59.999999 EST (Nov 8 05:00Z).
    expect(previous('-14d', null, 'day', null, 'America/New_York')).toEqual(['2026-10-24T04:00:00.000Z', '2026-11-08T05:00:00.000Z']);
  });

  it('starts at compare_to before the current start, with the current length', () => {
    expect(previous('-7d', null, 'day', '-1w')).toEqual(['2026-11-07T00:00:00.000Z', '2026-11-15T00:00:00.000Z']);
    // Nov 14 - 1 month = Oct 14, plus 7d 23:59:59.999999.
    expect(previous('-7d', null, 'day', '-1m')).toEqual(['2026-10-14T00:00:00.000Z', '2026-10-22T00:00:00.000Z']);
    // Not truncated to the day: Nov 14 00:00 - 36 hours = Nov 12 12:00, to Nov 20 11:59:59.999999.
    expect(previous('-7d', null, 'day', '-36h')).toEqual(['2026-11-12T12:00:00.000Z', '2026-11-20T12:00:00.000Z']);
    expect(previous('-7d', null, 'day', '2026-01-01')).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-09T00:00:00.000Z']);
  });

  it('reads only the compare_to dates it can', () => {
    for (const ok of ['-1d', '-1w', '-2m', '-1q', '-1y', '-3h', '2026-01-01']) expect(isReadableCompareTo(ok)).toBe(true);
    for (const bad of ['', 'yesterday', '-1x', '1w', '-1wStart', '2026-13-01']) expect(isReadableCompareTo(bad)).toBe(false);
  });

  it('marks each entry with its period', () => {
    expect(labelPeriod([{ label: 'a' }], 'previous')).toEqual([{ label: 'a', compare: true, compare_label: 'previous' }]);
  });
});
