/**
 * PostHog's date texts as src/posthog/date-grammar.ts reads them: the one grammar the server's
 * date ranges (parseTrendsDate) and the web app's range checks share.
 */
import { describe, expect, it } from 'vitest';
import { readDateText, utcTime } from '../../src/posthog/date-grammar.js';
import { parseTrendsDate } from '../../src/insights/trends-window.js';

describe('readDateText', () => {
  it('reads named and relative dates', () => {
    expect(readDateText('all')).toEqual({ kind: 'named', name: 'all' });
    expect(readDateText(' mStart ')).toEqual({ kind: 'named', name: 'mStart' });
    expect(readDateText('-24h')).toEqual({ kind: 'relative', amount: 24, unit: 'h' });
    expect(readDateText('-180d')).toEqual({ kind: 'relative', amount: 180, unit: 'd' });
    expect(readDateText('-1y')).toEqual({ kind: 'relative', amount: 1, unit: 'y' });
  });

  it('reads a day, a local date-time and one with an offset into their parts', () => {
    expect(readDateText('2025-11-10')).toEqual({
      kind: 'absolute',
      year: 2025,
      month: 11,
      day: 10,
      hour: 0,
      minute: 0,
      second: 0,
      millisecond: 0,
      hasTime: false,
      offsetMinutes: null,
    });
    expect(readDateText('2025-11-10T08:30:15.25')).toMatchObject({ hour: 8, minute: 30, second: 15, millisecond: 250, hasTime: true });
    expect(readDateText('2025-11-10 08:30Z')).toMatchObject({ hasTime: true, offsetMinutes: 0 });
    expect(readDateText('2025-11-10T08:30:00+05:30')).toMatchObject({ offsetMinutes: 330 });
    expect(readDateText('2025-11-10T08:30:00-0100')).toMatchObject({ offsetMinutes: -60 });
  });

  it('says a text is no date when PostHog would not read it, or the calendar has no such day', () => {
    for (const text of [
      '',
      'nonsense',
      '7d',
      '-7',
      '-7x',
      'dstart',
      '-123456d',
      '2025-11-31',
      '2025-02-29',
      '2025-11-10T24:00',
      '2025/11/10',
      '2025-13-45',
      '0000-00-00',
      '0000-01-01',
      '2025-11-10T10:00:00+99:99',
      '2025-11-10T10:00:00+24:00',
      '2025-11-10T10:00:00-05:60',
    ]) {
      expect(readDateText(text), text).toBeNull();
    }
    expect(readDateText('2024-02-29')).not.toBeNull();
    expect(readDateText('2025-11-10T10:00:00-23:59')).toMatchObject({ offsetMinutes: -(23 * 60 + 59) });
  });

  it('reads years before 100 as themselves, not as 1900 and after', () => {
    expect(new Date(utcTime(1, 1, 1)).toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(new Date(utcTime(99, 12, 31, 23, 59, 59, 999)).toISOString()).toBe('0099-12-31T23:59:59.999Z');
    // Out-of-range parts carry over as Date.UTC's do.
    expect(new Date(utcTime(2024, 12, 32)).toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(readDateText('0004-02-29')).not.toBeNull(); // a leap year
    expect(readDateText('0100-02-29')).toBeNull(); // a century that is not
    expect(parseTrendsDate('0001-01-01', new Date(), 'UTC')!.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseTrendsDate('0099-06-15T10:00:00+02:00', new Date(), 'UTC')!.toISOString()).toBe('0099-06-15T08:00:00.000Z');
  });
});
