import { describe, expect, it } from 'vitest';

import {
  DELIVERY_BUFFER_MS,
  buildRRule,
  isDue,
  nextDeliveryDate,
  nextDeliveryDateOnSave,
  occurrenceAfter,
  occurrencesBetween,
  planDelivery,
  scheduleChanged,
  scheduleKey,
  toUtcDate,
} from '../../src/subscriptions/core/schedule.js';
import type { ScheduleFields } from '../../src/subscriptions/core/types.js';

const d = (iso: string): Date => new Date(iso);
const iso = (x: Date | null): string | null => (x === null ? null : x.toISOString());

/** Walk a schedule the way PostHog's scheduler does: each delivery advances from the previous date. */
function walk(s: ScheduleFields, now: Date, n: number): (string | null)[] {
  const out: (string | null)[] = [];
  let next = nextDeliveryDate(s, now);
  out.push(iso(next));
  for (let i = 1; i < n && next; i++) {
    next = nextDeliveryDate(s, now, next);
    out.push(iso(next));
  }
  return out;
}

describe('nextDeliveryDate: PostHog model tests', () => {
  // posthog/models/test/test_subscription_model.py, frozen at 2022-01-01.
  const base: ScheduleFields = { frequency: 'weekly', interval: 2, start_date: '2022-01-01T00:00:00Z' };

  it('weekly every 2 weeks from a later from_dt', () => {
    expect(iso(nextDeliveryDate(base, d('2022-01-01T00:00:00Z'), d('2022-01-02T00:00:00Z')))).toBe('2022-01-15T00:00:00.000Z');
  });

  it('on create, the start itself is inside the 15-minute buffer and is skipped', () => {
    expect(iso(nextDeliveryDate(base, d('2022-01-01T00:00:00Z')))).toBe('2022-01-15T00:00:00.000Z');
  });

  it('daily: next occurrence within the upcoming 15 minutes is skipped (set_next_delivery_date in upcoming delta)', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2022-01-01T10:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2022-01-11T09:55:00Z'), d('2022-01-11T10:00:00Z')))).toBe('2022-01-12T10:00:00.000Z');
  });

  it('daily: days behind catches up to the future, never the past', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2022-01-01T10:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2022-01-11T09:55:00Z'), d('2022-01-02T10:00:00Z')))).toBe('2022-01-12T10:00:00.000Z');
  });

  it('complex rule: last Wednesday or Friday of every other month', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 2,
      bysetpos: -1,
      byweekday: ['wednesday', 'friday'],
      start_date: '2022-01-01T00:00:00Z',
    };
    expect(walk(s, d('2022-01-01T00:00:00Z'), 3)).toEqual([
      '2022-01-28T00:00:00.000Z',
      '2022-03-30T00:00:00.000Z',
      '2022-05-27T00:00:00.000Z',
    ]);
  });

  it('third day of every month (all weekdays + bysetpos 3)', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 1,
      bysetpos: 3,
      byweekday: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      start_date: '2022-01-01T00:00:00Z',
    };
    expect(walk(s, d('2022-01-01T00:00:00Z'), 2)).toEqual(['2022-01-03T00:00:00.000Z', '2022-02-03T00:00:00.000Z']);
  });

  it('bysetpos is ignored without byweekday', () => {
    const s: ScheduleFields = { frequency: 'monthly', interval: 1, bysetpos: 3, start_date: '2022-01-01T00:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2022-01-01T00:00:00Z')))).toBe('2022-02-01T00:00:00.000Z');
  });

  it('the API example: weekly from 2022-01-01 (a Saturday) seen on 2025-06-10', () => {
    const s: ScheduleFields = { frequency: 'weekly', interval: 1, start_date: '2022-01-01T00:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2025-06-10T09:12:01.123Z')))).toBe('2025-06-14T00:00:00.000Z');
  });
});

describe('nextDeliveryDate: frequencies', () => {
  const now = d('2024-03-13T12:00:00Z'); // a Wednesday

  it('daily keeps the time of day of start_date', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T08:30:00Z' };
    expect(walk(s, now, 2)).toEqual(['2024-03-14T08:30:00.000Z', '2024-03-15T08:30:00.000Z']);
  });

  it('daily, later the same day when the time has not passed (beyond the buffer)', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T12:16:00Z' };
    expect(iso(nextDeliveryDate(s, now))).toBe('2024-03-13T12:16:00.000Z');
    const t: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T12:15:00Z' };
    // exactly now + 15 min is not "strictly after"
    expect(iso(nextDeliveryDate(t, now))).toBe('2024-03-14T12:15:00.000Z');
  });

  it('daily every 3 days keeps the phase of start_date', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 3, start_date: '2024-03-01T09:00:00Z' };
    // 1, 4, 7, 10, 13 (09:00 is past), 16, 19
    expect(walk(s, now, 2)).toEqual(['2024-03-16T09:00:00.000Z', '2024-03-19T09:00:00.000Z']);
  });

  it('daily restricted to weekdays', () => {
    const s: ScheduleFields = {
      frequency: 'daily',
      interval: 1,
      byweekday: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
      start_date: '2024-01-01T09:00:00Z',
    };
    // Thu 14, Fri 15, Mon 18
    expect(walk(s, now, 3)).toEqual(['2024-03-14T09:00:00.000Z', '2024-03-15T09:00:00.000Z', '2024-03-18T09:00:00.000Z']);
  });

  it('weekly without byweekday repeats on the weekday of start_date', () => {
    const s: ScheduleFields = { frequency: 'weekly', interval: 1, start_date: '2024-01-05T07:00:00Z' }; // a Friday
    expect(walk(s, now, 2)).toEqual(['2024-03-15T07:00:00.000Z', '2024-03-22T07:00:00.000Z']);
  });

  it('weekly on Monday and Wednesday', () => {
    const s: ScheduleFields = {
      frequency: 'weekly',
      interval: 1,
      byweekday: ['wednesday', 'monday'],
      start_date: '2024-01-01T09:00:00Z',
    };
    expect(walk(s, now, 3)).toEqual(['2024-03-18T09:00:00.000Z', '2024-03-20T09:00:00.000Z', '2024-03-25T09:00:00.000Z']);
  });

  it('weekly every 2 weeks on Monday and Friday, weeks counted from start_date (Monday week start)', () => {
    const s: ScheduleFields = {
      frequency: 'weekly',
      interval: 2,
      byweekday: ['monday', 'friday'],
      start_date: '2024-01-03T09:00:00Z', // Wed of week starting Mon 1 Jan
    };
    // period weeks start Jan 1, Jan 15, ..., Mar 11, Mar 25: Fri Mar 15, Mon Mar 25, Fri Mar 29
    expect(walk(s, now, 3)).toEqual(['2024-03-15T09:00:00.000Z', '2024-03-25T09:00:00.000Z', '2024-03-29T09:00:00.000Z']);
  });

  it('monthly without byweekday repeats on the day of month of start_date', () => {
    const s: ScheduleFields = { frequency: 'monthly', interval: 1, start_date: '2023-11-20T06:00:00Z' };
    expect(walk(s, now, 2)).toEqual(['2024-03-20T06:00:00.000Z', '2024-04-20T06:00:00.000Z']);
  });

  it('monthly on the 31st skips months without one (dateutil semantics)', () => {
    const s: ScheduleFields = { frequency: 'monthly', interval: 1, start_date: '2024-01-31T06:00:00Z' };
    expect(walk(s, d('2024-01-31T12:00:00Z'), 3)).toEqual([
      '2024-03-31T06:00:00.000Z',
      '2024-05-31T06:00:00.000Z',
      '2024-07-31T06:00:00.000Z',
    ]);
  });

  it('monthly on the first Monday', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 1,
      byweekday: ['monday'],
      bysetpos: 1,
      start_date: '2024-01-01T09:00:00Z',
    };
    expect(walk(s, now, 3)).toEqual(['2024-04-01T09:00:00.000Z', '2024-05-06T09:00:00.000Z', '2024-06-03T09:00:00.000Z']);
  });

  it('monthly on the last Friday', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 1,
      byweekday: ['friday'],
      bysetpos: -1,
      start_date: '2024-01-01T17:00:00Z',
    };
    expect(walk(s, now, 3)).toEqual(['2024-03-29T17:00:00.000Z', '2024-04-26T17:00:00.000Z', '2024-05-31T17:00:00.000Z']);
  });

  it('monthly, the second Tuesday every 3 months', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 3,
      byweekday: ['tuesday'],
      bysetpos: 2,
      start_date: '2024-01-01T09:00:00Z',
    };
    expect(walk(s, d('2024-01-01T00:00:00Z'), 3)).toEqual([
      '2024-01-09T09:00:00.000Z',
      '2024-04-09T09:00:00.000Z',
      '2024-07-09T09:00:00.000Z',
    ]);
  });

  it('monthly with byweekday and no bysetpos: every such weekday of the month', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 1,
      byweekday: ['thursday'],
      start_date: '2024-01-01T09:00:00Z',
    };
    expect(walk(s, now, 3)).toEqual(['2024-03-14T09:00:00.000Z', '2024-03-21T09:00:00.000Z', '2024-03-28T09:00:00.000Z']);
  });

  it('yearly on the month and day of start_date', () => {
    const s: ScheduleFields = { frequency: 'yearly', interval: 1, start_date: '2020-07-04T00:00:00Z' };
    expect(walk(s, now, 2)).toEqual(['2024-07-04T00:00:00.000Z', '2025-07-04T00:00:00.000Z']);
  });

  it('yearly from 29 February only hits leap years', () => {
    const s: ScheduleFields = { frequency: 'yearly', interval: 1, start_date: '2020-02-29T10:00:00Z' };
    expect(walk(s, d('2021-01-01T00:00:00Z'), 2)).toEqual(['2024-02-29T10:00:00.000Z', '2028-02-29T10:00:00.000Z']);
  });

  it('yearly every 2 years on the first Monday of the year', () => {
    const s: ScheduleFields = {
      frequency: 'yearly',
      interval: 2,
      byweekday: ['monday'],
      bysetpos: 1,
      start_date: '2024-01-01T09:00:00Z',
    };
    expect(walk(s, d('2024-01-02T00:00:00Z'), 2)).toEqual(['2026-01-05T09:00:00.000Z', '2028-01-03T09:00:00.000Z']);
  });
});

describe('nextDeliveryDate: start, count and until', () => {
  it('start_date in the future: the start itself is the first delivery', () => {
    const s: ScheduleFields = { frequency: 'weekly', interval: 1, start_date: '2030-01-07T09:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2024-03-13T12:00:00Z')))).toBe('2030-01-07T09:00:00.000Z');
  });

  it('start_date less than 15 minutes ahead: the first occurrence is skipped', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-03-13T12:10:00Z' };
    expect(iso(nextDeliveryDate(s, d('2024-03-13T12:00:00Z')))).toBe('2024-03-14T12:10:00.000Z');
  });

  it('start_date in the past keeps its phase', () => {
    const s: ScheduleFields = { frequency: 'weekly', interval: 3, start_date: '2023-12-25T09:00:00Z' }; // Mon
    // every 3 weeks from Dec 25: Jan 15, Feb 5, Feb 26, Mar 18
    expect(iso(nextDeliveryDate(s, d('2024-03-13T12:00:00Z')))).toBe('2024-03-18T09:00:00.000Z');
  });

  it('a start_date far in the past gives the same answer as the unshortened rule', () => {
    const schedules: ScheduleFields[] = [
      { frequency: 'daily', interval: 1, start_date: '1900-01-01T06:07:08Z' },
      { frequency: 'daily', interval: 7, byweekday: ['sunday'], start_date: '1901-03-03T06:00:00Z' },
      { frequency: 'weekly', interval: 3, byweekday: ['tuesday', 'saturday'], bysetpos: -1, start_date: '1950-05-05T01:00:00Z' },
      { frequency: 'weekly', interval: 1, start_date: '1970-01-01T00:00:00Z' },
      { frequency: 'monthly', interval: 5, start_date: '1900-01-31T23:59:59Z' },
      { frequency: 'monthly', interval: 2, byweekday: ['friday'], bysetpos: -1, start_date: '1910-10-10T10:10:10Z' },
      { frequency: 'monthly', interval: 1, byweekday: ['monday', 'sunday'], bysetpos: 5, start_date: '1999-12-31T00:00:00Z' },
    ];
    const nows = ['2024-03-13T12:00:00Z', '2024-02-29T23:50:00Z', '2025-12-31T23:59:59Z'];
    for (const s of schedules) {
      for (const now of nows) {
        const floor = new Date(Date.parse(now) + DELIVERY_BUFFER_MS);
        const expected = buildRRule(s).after(floor, false);
        expect(iso(nextDeliveryDate(s, d(now))), JSON.stringify(s) + now).toBe(iso(expected));
        expect(expected).not.toBeNull();
      }
    }
  });

  it('count: deliveries stop after count occurrences counted from start_date', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, count: 3, start_date: '2024-01-01T09:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2024-01-01T00:00:00Z')))).toBe('2024-01-01T09:00:00.000Z');
    expect(iso(nextDeliveryDate(s, d('2024-01-02T12:00:00Z')))).toBe('2024-01-03T09:00:00.000Z');
    expect(nextDeliveryDate(s, d('2024-01-03T09:00:00Z'))).toBeNull();
    expect(walk(s, d('2024-01-01T00:00:00Z'), 4)).toEqual([
      '2024-01-01T09:00:00.000Z',
      '2024-01-02T09:00:00.000Z',
      '2024-01-03T09:00:00.000Z',
      null,
    ]);
  });

  it('count counts occurrences in the past too (exhausted before now)', () => {
    const s: ScheduleFields = { frequency: 'weekly', interval: 1, count: 10, start_date: '2020-01-01T09:00:00Z' };
    expect(nextDeliveryDate(s, d('2024-03-13T12:00:00Z'))).toBeNull();
  });

  it('count with bysetpos counts matching occurrences only', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 1,
      byweekday: ['monday'],
      bysetpos: 1,
      count: 2,
      start_date: '2024-01-01T09:00:00Z',
    };
    expect(walk(s, d('2023-12-01T00:00:00Z'), 3)).toEqual(['2024-01-01T09:00:00.000Z', '2024-02-05T09:00:00.000Z', null]);
  });

  it('until_date is inclusive', () => {
    const s: ScheduleFields = {
      frequency: 'daily',
      interval: 1,
      start_date: '2024-01-01T09:00:00Z',
      until_date: '2024-01-05T09:00:00Z',
    };
    expect(iso(nextDeliveryDate(s, d('2024-01-04T12:00:00Z')))).toBe('2024-01-05T09:00:00.000Z');
    expect(nextDeliveryDate(s, d('2024-01-05T08:50:00Z'))).toBeNull(); // 09:00 is within the buffer
  });

  it('until_date passed gives null', () => {
    const s: ScheduleFields = {
      frequency: 'weekly',
      interval: 1,
      start_date: '2023-01-01T09:00:00Z',
      until_date: '2023-06-01T00:00:00Z',
    };
    expect(nextDeliveryDate(s, d('2024-03-13T12:00:00Z'))).toBeNull();
  });

  it('until_date one second before an occurrence excludes it', () => {
    const s: ScheduleFields = {
      frequency: 'daily',
      interval: 1,
      start_date: '2024-01-01T09:00:00Z',
      until_date: '2024-01-05T08:59:59Z',
    };
    expect(iso(nextDeliveryDate(s, d('2024-01-03T12:00:00Z')))).toBe('2024-01-04T09:00:00.000Z');
    expect(nextDeliveryDate(s, d('2024-01-04T12:00:00Z'))).toBeNull();
  });

  it('until_date before start_date: never delivers', () => {
    const s: ScheduleFields = {
      frequency: 'daily',
      interval: 1,
      start_date: '2024-01-10T09:00:00Z',
      until_date: '2024-01-01T00:00:00Z',
    };
    expect(nextDeliveryDate(s, d('2023-01-01T00:00:00Z'))).toBeNull();
  });

  it('a from_dt after now + 15 min wins over now', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T09:00:00Z' };
    expect(iso(nextDeliveryDate(s, d('2024-01-01T00:00:00Z'), '2024-01-05T09:00:00Z'))).toBe('2024-01-06T09:00:00.000Z');
  });

  it('start_date sub-second precision is dropped (dateutil truncates microseconds)', () => {
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T09:00:00.750Z' };
    expect(iso(nextDeliveryDate(s, d('2024-01-02T00:00:00Z')))).toBe('2024-01-02T09:00:00.000Z');
  });

  it('naive and offset start_date strings are read as PostHog reads them (naive = UTC)', () => {
    expect(iso(toUtcDate('2024-01-01T09:00:00'))).toBe('2024-01-01T09:00:00.000Z');
    const s: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T09:00:00+02:00' };
    expect(iso(nextDeliveryDate(s, d('2024-01-02T00:00:00Z')))).toBe('2024-01-02T07:00:00.000Z');
  });

  it('a bysetpos no period can satisfy never occurs (and answers at once)', () => {
    const weekly: ScheduleFields = {
      frequency: 'weekly',
      interval: 1,
      byweekday: ['monday'],
      bysetpos: 2,
      start_date: '2024-01-01T09:00:00Z',
    };
    const daily: ScheduleFields = { ...weekly, frequency: 'daily', bysetpos: -2 };
    const monthly: ScheduleFields = { ...weekly, frequency: 'monthly', bysetpos: 6 };
    for (const s of [weekly, daily, monthly]) {
      expect(nextDeliveryDate(s, d('2024-01-01T00:00:00Z'))).toBeNull();
      expect(occurrencesBetween(s, d('2024-01-01T00:00:00Z'), d('2030-01-01T00:00:00Z'))).toEqual([]);
    }
    // Daily every 7 days from a Tuesday never meets a Sunday.
    const everyWeekFromTuesday: ScheduleFields = {
      frequency: 'daily',
      interval: 14,
      byweekday: ['sunday', 'monday'],
      start_date: '2024-01-02T09:00:00Z',
    };
    expect(nextDeliveryDate(everyWeekFromTuesday, d('2024-01-01T00:00:00Z'))).toBeNull();
    expect(iso(nextDeliveryDate({ ...everyWeekFromTuesday, byweekday: ['tuesday'] }, d('2024-01-03T00:00:00Z')))).toBe(
      '2024-01-16T09:00:00.000Z',
    );
    expect(iso(nextDeliveryDate({ ...everyWeekFromTuesday, interval: 8 }, d('2024-01-01T00:00:00Z')))).toBe('2024-02-11T09:00:00.000Z');
    // ...while the largest reachable position does occur.
    expect(iso(nextDeliveryDate({ ...monthly, bysetpos: 5 }, d('2024-01-01T00:00:00Z')))).toBe('2024-01-29T09:00:00.000Z');
    expect(iso(nextDeliveryDate({ ...weekly, byweekday: ['monday', 'friday'] }, d('2024-01-01T00:00:00Z')))).toBe(
      '2024-01-05T09:00:00.000Z',
    );
  });

  it('an interval so large the next period is past year 9999 gives null', () => {
    const s: ScheduleFields = { frequency: 'yearly', interval: 2147483647, start_date: '2024-01-01T09:00:00Z' };
    expect(nextDeliveryDate(s, d('2024-06-01T00:00:00Z'))).toBeNull();
  });

  it('rejects schedules PostHog could not build', () => {
    const ok: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T00:00:00Z' };
    const now = d('2024-01-01T00:00:00Z');
    expect(() => nextDeliveryDate({ ...ok, frequency: 'fortnightly' }, now)).toThrow(/frequency/);
    expect(() => nextDeliveryDate({ ...ok, interval: 0 }, now)).toThrow(/interval/);
    expect(() => nextDeliveryDate({ ...ok, count: 0 }, now)).toThrow(/count/);
    expect(() => nextDeliveryDate({ ...ok, byweekday: ['funday'] }, now)).toThrow(/weekday/);
    expect(() => nextDeliveryDate({ ...ok, byweekday: ['monday'], bysetpos: 0 }, now)).toThrow(/bysetpos/);
    expect(() => nextDeliveryDate({ ...ok, start_date: 'yesterday' }, now)).toThrow(/Invalid date/);
    // bysetpos is not used without byweekday, so it cannot fail there.
    expect(nextDeliveryDate({ ...ok, bysetpos: 0 }, now)).not.toBeNull();
  });
});

describe('occurrenceAfter / occurrencesBetween', () => {
  const firstMonday: ScheduleFields = {
    frequency: 'monthly',
    interval: 1,
    byweekday: ['monday'],
    bysetpos: 1,
    start_date: '2024-01-01T09:00:00Z',
  };

  it('occurrenceAfter is exclusive unless asked', () => {
    expect(iso(occurrenceAfter(firstMonday, d('2024-02-05T09:00:00Z')))).toBe('2024-03-04T09:00:00.000Z');
    expect(iso(occurrenceAfter(firstMonday, d('2024-02-05T09:00:00Z'), true))).toBe('2024-02-05T09:00:00.000Z');
  });

  it('lists the first Mondays of 2024', () => {
    const got = occurrencesBetween(firstMonday, d('2024-01-01T00:00:00Z'), d('2025-01-01T00:00:00Z')).map((x) =>
      x.toISOString().slice(0, 10),
    );
    expect(got).toEqual([
      '2024-01-01',
      '2024-02-05',
      '2024-03-04',
      '2024-04-01',
      '2024-05-06',
      '2024-06-03',
      '2024-07-01',
      '2024-08-05',
      '2024-09-02',
      '2024-10-07',
      '2024-11-04',
      '2024-12-02',
    ]);
  });

  it('bounds are exclusive by default, inclusive on request, and limit caps the list', () => {
    const daily: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2024-01-01T09:00:00Z' };
    const a = d('2024-01-02T09:00:00Z');
    const b = d('2024-01-05T09:00:00Z');
    expect(occurrencesBetween(daily, a, b).map(iso)).toEqual(['2024-01-03T09:00:00.000Z', '2024-01-04T09:00:00.000Z']);
    expect(occurrencesBetween(daily, a, b, { inclusive: true })).toHaveLength(4);
    expect(occurrencesBetween(daily, a, b, { inclusive: true, limit: 1 }).map(iso)).toEqual(['2024-01-02T09:00:00.000Z']);
    expect(occurrencesBetween(daily, b, a)).toEqual([]);
  });
});

describe('scheduleKey / scheduleChanged (when PostHog recomputes next_delivery_date)', () => {
  const s: ScheduleFields = {
    frequency: 'weekly',
    interval: 1,
    byweekday: ['monday', 'friday'],
    bysetpos: null,
    count: null,
    start_date: '2024-01-01T09:00:00Z',
    until_date: null,
  };

  it('changes of any rrule field count', () => {
    expect(scheduleChanged(s, { ...s, interval: 2 })).toBe(true);
    expect(scheduleChanged(s, { ...s, frequency: 'monthly' })).toBe(true);
    expect(scheduleChanged(s, { ...s, count: 4 })).toBe(true);
    expect(scheduleChanged(s, { ...s, until_date: '2025-01-01T00:00:00Z' })).toBe(true);
    expect(scheduleChanged(s, { ...s, start_date: '2024-01-01T09:00:01Z' })).toBe(true);
    expect(scheduleChanged(s, { ...s, byweekday: ['monday'] })).toBe(true);
    expect(scheduleChanged(s, { ...s, bysetpos: 1 })).toBe(true);
  });

  it('equivalent rules do not', () => {
    expect(scheduleChanged(s, { ...s })).toBe(false);
    expect(scheduleChanged(s, { ...s, byweekday: ['friday', 'monday', 'friday'] })).toBe(false);
    expect(scheduleChanged(s, { ...s, start_date: '2024-01-01T09:00:00.500Z' })).toBe(false);
    expect(scheduleChanged(s, { ...s, start_date: '2024-01-01T11:00:00+02:00' })).toBe(false);
    const noDays: ScheduleFields = { ...s, byweekday: null };
    expect(scheduleChanged(noDays, { ...noDays, bysetpos: 3 })).toBe(false);
    expect(scheduleChanged(noDays, { ...noDays, byweekday: [] })).toBe(false);
    expect(scheduleChanged(noDays, { ...noDays, interval: null })).toBe(false);
  });

  it('the key is an RRULE string', () => {
    expect(scheduleKey(s)).toContain('FREQ=WEEKLY');
    expect(scheduleKey(s)).toContain('BYDAY=MO,FR');
  });
});

describe('nextDeliveryDateOnSave (Subscription.save)', () => {
  const s: ScheduleFields = { frequency: 'weekly', interval: 2, start_date: '2022-01-01T00:00:00Z' };
  const now = d('2022-01-01T00:00:00Z');

  it('computes on create', () => {
    expect(iso(nextDeliveryDateOnSave(s, now))).toBe('2022-01-15T00:00:00.000Z');
  });

  it('keeps the stored value when the schedule did not change', () => {
    const stored = '2022-01-29T00:00:00Z';
    expect(iso(nextDeliveryDateOnSave({ ...s }, now, { schedule: s, next_delivery_date: stored }))).toBe('2022-01-29T00:00:00.000Z');
    expect(nextDeliveryDateOnSave({ ...s, bysetpos: 2 }, now, { schedule: s, next_delivery_date: null })).toBeNull();
  });

  it('recomputes when the schedule changed (PostHog test: new start_date moves it)', () => {
    const moved = { ...s, start_date: '2023-01-01T00:00:00Z' };
    expect(iso(nextDeliveryDateOnSave(moved, now, { schedule: s, next_delivery_date: '2022-01-15T00:00:00Z' }))).toBe(
      '2023-01-01T00:00:00.000Z',
    );
  });
});

describe('isDue / planDelivery (scheduler)', () => {
  const daily: ScheduleFields = { frequency: 'daily', interval: 1, start_date: '2022-01-01T10:00:00Z' };

  it('isDue: next_delivery_date <= now + 15 min', () => {
    const now = d('2022-01-11T09:45:00Z');
    expect(isDue('2022-01-11T10:00:00Z', now)).toBe(true);
    expect(isDue(d('2022-01-11T10:00:00.001Z'), now)).toBe(false);
    expect(isDue(d('2022-01-01T10:00:00Z'), now)).toBe(true);
    expect(isDue(null, now)).toBe(false);
  });

  it('not due: keeps the stored date', () => {
    const plan = planDelivery(daily, d('2022-01-12T10:00:00Z'), d('2022-01-11T10:00:00Z'));
    expect(plan).toEqual({ due: false, next_delivery_date: d('2022-01-12T10:00:00Z') });
    expect(planDelivery(daily, null, d('2022-01-11T10:00:00Z'))).toEqual({ due: false, next_delivery_date: null });
  });

  it('on time: one delivery, next occurrence after it', () => {
    const plan = planDelivery(daily, '2022-01-11T10:00:00Z', d('2022-01-11T09:55:00Z'));
    expect(plan).toEqual({
      due: true,
      scheduled_for: d('2022-01-11T10:00:00Z'),
      latest_occurrence: d('2022-01-11T10:00:00Z'),
      skipped: 0,
      next_delivery_date: d('2022-01-12T10:00:00Z'),
    });
  });

  it('after downtime: the missed occurrences collapse into a single delivery', () => {
    const now = d('2022-01-11T09:55:00Z');
    const plan = planDelivery(daily, d('2022-01-02T10:00:00Z'), now);
    expect(plan).toEqual({
      due: true,
      scheduled_for: d('2022-01-02T10:00:00Z'),
      latest_occurrence: d('2022-01-11T10:00:00Z'),
      skipped: 9,
      next_delivery_date: d('2022-01-12T10:00:00Z'),
    });
    // A second run at the same time finds nothing more to send.
    if (!plan.due) throw new Error('unreachable');
    const again = planDelivery(daily, plan.next_delivery_date, now);
    expect(again.due).toBe(false);
  });

  it('after downtime past the end of the schedule: deliver once, then stop', () => {
    const s: ScheduleFields = { ...daily, count: 5 };
    const plan = planDelivery(s, d('2022-01-03T10:00:00Z'), d('2022-02-01T00:00:00Z'));
    expect(plan).toMatchObject({
      due: true,
      scheduled_for: d('2022-01-03T10:00:00Z'),
      latest_occurrence: d('2022-01-05T10:00:00Z'),
      skipped: 2,
      next_delivery_date: null,
    });
  });

  it('monthly, missed for months', () => {
    const s: ScheduleFields = {
      frequency: 'monthly',
      interval: 1,
      byweekday: ['friday'],
      bysetpos: -1,
      start_date: '2024-01-01T17:00:00Z',
    };
    const plan = planDelivery(s, d('2024-01-26T17:00:00Z'), d('2024-05-01T00:00:00Z'));
    expect(plan).toMatchObject({
      due: true,
      latest_occurrence: d('2024-04-26T17:00:00Z'),
      skipped: 3,
      next_delivery_date: d('2024-05-31T17:00:00Z'),
    });
  });
});
