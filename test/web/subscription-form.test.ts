/**
 * The subscription form's conversions (web/src/pages/subscriptions/subscription-form.ts): the
 * environment's wall-clock time to the server's UTC schedule and back, weekdays moved with the UTC
 * date, daylight saving time, a month without the chosen day. Expected instants worked out by hand
 * from the zones' offsets.
 */
import { describe, expect, it } from 'vitest';
import {
  bodyFromForm,
  formFromSubscription,
  instantOf,
  newSubscriptionForm,
  wallTime,
  type StoredSubscription,
  type SubscriptionBody,
  type SubscriptionForm,
} from '../../web/src/pages/subscriptions/subscription-form.js';

const form = (fields: Partial<SubscriptionForm>, zone = 'UTC'): SubscriptionForm => ({
  ...newSubscriptionForm(zone, new Date('2026-03-02T12:00:00Z')),
  emails: [{ address: 'ana@example.com' }],
  ...fields,
});

/** What the server stores from the body (the fields the form reads back). */
const stored = (body: SubscriptionBody): StoredSubscription => ({ ...body });

describe('zoned time', () => {
  it('finds the instant of a wall time, across daylight saving time', () => {
    // New York: UTC-5 in winter, UTC-4 from 8 March 2026 (02:00 local).
    expect(instantOf({ year: 2026, month: 1, day: 15, hour: 9, minute: 0 }, 'America/New_York').toISOString()).toBe(
      '2026-01-15T14:00:00.000Z',
    );
    expect(instantOf({ year: 2026, month: 7, day: 15, hour: 9, minute: 0 }, 'America/New_York').toISOString()).toBe(
      '2026-07-15T13:00:00.000Z',
    );
    expect(instantOf({ year: 2026, month: 3, day: 8, hour: 3, minute: 30 }, 'America/New_York').toISOString()).toBe(
      '2026-03-08T07:30:00.000Z',
    );
    // Kolkata: UTC+5:30, no DST.
    expect(instantOf({ year: 2026, month: 12, day: 7, hour: 3, minute: 0 }, 'Asia/Kolkata').toISOString()).toBe('2026-12-06T21:30:00.000Z');
    expect(wallTime(new Date('2026-12-06T21:30:00Z'), 'Asia/Kolkata')).toEqual({ year: 2026, month: 12, day: 7, hour: 3, minute: 0 });
  });
});

describe('form and body', () => {
  it('sends weekdays of the UTC date the time falls on, and reads them back', () => {
    const values = form({ frequency: 'weekly', weekdays: ['monday', 'thursday'], start_date: '2026-12-07', time: '03:00' }, 'Asia/Kolkata');
    const body = bodyFromForm(values, 'Asia/Kolkata');
    expect(body).toMatchObject({ byweekday: ['sunday', 'wednesday'], bysetpos: null, start_date: '2026-12-06T21:30:00.000Z' });
    const back = formFromSubscription(stored(body), 'Asia/Kolkata');
    expect(back).toMatchObject({ weekdays: ['monday', 'thursday'], start_date: '2026-12-07', time: '03:00', frequency: 'weekly' });
    // West of UTC, a late evening is the next UTC day.
    const ny = bodyFromForm(
      form({ frequency: 'weekly', weekdays: ['sunday'], start_date: '2026-01-04', time: '22:00' }),
      'America/New_York',
    );
    expect(ny).toMatchObject({ byweekday: ['monday'], start_date: '2026-01-05T03:00:00.000Z' });
  });

  it('sends monthly rules by position, with "day" as all seven days', () => {
    const body = bodyFromForm(
      form({
        frequency: 'monthly',
        monthly_mode: 'position',
        setpos: '-1',
        setpos_day: 'day',
        interval: 3,
        start_date: '2026-04-01',
        time: '09:00',
      }),
      'UTC',
    );
    expect(body).toMatchObject({
      frequency: 'monthly',
      interval: 3,
      bysetpos: -1,
      byweekday: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      start_date: '2026-04-01T09:00:00.000Z',
    });
    expect(formFromSubscription(stored(body), 'UTC')).toMatchObject({ monthly_mode: 'position', setpos: '-1', setpos_day: 'day' });
  });

  it('starts a monthly rule by day of the month in the next month that has that day', () => {
    const body = bodyFromForm(
      form({ frequency: 'monthly', monthly_mode: 'day_of_month', day_of_month: 31, start_date: '2026-04-10', time: '08:15' }),
      'UTC',
    );
    expect(body).toMatchObject({ byweekday: null, bysetpos: null, start_date: '2026-05-31T08:15:00.000Z' });
    expect(formFromSubscription(stored(body), 'UTC')).toMatchObject({ monthly_mode: 'day_of_month', day_of_month: 31 });
  });

  it('joins e-mail recipients with commas, without blanks, and reads them back', () => {
    const body = bodyFromForm(form({ emails: [{ address: ' ana@example.com ' }, { address: '' }, { address: 'bo@example.org' }] }), 'UTC');
    expect(body.target_value).toBe('ana@example.com,bo@example.org');
    expect(formFromSubscription(stored(body), 'UTC').emails).toEqual([{ address: 'ana@example.com' }, { address: 'bo@example.org' }]);
  });
});
