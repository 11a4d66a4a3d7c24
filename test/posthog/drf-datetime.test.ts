import { describe, expect, it } from 'vitest';

import {
  DATETIME_INVALID_MESSAGE,
  DATETIME_OVERFLOW_MESSAGE,
  formatDrfDateTime,
  parseDrfDateTime,
} from '../../src/posthog/drf-datetime.js';

/**
 * Input -> DRF DateTimeField result (output string, or the error code), as computed by Python 3.11
 * `datetime.fromisoformat` + Django 4.2's `parse_datetime` fallback regex + DRF's UTC enforcement
 * and representation.
 */
const CASES: [string, string][] = [
  ['2022-01-01T00:00:00', '2022-01-01T00:00:00Z'],
  ['2022-01-01T00:00:00Z', '2022-01-01T00:00:00Z'],
  ['2022-01-01', '2022-01-01T00:00:00Z'],
  ['20220101', '2022-01-01T00:00:00Z'],
  ['2022-01-01T10', '2022-01-01T10:00:00Z'],
  ['2022-01-01 10:00', '2022-01-01T10:00:00Z'],
  ['2022-01-01T10:00:00.123Z', '2022-01-01T10:00:00.123000Z'],
  ['2022-01-01T10:00:00.1234567Z', '2022-01-01T10:00:00.123456Z'],
  ['2022-01-01T10:00:00,5', '2022-01-01T10:00:00.500000Z'],
  ['2022-01-01T10:00:00+05:30', '2022-01-01T04:30:00Z'],
  ['2022-01-01T10:00:00-0800', '2022-01-01T18:00:00Z'],
  ['2022-01-01T10:00:00+05', '2022-01-01T05:00:00Z'],
  ['2022-01-01T10:00+05:30:15', '2022-01-01T04:29:45Z'],
  ['2022-01-01T1000', '2022-01-01T10:00:00Z'],
  ['20220101T101010', '2022-01-01T10:10:10Z'],
  ['2022-1-1 1:2', '2022-01-01T01:02:00Z'],
  ['2022-01-01T10:00 +01:00', '2022-01-01T09:00:00Z'],
  ['2022-01-01T10:00:00 Z', '2022-01-01T10:00:00Z'],
  ['2022-13-01T00:00:00', 'invalid'],
  ['2022-02-29T00:00:00', 'invalid'],
  ['2024-02-29T00:00:00', '2024-02-29T00:00:00Z'],
  ['2022-01-01T24:00:00', 'invalid'],
  ['2022-01-01T10:60', 'invalid'],
  ['2022-01-01T', 'invalid'],
  ['2022-01-01X10:00', '2022-01-01T10:00:00Z'],
  ['yesterday', 'invalid'],
  ['', 'invalid'],
  ['0001-01-01T00:00:00+01:00', 'overflow'],
  ['9999-12-31T23:59:59-01:00', 'overflow'],
  ['0001-01-01T00:00:00', '0001-01-01T00:00:00Z'],
  ['2022-01-01T10:00:00.000000Z', '2022-01-01T10:00:00Z'],
  ['2022-01-01T10:00:00+24:00', 'invalid'],
  ['2022-01-01T10:00:00+23:59', '2021-12-31T10:01:00Z'],
  ['2022-01-01T10:00:00z', 'invalid'],
  ['2022-01-01T10:00:00+0530', '2022-01-01T04:30:00Z'],
  ['2022-01-01T10:00:00.5+01', '2022-01-01T09:00:00.500000Z'],
  ['2022-01-01T10:00:00Z\n', '2022-01-01T10:00:00Z'],
  [' 2022-01-01T10:00:00Z', 'invalid'],
  ['2022-01-01t10:00:00', '2022-01-01T10:00:00Z'],
  ['2022-0101T10:00', 'invalid'],
  ['2022-01-01T10:0000', 'invalid'],
  ['2022-01-01T10:00:00.', 'invalid'],
  ['2022-01-01T10:00:00Z+01:00', 'invalid'],
  ['2022-01-01T10:00:00+01:00:00.5', '2022-01-01T08:59:59.500000Z'],
  ['2022-01-01 1:02:03.4567891234+05:30', '2021-12-31T19:32:03.456789Z'],
  ['2022-01-01T10:00:00-00:00', '2022-01-01T10:00:00Z'],
];

describe('parseDrfDateTime (DRF DateTimeField, iso-8601)', () => {
  it.each(CASES)('%j -> %s', (input, expected) => {
    const r = parseDrfDateTime(input);
    expect(r.ok ? r.iso : r.code).toBe(expected);
  });

  it('uses DRF messages', () => {
    expect(DATETIME_INVALID_MESSAGE).toBe(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
    );
    expect(parseDrfDateTime('nope')).toEqual({ ok: false, code: 'invalid', detail: DATETIME_INVALID_MESSAGE });
    expect(parseDrfDateTime('0001-01-01T00:00:00+01:00')).toEqual({
      ok: false,
      code: 'overflow',
      detail: DATETIME_OVERFLOW_MESSAGE,
    });
    expect(DATETIME_OVERFLOW_MESSAGE).toBe('Datetime value out of range.');
  });

  it.each([[123], [null], [true], [['2022-01-01']], [{}]])('non-strings are invalid: %j', (v) => {
    expect(parseDrfDateTime(v)).toMatchObject({ ok: false, code: 'invalid' });
  });

  it('keeps microseconds beyond the Date millisecond', () => {
    const r = parseDrfDateTime('2022-01-01T10:00:00.123456+01:00');
    expect(r.ok && r.value.date.toISOString()).toBe('2022-01-01T09:00:00.123Z');
    expect(r.ok && r.value.extraMicros).toBe(456);
  });
});

describe('formatDrfDateTime', () => {
  it('drops a zero fraction and pads microseconds', () => {
    expect(formatDrfDateTime(new Date('2022-01-01T00:00:00.000Z'))).toBe('2022-01-01T00:00:00Z');
    expect(formatDrfDateTime(new Date('2022-01-01T00:00:00.120Z'))).toBe('2022-01-01T00:00:00.120000Z');
    expect(formatDrfDateTime({ date: new Date('2022-01-01T00:00:00.000Z'), extraMicros: 7 })).toBe('2022-01-01T00:00:00.000007Z');
  });

  it('pads small years to four digits', () => {
    const early = new Date(0);
    early.setUTCFullYear(5, 0, 1);
    expect(formatDrfDateTime(early)).toBe('0005-01-01T00:00:00Z');
  });

  it('throws on an invalid Date', () => {
    expect(() => formatDrfDateTime(new Date('garbage'))).toThrow(RangeError);
  });
});
