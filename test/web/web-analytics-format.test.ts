/**
 * The web analytics page's own reading and writing (web/src/pages/web/format.ts): durations as
 * PostHog writes them, and the range from the address in Hoglet's names or PostHog's.
 */
import { describe, expect, it } from 'vitest';
import { formatTile, readRange } from '../../web/src/pages/web/format';
import { DEFAULT_DATE_FROM } from '../../web/src/lib/date-range';

describe('formatTile', () => {
  it('writes durations in at most two units, from seconds to days', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [17.4, '17s'],
      [59.6, '1m 0s'],
      [125, '2m 5s'],
      [10_170.5, '2h 49m'],
      [3600, '1h 0m'],
      [86_400 * 3 + 3600 * 4 + 59, '3d 4h'],
    ];
    expect(cases.map(([seconds]) => formatTile('duration_s', seconds))).toEqual(cases.map(([, text]) => text));
  });

  it('writes counts in full, percentages to one decimal and a missing value as a dash', () => {
    expect([formatTile('unit', 1234567), formatTile('percentage', 12.345), formatTile('duration_s', null)]).toEqual([
      '1,234,567',
      '12.3%',
      '–',
    ]);
  });
});

describe('readRange', () => {
  it("reads from and to, or PostHog's date_from and date_to, the former first", () => {
    const read = (query: string) => readRange(new URLSearchParams(query));
    expect(read('')).toEqual({ date_from: DEFAULT_DATE_FROM, date_to: null });
    expect(read('from=-30d&to=2026-11-01')).toEqual({ date_from: '-30d', date_to: '2026-11-01' });
    expect(read('date_from=-30d&date_to=2026-11-01')).toEqual({ date_from: '-30d', date_to: '2026-11-01' });
    expect(read('from=-14d&date_from=-30d')).toEqual({ date_from: '-14d', date_to: null });
  });
});
