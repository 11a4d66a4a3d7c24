import { describe, expect, it } from 'vitest';
import {
  bucketIndex,
  bucketStart,
  parseTrendsDate,
  trendsBounds,
  trendsWindow,
  type TrendsRange,
  type TrendsZone,
} from '../../src/insights/trends-window.js';
import { effectiveTimezone, fromWall, toWall } from '../../src/lib/zoned-time.js';

const NOW = new Date('2026-11-21T10:30:00Z'); // a Saturday; 05:30 in New York (EST), 16:00 in Kolkata

const iso = (d: Date | null) => d?.toISOString() ?? null;
const range = (interval: TrendsRange['interval'], dateFrom: string, dateTo: string | null = null): TrendsRange => ({
  interval,
  dateFrom,
  dateTo,
});
const win = (r: TrendsRange, zone: TrendsZone, now = NOW) => trendsWindow(r, now, zone);
const starts = (w: ReturnType<typeof trendsWindow>) => w.buckets.map((b) => b.toISOString());
const hours = (w: ReturnType<typeof trendsWindow>) =>
  w.buckets.map((b, i) => ((w.buckets[i + 1] ?? w.to).getTime() - b.getTime()) / 3_600_000);

describe('time zones', () => {
  it('falls back to UTC when the zone is missing or unknown', () => {
    for (const tz of [undefined, null, 42, '', '  ', 'Mars/Olympus', 'not a zone']) expect(effectiveTimezone(tz)).toBe('UTC');
    expect(effectiveTimezone('Asia/Kolkata')).toBe('Asia/Kolkata');
    const utc = win(range('day', '-7d'), {});
    for (const tz of [undefined, null, 'Mars/Olympus', 7]) {
      const w = win(range('day', '-7d'), { timezone: tz });
      expect(w.timezone).toBe('UTC');
      expect(starts(w)).toEqual(starts(utc));
      expect(w.days).toEqual(utc.days);
    }
  });

  it('maps wall clocks both ways, earliest in an overlap, gap end in a gap', () => {
    const tz = 'America/New_York';
    expect(toWall(Date.parse('2026-11-21T10:30:00Z'), tz)).toBe(Date.parse('2026-11-21T05:30:00Z'));
    expect(fromWall(Date.parse('2026-11-01T01:30:00Z'), tz)).toBe(Date.parse('2026-11-01T05:30:00Z')); // EDT, not EST
    expect(fromWall(Date.parse('2026-03-08T02:30:00Z'), tz)).toBe(Date.parse('2026-03-08T07:30:00Z')); // in the gap: 03:30 EDT
    expect(fromWall(Date.parse('2026-09-06T00:00:00Z'), 'America/Santiago')).toBe(Date.parse('2026-09-06T04:00:00Z'));
  });
});

describe('reading dates in the zone', () => {
  const ny = (text: string, now = NOW) => iso(parseTrendsDate(text, now, 'America/New_York'));
  it('reads relative dates on the local wall clock', () => {
    expect(ny('-7d')).toBe('2026-11-14T05:00:00.000Z');
    expect(ny('-2w')).toBe('2026-11-07T05:00:00.000Z');
    expect(ny('-1m')).toBe('2026-10-21T04:00:00.000Z'); // EDT then
    expect(ny('-1y')).toBe('2025-11-21T05:00:00.000Z');
    expect(ny('dStart')).toBe('2026-11-21T05:00:00.000Z');
    expect(ny('mStart')).toBe('2026-11-01T04:00:00.000Z'); // DST ends at 02:00 that day
    expect(ny('yStart')).toBe('2026-01-01T05:00:00.000Z');
    expect(ny('-24h')).toBe('2026-11-20T10:00:00.000Z');
    expect(iso(parseTrendsDate('-24h', NOW, 'Asia/Kolkata'))).toBe('2026-11-20T10:30:00.000Z');
    expect(iso(parseTrendsDate('-1h', new Date('2026-11-21T10:29:00Z'), 'Asia/Kolkata'))).toBe('2026-11-21T08:30:00.000Z');
    expect(ny('all')).toBe('1970-01-01T00:00:00.000Z');
    // Local "today" is still the 20th at 03:00 UTC.
    expect(ny('dStart', new Date('2026-11-21T03:00:00Z'))).toBe('2026-11-20T05:00:00.000Z');
    expect(ny('-1d', new Date('2026-11-21T03:00:00Z'))).toBe('2026-11-19T05:00:00.000Z');
  });

  it('clamps month steps to the month length', () => {
    expect(ny('-1m', new Date('2026-03-31T16:00:00Z'))).toBe('2026-02-28T05:00:00.000Z');
    expect(ny('-1y', new Date('2028-02-29T16:00:00Z'))).toBe('2027-02-28T05:00:00.000Z');
  });

  it('reads naive dates locally and honours explicit offsets', () => {
    expect(ny('2026-11-01')).toBe('2026-11-01T04:00:00.000Z');
    expect(ny('2026-11-02')).toBe('2026-11-02T05:00:00.000Z');
    expect(ny('2026-11-01 01:30')).toBe('2026-11-01T05:30:00.000Z');
    expect(ny('2026-11-01T12:00:00Z')).toBe('2026-11-01T12:00:00.000Z');
    expect(ny('2026-11-01T12:00:00.250+05:30')).toBe('2026-11-01T06:30:00.250Z');
    expect(ny('2026-11-01T12:00:00-0800')).toBe('2026-11-01T20:00:00.000Z');
    expect(iso(parseTrendsDate('2026-11-01', NOW))).toBe('2026-11-01T00:00:00.000Z');
    expect(iso(parseTrendsDate('2026-11-01', NOW, 'Asia/Kolkata'))).toBe('2026-10-31T18:30:00.000Z');
    for (const bad of ['soon', '2026-02-30', '2026-13-01', '2026-11-01 24:00', '-7q', '7d']) expect(ny(bad)).toBeNull();
  });
});

describe('buckets in UTC', () => {
  it('cuts -7d by day into eight buckets through today', () => {
    const w = win(range('day', '-7d'), { timezone: 'UTC' });
    expect(w.buckets).toHaveLength(8);
    expect(iso(w.from)).toBe('2026-11-14T00:00:00.000Z');
    expect(iso(w.to)).toBe('2026-11-22T00:00:00.000Z');
    expect(w.days[0]).toBe('2026-11-14');
    expect(w.labels.at(-1)).toBe('21-Nov-2026');
  });

  it('starts weeks on Sunday, or Monday when week_start_day is 1; months on the first', () => {
    expect(iso(bucketStart(NOW, 'week'))).toBe('2026-11-15T00:00:00.000Z');
    expect(iso(bucketStart(NOW, 'week', 'UTC', 1))).toBe('2026-11-16T00:00:00.000Z');
    expect(iso(bucketStart(NOW, 'month'))).toBe('2026-11-01T00:00:00.000Z');
    expect(iso(bucketStart(NOW, 'hour'))).toBe('2026-11-21T10:00:00.000Z');
    expect(starts(win(range('week', '-14d'), { weekStartDay: 1 }))).toEqual([
      '2026-11-02T00:00:00.000Z',
      '2026-11-09T00:00:00.000Z',
      '2026-11-16T00:00:00.000Z',
    ]);
    expect(starts(win(range('week', '-14d'), { weekStartDay: null }))[0]).toBe('2026-11-01T00:00:00.000Z');
  });

  it('cuts -24h by hour into 25 buckets through the current hour', () => {
    const w = win(range('hour', '-24h'), {});
    expect(w.buckets).toHaveLength(25);
    expect(iso(w.from)).toBe('2026-11-20T10:00:00.000Z');
    expect(iso(w.to)).toBe('2026-11-21T11:00:00.000Z');
    expect(w.days.at(-1)).toBe('2026-11-21 10:00:00');
    expect(w.labels.at(-1)).toBe('21-Nov-2026 10:00');
  });

  it('runs a date_to through the end of its day, or to the instant by hour', () => {
    const w = win(range('day', '2026-11-01', '2026-11-03'), {});
    expect(w.days).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
    expect(iso(w.to)).toBe('2026-11-04T00:00:00.000Z');
    expect(iso(win(range('day', '2026-11-01', '2026-11-03T08:00:00Z'), {}).to)).toBe('2026-11-04T00:00:00.000Z');
    expect(iso(win(range('day', '-7d', '-1d'), {}).to)).toBe('2026-11-21T00:00:00.000Z');
    const h = win(range('hour', '2026-11-01T10:00:00Z', '2026-11-01T12:00:00Z'), {});
    expect(h.days).toEqual(['2026-11-01 10:00:00', '2026-11-01 11:00:00', '2026-11-01 12:00:00']);
    expect(h.to.getTime()).toBe(Date.parse('2026-11-01T12:00:00Z') + 1);
  });

  it('months step by calendar month', () => {
    const w = win(range('month', '2026-01-31', '2026-04-02'), {});
    expect(w.days).toEqual(['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01']);
  });

  it('yields no buckets when date_from is after date_to', () => {
    const w = win(range('day', '2026-11-10', '2026-11-05'), {});
    expect(w.buckets).toEqual([]);
    expect(w.from.getTime()).toBeLessThanOrEqual(w.to.getTime());
  });
});

describe('buckets in local time', () => {
  const NY = { timezone: 'America/New_York' };

  it('starts days at local midnight and names them by local date', () => {
    const w = win(range('day', '-7d'), NY);
    expect(w.timezone).toBe('America/New_York');
    expect(starts(w)[0]).toBe('2026-11-14T05:00:00.000Z');
    expect(iso(w.to)).toBe('2026-11-22T05:00:00.000Z');
    expect(w.days).toEqual([
      '2026-11-14',
      '2026-11-15',
      '2026-11-16',
      '2026-11-17',
      '2026-11-18',
      '2026-11-19',
      '2026-11-20',
      '2026-11-21',
    ]);
    // At 03:00 UTC it is still the 20th in New York: the range ends there.
    const early = win(range('day', '-7d'), NY, new Date('2026-11-21T03:00:00Z'));
    expect(early.days.at(-1)).toBe('2026-11-20');
    expect(iso(early.to)).toBe('2026-11-21T05:00:00.000Z');
  });

  it('has a 23-hour day when DST starts (New York, March)', () => {
    const w = win(range('day', '2026-03-07', '2026-03-09'), NY);
    expect(starts(w)).toEqual(['2026-03-07T05:00:00.000Z', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z']);
    expect(hours(w)).toEqual([24, 23, 24]);
    expect(w.days).toEqual(['2026-03-07', '2026-03-08', '2026-03-09']);
  });

  it('has a 25-hour day when DST ends (New York, November)', () => {
    const w = win(range('day', '2026-10-31', '2026-11-02'), NY);
    expect(starts(w)).toEqual(['2026-10-31T04:00:00.000Z', '2026-11-01T04:00:00.000Z', '2026-11-02T05:00:00.000Z']);
    expect(hours(w)).toEqual([24, 25, 24]);
  });

  it('skips the missing hour and repeats the doubled one by hour', () => {
    const spring = win(range('hour', '2026-03-08', '2026-03-08 05:00'), NY);
    expect(spring.days).toEqual([
      '2026-03-08 00:00:00',
      '2026-03-08 01:00:00',
      '2026-03-08 03:00:00',
      '2026-03-08 04:00:00',
      '2026-03-08 05:00:00',
    ]);
    expect(hours(spring).slice(0, 4)).toEqual([1, 1, 1, 1]);
    const fall = win(range('hour', '2026-11-01', '2026-11-01 03:00'), NY);
    expect(starts(fall)).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T08:00:00.000Z',
    ]);
    expect(fall.labels).toEqual(['1-Nov-2026 00:00', '1-Nov-2026 01:00', '1-Nov-2026 01:00', '1-Nov-2026 02:00', '1-Nov-2026 03:00']);
  });

  it('starts weeks at local midnight, across a DST change', () => {
    expect(iso(bucketStart(NOW, 'week', 'America/New_York'))).toBe('2026-11-15T05:00:00.000Z');
    expect(iso(bucketStart(NOW, 'week', 'America/New_York', 1))).toBe('2026-11-16T05:00:00.000Z');
    const w = win(range('week', '2026-10-28', '2026-11-10'), NY);
    expect(starts(w)).toEqual(['2026-10-25T04:00:00.000Z', '2026-11-01T04:00:00.000Z', '2026-11-08T05:00:00.000Z']);
    expect(w.days).toEqual(['2026-10-25', '2026-11-01', '2026-11-08']);
    expect(iso(w.to)).toBe('2026-11-11T05:00:00.000Z');
  });

  it('London: 23- and 25-hour days, months starting at local midnight in summer time', () => {
    const LON = { timezone: 'Europe/London' };
    const spring = win(range('day', '2026-03-28', '2026-03-30'), LON);
    expect(starts(spring)).toEqual(['2026-03-28T00:00:00.000Z', '2026-03-29T00:00:00.000Z', '2026-03-29T23:00:00.000Z']);
    expect(hours(spring)).toEqual([24, 23, 24]);
    expect(hours(win(range('day', '2026-10-24', '2026-10-26'), LON))).toEqual([24, 25, 24]);
    const months = win(range('month', '2026-02-10', '2026-04-10'), LON);
    expect(starts(months)).toEqual(['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z', '2026-03-31T23:00:00.000Z']);
    expect(months.days).toEqual(['2026-02-01', '2026-03-01', '2026-04-01']);
    expect(iso(months.to)).toBe('2026-04-10T23:00:00.000Z');
    expect(iso(bucketStart(new Date('2026-07-15T12:00:00Z'), 'month', 'Europe/London'))).toBe('2026-06-30T23:00:00.000Z');
  });

  it('Kolkata: days and hours on the half hour', () => {
    const IST = { timezone: 'Asia/Kolkata' };
    const w = win(range('day', '-7d'), IST);
    expect(starts(w)[0]).toBe('2026-11-13T18:30:00.000Z');
    expect(iso(w.to)).toBe('2026-11-21T18:30:00.000Z');
    expect(w.days.at(-1)).toBe('2026-11-21');
    expect(iso(bucketStart(NOW, 'hour', 'Asia/Kolkata'))).toBe('2026-11-21T10:30:00.000Z');
    expect(iso(bucketStart(new Date('2026-11-21T10:29:59Z'), 'hour', 'Asia/Kolkata'))).toBe('2026-11-21T09:30:00.000Z');
    const h = win(range('hour', '-24h'), IST);
    expect(h.buckets).toHaveLength(25);
    expect(iso(h.from)).toBe('2026-11-20T10:30:00.000Z');
    expect(iso(h.to)).toBe('2026-11-21T11:30:00.000Z');
    expect(h.days.at(-1)).toBe('2026-11-21 16:00:00');
    expect(h.labels[0]).toBe('20-Nov-2026 16:00');
  });

  it('a local midnight skipped by DST: the day starts when the gap ends (Santiago)', () => {
    const w = win(range('day', '2026-09-05', '2026-09-07'), { timezone: 'America/Santiago' });
    expect(starts(w)).toEqual(['2026-09-05T04:00:00.000Z', '2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']);
    expect(w.days).toEqual(['2026-09-05', '2026-09-06', '2026-09-07']);
    expect(hours(w)).toEqual([24, 23, 24]);
  });
});

describe('bounds without buckets', () => {
  it("are the window's bounds, in every zone, interval and week start, uncapped", () => {
    const cases: Array<[TrendsRange, TrendsZone]> = [];
    for (const timezone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'America/Santiago']) {
      for (const weekStartDay of [0, 1]) {
        for (const interval of ['hour', 'day', 'week', 'month'] as const) {
          for (const r of [range(interval, '-7d'), range(interval, 'mStart'), range(interval, '2026-09-03', '2026-09-20')]) {
            cases.push([r, { timezone, weekStartDay }]);
          }
        }
      }
    }
    for (const [r, zone] of cases) {
      const w = win(r, zone);
      expect(trendsBounds(r, NOW, zone), JSON.stringify([r, zone])).toEqual({ from: w.from, to: w.to, timezone: w.timezone });
    }
    // A window stops at 5000 buckets; the bounds run to the range's end (`all`: from the epoch).
    const all = range('day', 'all');
    expect(win(all, {}).buckets).toHaveLength(5000);
    expect([win(all, {}).cut, win(range('day', '-7d'), {}).cut]).toEqual([true, false]);
    expect(trendsBounds(all, NOW, {})).toEqual({ from: new Date(0), to: new Date('2026-11-22T00:00:00Z'), timezone: 'UTC' });
    // Backwards: no span, at date_from's bucket.
    const backwards = trendsBounds(range('day', '2026-11-10', '2026-11-05'), NOW, {});
    expect([backwards.from, backwards.to]).toEqual([new Date('2026-11-10T00:00:00Z'), new Date('2026-11-10T00:00:00Z')]);
  });
});

describe("finding an instant's bucket", () => {
  it('uses the boundaries, half-open, -1 outside the window', () => {
    const w = win(range('day', '2026-11-01', '2026-11-02'), { timezone: 'America/New_York' });
    const at = (s: string) => bucketIndex(w, Date.parse(s));
    expect(at('2026-11-01T03:59:59.999Z')).toBe(-1);
    expect(at('2026-11-01T04:00:00.000Z')).toBe(0);
    expect(at('2026-11-02T04:59:59.999Z')).toBe(0); // 23:59:59 EST, still the 1st
    expect(at('2026-11-02T05:00:00.000Z')).toBe(1);
    expect(at('2026-11-03T04:59:59.999Z')).toBe(1);
    expect(at('2026-11-03T05:00:00.000Z')).toBe(-1);
  });

  it('agrees with bucketStart for every hour of a year in several zones', () => {
    for (const timezone of ['UTC', 'America/New_York', 'Europe/London', 'Asia/Kolkata']) {
      for (const interval of ['hour', 'day', 'week', 'month'] as const) {
        const w = win(range(interval, '2026-01-01', '2026-12-31'), { timezone }, new Date('2027-01-01T00:00:00Z'));
        for (let t = w.from.getTime(); t < w.to.getTime(); t += 3_600_000 * 7 + 60_000 * 13) {
          const i = bucketIndex(w, t);
          expect(w.buckets[i]!.getTime()).toBe(bucketStart(new Date(t), interval, timezone).getTime());
        }
      }
    }
  });
});
