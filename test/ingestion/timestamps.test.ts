import { describe, expect, it } from 'vitest';

import { FUTURE_EVENT_CUTOFF_MS, computeEventTimestamp, parseTimestamp, resolveSentAt } from '../../src/ingestion/core/timestamps.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const iso = (date: Date) => date.toISOString();

describe('computeEventTimestamp', () => {
  it('uses now when nothing is sent', () => {
    const result = computeEventTimestamp({ now });
    expect(iso(result.timestamp)).toBe('2026-06-01T12:00:00.000Z');
    expect(result.warnings).toEqual([]);
  });

  it('uses the timestamp as sent when there is no sent_at', () => {
    expect(iso(computeEventTimestamp({ now, timestamp: '2026-05-01T00:00:00Z' }).timestamp)).toBe('2026-05-01T00:00:00.000Z');
  });

  it('corrects clock skew with sent_at: now + (timestamp − sent_at)', () => {
    // Client clock 1 h fast: the event happened 10 s before sending.
    const result = computeEventTimestamp({ now, timestamp: '2026-06-01T13:00:00Z', sentAt: '2026-06-01T13:00:10Z' });
    expect(iso(result.timestamp)).toBe('2026-06-01T11:59:50.000Z');
    expect(result.warnings).toEqual([]);
  });

  it('accepts sent_at as a Date (from the query `_`)', () => {
    const result = computeEventTimestamp({ now, timestamp: '2026-06-01T13:00:00Z', sentAt: new Date('2026-06-01T13:00:10Z') });
    expect(iso(result.timestamp)).toBe('2026-06-01T11:59:50.000Z');
  });

  it('ignores sent_at when properties.$ignore_sent_at is true (only boolean true)', () => {
    const input = { now, timestamp: '2026-05-01T00:00:00Z', sentAt: '2026-06-01T13:00:10Z' };
    expect(iso(computeEventTimestamp({ ...input, properties: { $ignore_sent_at: true } }).timestamp)).toBe('2026-05-01T00:00:00.000Z');
    expect(iso(computeEventTimestamp({ ...input, properties: { $ignore_sent_at: 'true' } }).timestamp)).not.toBe(
      '2026-05-01T00:00:00.000Z',
    );
  });

  it('lets offset override timestamp and sent_at: now − offset', () => {
    expect(iso(computeEventTimestamp({ now, offset: 500 }).timestamp)).toBe('2026-06-01T11:59:59.500Z');
    const both = computeEventTimestamp({ now, offset: 1000, timestamp: '2020-01-01T00:00:00Z', sentAt: '2020-01-01T00:00:05Z' });
    expect(iso(both.timestamp)).toBe('2026-06-01T11:59:59.000Z');
    expect(iso(computeEventTimestamp({ now, offset: 0 }).timestamp)).toBe(iso(now));
    expect(iso(computeEventTimestamp({ now, offset: 1.9 }).timestamp)).toBe('2026-06-01T11:59:59.999Z');
  });

  it('ignores a non-numeric offset', () => {
    expect(iso(computeEventTimestamp({ now, offset: '500', timestamp: '2026-05-01T00:00:00Z' }).timestamp)).toBe(
      '2026-05-01T00:00:00.000Z',
    );
    expect(iso(computeEventTimestamp({ now, offset: Number.NaN }).timestamp)).toBe(iso(now));
  });

  it('clamps events more than 23 h in the future to now, with a warning', () => {
    const result = computeEventTimestamp({ now, timestamp: '2026-06-03T12:00:00Z', offset: undefined });
    expect(iso(result.timestamp)).toBe(iso(now));
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]!.type).toBe('event_timestamp_in_future');
    expect(result.warnings[0]!.details).toMatchObject({
      timestamp: '2026-06-03T12:00:00Z',
      now: iso(now),
      result: '2026-06-03T12:00:00.000Z',
    });
  });

  it('keeps events exactly 23 h ahead and clamps one millisecond more', () => {
    const at = new Date(now.getTime() + FUTURE_EVENT_CUTOFF_MS);
    expect(computeEventTimestamp({ now, timestamp: iso(at) }).timestamp.getTime()).toBe(at.getTime());
    const over = new Date(at.getTime() + 1);
    expect(computeEventTimestamp({ now, timestamp: iso(over) }).timestamp.getTime()).toBe(now.getTime());
  });

  it('clamps a future result produced by skew correction or a negative offset', () => {
    const skew = computeEventTimestamp({ now, timestamp: '2026-06-05T00:00:00Z', sentAt: '2026-06-01T00:00:00Z' });
    expect(iso(skew.timestamp)).toBe(iso(now));
    expect(skew.warnings[0]!.type).toBe('event_timestamp_in_future');
    const negative = computeEventTimestamp({ now, offset: -2 * FUTURE_EVENT_CUTOFF_MS });
    expect(iso(negative.timestamp)).toBe(iso(now));
  });

  it('falls back to now with ignored_invalid_timestamp for an unparsable timestamp', () => {
    for (const timestamp of ['not a date', '2026-13-01T00:00:00Z', '2026-02-30', { a: 1 }, true]) {
      const result = computeEventTimestamp({ now, timestamp });
      expect(iso(result.timestamp)).toBe(iso(now));
      expect(result.warnings.map((w) => w.type)).toEqual(['ignored_invalid_timestamp']);
      expect(result.warnings[0]!.details).toMatchObject({ field: 'timestamp', value: timestamp });
    }
  });

  it('ignores an unparsable sent_at with a warning and uses the timestamp as sent', () => {
    const result = computeEventTimestamp({ now, timestamp: '2026-05-01T00:00:00Z', sentAt: 'invalid-date' });
    expect(iso(result.timestamp)).toBe('2026-05-01T00:00:00.000Z');
    expect(result.warnings).toEqual([
      { type: 'ignored_invalid_timestamp', details: { eventUuid: '', field: 'sent_at', value: 'invalid-date', reason: 'invalid format' } },
    ]);
  });

  it('treats empty and null timestamp / sent_at as absent', () => {
    expect(computeEventTimestamp({ now, timestamp: '', sentAt: null }).warnings).toEqual([]);
    expect(computeEventTimestamp({ now, timestamp: null, sentAt: '' }).warnings).toEqual([]);
  });

  it('replaces a result outside years 0‥9999 by now with a warning', () => {
    const ancient = computeEventTimestamp({ now, timestamp: '-000050-01-01T00:00:00Z' });
    expect(iso(ancient.timestamp)).toBe(iso(now));
    expect(ancient.warnings[0]).toMatchObject({ type: 'ignored_invalid_timestamp', details: { reason: 'out of bounds' } });
    const hugeOffset = computeEventTimestamp({ now, offset: 1e15 });
    expect(iso(hugeOffset.timestamp)).toBe(iso(now));
    expect(hugeOffset.warnings[0]!.type).toBe('ignored_invalid_timestamp');
    expect(iso(computeEventTimestamp({ now, timestamp: '0001-01-01T12:00:00Z' }).timestamp)).toBe('0001-01-01T12:00:00.000Z');
    // The bound itself: the first instant of year 0 is kept, the one before it is not.
    expect(computeEventTimestamp({ now, timestamp: '0000-01-01T00:00:00Z' })).toEqual({
      timestamp: new Date('0000-01-01T00:00:00Z'),
      warnings: [],
    });
    expect(computeEventTimestamp({ now, timestamp: '-000001-12-31T23:59:59.999Z' }).warnings[0]).toMatchObject({
      details: { reason: 'out of bounds' },
    });
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
    ['2026-01-02T03:04:05.123456Z', '2026-01-02T03:04:05.123Z'],
    ['2026-01-02T03:04:05,5Z', '2026-01-02T03:04:05.500Z'],
    ['2026-01-02T03:04:05+02:00', '2026-01-02T01:04:05.000Z'],
    ['2026-01-02T03:04:05-0130', '2026-01-02T04:34:05.000Z'],
    ['2026-01-02T03:04:05+02', '2026-01-02T01:04:05.000Z'],
    ['2026-01-02 03:04:05', '2026-01-02T03:04:05.000Z'],
    ['2026-01-02T03:04:05', '2026-01-02T03:04:05.000Z'],
    ['2026-01-02T03:04', '2026-01-02T03:04:00.000Z'],
    ['2026-01-02', '2026-01-02T00:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2026-12-31T23:59:60Z', '2026-12-31T23:59:59.000Z'],
    ['  2026-01-02T03:04:05z  ', '2026-01-02T03:04:05.000Z'],
    ['2026-01-02T03:04:05 UTC', '2026-01-02T03:04:05.000Z'],
    ['Tue, 1 Jul 2003 10:52:37 +0200', '2003-07-01T08:52:37.000Z'],
    ['Tue, 1 Jul 2003 10:52:37 GMT', '2003-07-01T10:52:37.000Z'],
    ['Tue, 1 Jul 2003 10:52:37', '2003-07-01T10:52:37.000Z'],
    ['1672574400', '2023-01-01T12:00:00.000Z'],
    ['1672574400000', '2023-01-01T12:00:00.000Z'],
  ])('parses %j', (text, expected) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(expected);
  });

  it('parses numeric epochs (seconds below 1e11, else milliseconds)', () => {
    expect(parseTimestamp(1672574400)?.toISOString()).toBe('2023-01-01T12:00:00.000Z');
    expect(parseTimestamp(1672574400123)?.toISOString()).toBe('2023-01-01T12:00:00.123Z');
    expect(parseTimestamp(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it.each([
    ['2026-02-29'],
    ['2025-00-10'],
    ['2026-01-32'],
    ['2026-01-01T24:00:00Z'],
    ['2026-01-01T10:60:00Z'],
    ['2026-01-01T10:00:00+25:00'],
    ['garbage'],
    [''],
  ])('rejects %j', (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });

  it('rejects non-string, non-number values', () => {
    expect(parseTimestamp(null)).toBeUndefined();
    expect(parseTimestamp({})).toBeUndefined();
    expect(parseTimestamp([2026])).toBeUndefined();
  });
});

describe('resolveSentAt', () => {
  it('prefers the body sent_at', () => {
    expect(resolveSentAt('2026-06-01T12:00:00Z', { _: '1780000000000' })).toBe('2026-06-01T12:00:00Z');
  });

  it('reads query sent_at or _ as epoch milliseconds', () => {
    expect((resolveSentAt(undefined, { _: '1780315200000' }) as Date).toISOString()).toBe('2026-06-01T12:00:00.000Z');
    expect((resolveSentAt('', { sent_at: '1780315200000', _: '1' }) as Date).toISOString()).toBe('2026-06-01T12:00:00.000Z');
    expect((resolveSentAt(undefined, { _: ['1780315200000'] }) as Date).toISOString()).toBe('2026-06-01T12:00:00.000Z');
  });

  it('ignores seconds, garbage and absent values', () => {
    expect(resolveSentAt(undefined, { _: '1780315200' })).toBeUndefined();
    expect(resolveSentAt(undefined, { _: 'abc' })).toBeUndefined();
    expect(resolveSentAt(undefined, { _: '99999999999999999999' })).toBeUndefined();
    expect(resolveSentAt(undefined)).toBeUndefined();
    expect(resolveSentAt(12345, {})).toBeUndefined();
  });
});
