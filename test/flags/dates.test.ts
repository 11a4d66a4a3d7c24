import { describe, expect, it } from 'vitest';
import {
  evaluateFlags,
  fromWallClock,
  matchProperty,
  parseDateInTimezone,
  parseRelativeDate,
  type MatchEnvironment,
} from '../../src/flags/engine/index.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function dateMatch(operator: string, value: unknown, propertyValue: unknown, env: MatchEnvironment): boolean {
  return matchProperty({ key: 'd', type: 'person', operator, value }, { d: propertyValue }, env);
}

const utcNoon: MatchEnvironment = { timezone: 'UTC', now: new Date('2024-06-15T12:00:00Z') };

describe('property-side dates', () => {
  it('reads numbers as Unix seconds (not milliseconds)', () => {
    expect(dateMatch('is_date_exact', '2024-03-21T00:00:00Z', 1710979200, utcNoon)).toBe(true);
    expect(dateMatch('is_date_before', '2024-03-22', 1710979200, utcNoon)).toBe(true);
    expect(dateMatch('is_date_after', '2024-03-20', 1710979200, utcNoon)).toBe(true);
  });

  it('reads numeric strings as seconds, keeping the fractional part', () => {
    expect(dateMatch('is_date_exact', '2024-03-21T00:00:00Z', '1710979200', utcNoon)).toBe(true);
    expect(dateMatch('is_date_after', '2024-03-21T00:00:00Z', 1710979200.5, utcNoon)).toBe(true);
    expect(dateMatch('is_date_exact', '2024-03-21T00:00:00.500Z', 1710979200.5, utcNoon)).toBe(true);
  });

  it('parses textual properties like filter values', () => {
    expect(dateMatch('is_date_before', '2024-06-01', '2024-05-31T23:59:59Z', utcNoon)).toBe(true);
    expect(dateMatch('is_date_before', '2024-06-01', '2024-06-01 00:00:01', utcNoon)).toBe(false);
  });

  it('is false for missing, unparsable or non-date properties and non-string filter values', () => {
    expect(matchProperty({ key: 'd', type: 'person', operator: 'is_date_before', value: '2024-01-01' }, {}, utcNoon)).toBe(false);
    expect(dateMatch('is_date_before', '2030-01-01', 'not a date', utcNoon)).toBe(false);
    expect(dateMatch('is_date_before', '2030-01-01', true, utcNoon)).toBe(false);
    expect(dateMatch('is_date_before', 1900000000, 1710979200, utcNoon)).toBe(false);
    expect(dateMatch('is_date_after', 'garbage', 1710979200, utcNoon)).toBe(false);
  });

  it('uses strict comparisons', () => {
    expect(dateMatch('is_date_before', '2024-03-21T00:00:00Z', 1710979200, utcNoon)).toBe(false);
    expect(dateMatch('is_date_after', '2024-03-21T00:00:00Z', 1710979200, utcNoon)).toBe(false);
  });
});

describe('filter-side formats', () => {
  it('honours explicit offsets regardless of the team timezone', () => {
    expect(iso(parseDateInTimezone('2024-06-15T10:00:00+02:00', 'Asia/Tokyo', utcNoon.now))).toBe('2024-06-15T08:00:00.000Z');
    expect(iso(parseDateInTimezone('2024-06-15T10:00:00.250Z', 'America/New_York', utcNoon.now))).toBe('2024-06-15T10:00:00.250Z');
  });

  it('interprets bare dates and naive datetimes in the team timezone', () => {
    expect(iso(parseDateInTimezone('2024-06-15', 'UTC', utcNoon.now))).toBe('2024-06-15T00:00:00.000Z');
    expect(iso(parseDateInTimezone('2024-06-15', 'America/New_York', utcNoon.now))).toBe('2024-06-15T04:00:00.000Z');
    expect(iso(parseDateInTimezone('2024-01-15 09:30:00', 'Europe/Paris', utcNoon.now))).toBe('2024-01-15T08:30:00.000Z');
    expect(iso(parseDateInTimezone('2024-07-15T09:30', 'Europe/Paris', utcNoon.now))).toBe('2024-07-15T07:30:00.000Z');
  });

  it('rejects impossible calendar dates', () => {
    expect(parseDateInTimezone('2023-02-29', 'UTC', utcNoon.now)).toBeNull();
    expect(parseDateInTimezone('2024-13-01', 'UTC', utcNoon.now)).toBeNull();
  });

  it('changes the outcome of a comparison with the timezone', () => {
    const property = '2024-06-15T03:00:00Z';
    expect(dateMatch('is_date_before', '2024-06-15', property, { ...utcNoon, timezone: 'America/New_York' })).toBe(true);
    expect(dateMatch('is_date_before', '2024-06-15', property, utcNoon)).toBe(false);
  });

  it('has no instant for a wall clock inside a DST gap, and picks the earliest in an overlap', () => {
    expect(fromWallClock(Date.UTC(2024, 2, 10, 2, 30), 'America/New_York')).toBeNull();
    expect(iso(fromWallClock(Date.UTC(2024, 10, 3, 1, 30), 'America/New_York'))).toBe('2024-11-03T05:30:00.000Z');
    expect(dateMatch('is_date_exact', '2024-11-03 01:30:00', '2024-11-03T05:30:00Z', { ...utcNoon, timezone: 'America/New_York' })).toBe(
      true,
    );
    expect(dateMatch('is_date_before', '2024-03-10 02:30:00', 0, { ...utcNoon, timezone: 'America/New_York' })).toBe(false);
  });
});

describe('relative dates', () => {
  const now = new Date('2020-01-01T12:01:20.134Z');

  it('subtracts hours, days, weeks; the sign is optional', () => {
    expect(iso(parseRelativeDate('1h', now, 'UTC'))).toBe('2020-01-01T11:01:20.134Z');
    expect(iso(parseRelativeDate('-7d', now, 'UTC'))).toBe('2019-12-25T12:01:20.134Z');
    expect(iso(parseRelativeDate('7d', now, 'UTC'))).toBe('2019-12-25T12:01:20.134Z');
    expect(iso(parseRelativeDate('2w', now, 'UTC'))).toBe('2019-12-18T12:01:20.134Z');
    expect(iso(parseRelativeDate('000h', now, 'UTC'))).toBe(now.toISOString());
  });

  it('steps months and years on the calendar, clamping the day', () => {
    expect(iso(parseRelativeDate('-1m', now, 'UTC'))).toBe('2019-12-01T12:01:20.134Z');
    expect(iso(parseRelativeDate('12m', now, 'UTC'))).toBe(iso(parseRelativeDate('1y', now, 'UTC')));
    const endOfMarch = new Date('2024-03-31T10:00:00Z');
    expect(iso(parseRelativeDate('-1m', endOfMarch, 'UTC'))).toBe('2024-02-29T10:00:00.000Z');
    expect(iso(parseRelativeDate('-2m', endOfMarch, 'UTC'))).toBe('2024-01-29T10:00:00.000Z'); // clamps per step
    expect(iso(parseRelativeDate('-1y', new Date('2024-02-29T00:00:00Z'), 'UTC'))).toBe('2023-02-28T00:00:00.000Z');
  });

  it('rejects other units, decimals and numbers of 10000 or more', () => {
    for (const text of ['1', '1x', '1.2y', '1s', 'bazinga', '000bello', '10000d', '-100000h']) {
      expect(parseRelativeDate(text, now, 'UTC'), text).toBeNull();
    }
    expect(parseRelativeDate('9999d', now, 'UTC')).not.toBeNull();
  });

  it('runs the arithmetic on the team-timezone wall clock (DST-aware)', () => {
    // 08:00 EDT on 11 March 2024; two days earlier the wall clock 08:00 is EST (13:00Z).
    const monday = new Date('2024-03-11T12:00:00Z');
    expect(iso(parseRelativeDate('-2d', monday, 'America/New_York'))).toBe('2024-03-09T13:00:00.000Z');
    expect(iso(parseRelativeDate('-2d', monday, 'UTC'))).toBe('2024-03-09T12:00:00.000Z');
    const env = { timezone: 'America/New_York', now: monday };
    expect(dateMatch('is_date_before', '-2d', '2024-03-09T12:30:00Z', env)).toBe(true);
    expect(dateMatch('is_date_before', '-2d', '2024-03-09T12:30:00Z', { timezone: 'UTC', now: monday })).toBe(false);
  });

  it('works in operators against an injected clock', () => {
    expect(dateMatch('is_date_after', '-7d', '2024-06-10', utcNoon)).toBe(true);
    expect(dateMatch('is_date_before', '-7d', '2024-06-01', utcNoon)).toBe(true);
    expect(dateMatch('is_date_after', '-7d', '2024-06-01', utcNoon)).toBe(false);
  });
});

describe('timezone and clock through evaluateFlags', () => {
  const definitions = {
    flags: [
      {
        id: 1,
        key: 'recent-signup',
        active: true,
        filters: {
          groups: [
            { properties: [{ key: 'signed_up', type: 'person', operator: 'is_date_after', value: '2024-06-15' }], rollout_percentage: 100 },
          ],
        },
      },
      {
        id: 2,
        key: 'last-week',
        active: true,
        filters: {
          groups: [
            { properties: [{ key: 'signed_up', type: 'person', operator: 'is_date_after', value: '-7d' }], rollout_percentage: 100 },
          ],
        },
      },
    ],
  };
  const person = { signed_up: '2024-06-14T20:00:00Z' };

  it('uses the context timezone for naive filter dates', () => {
    const tokyo = evaluateFlags(definitions, {
      distinct_id: 'u',
      person_properties: person,
      timezone: 'Asia/Tokyo',
      now: new Date('2024-06-16T00:00:00Z'),
    });
    const utc = evaluateFlags(definitions, {
      distinct_id: 'u',
      person_properties: person,
      timezone: 'UTC',
      now: new Date('2024-06-16T00:00:00Z'),
    });
    expect(tokyo.flags['recent-signup']!.enabled).toBe(true); // midnight Tokyo = 15:00Z on the 14th
    expect(utc.flags['recent-signup']!.enabled).toBe(false);
  });

  it('falls back to UTC for an unknown timezone', () => {
    const result = evaluateFlags(definitions, {
      distinct_id: 'u',
      person_properties: person,
      timezone: 'Mars/Olympus',
      now: new Date('2024-06-16T00:00:00Z'),
    });
    expect(result.flags['recent-signup']!.enabled).toBe(false);
  });

  it('anchors relative dates to the injected clock (Date or function)', () => {
    const soon = evaluateFlags(definitions, { distinct_id: 'u', person_properties: person, now: new Date('2024-06-20T00:00:00Z') });
    const later = evaluateFlags(definitions, { distinct_id: 'u', person_properties: person, now: () => new Date('2024-06-30T00:00:00Z') });
    expect(soon.flags['last-week']!.enabled).toBe(true);
    expect(later.flags['last-week']!.enabled).toBe(false);
  });
});
