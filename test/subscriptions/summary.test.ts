import { describe, expect, it } from 'vitest';

import { FALLBACK_SUMMARY, subscriptionSummary } from '../../src/subscriptions/core/summary.js';

const ALL_DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

describe('subscriptionSummary (PostHog Subscription.summary)', () => {
  it.each([
    [{ frequency: 'daily', interval: 1 }, 'sent every day'],
    [{ frequency: 'weekly', interval: 1 }, 'sent every week'],
    [{ frequency: 'monthly', interval: 1 }, 'sent every month'],
    [{ frequency: 'yearly', interval: 1 }, 'sent every year'],
    [{ frequency: 'daily', interval: 2 }, 'sent every 2 days'],
    [{ frequency: 'weekly', interval: 2 }, 'sent every 2 weeks'],
    [{ frequency: 'monthly', interval: 3 }, 'sent every 3 months'],
    [{ frequency: 'yearly', interval: 10 }, 'sent every 10 years'],
  ])('%j -> %s', (fields, expected) => {
    expect(subscriptionSummary(fields)).toBe(expected);
  });

  it('defaults a missing interval to 1', () => {
    expect(subscriptionSummary({ frequency: 'daily' })).toBe('sent every day');
    expect(subscriptionSummary({ frequency: 'daily', interval: null })).toBe('sent every day');
  });

  it('interval <= 1 never pluralises (PostHog only tests interval > 1)', () => {
    expect(subscriptionSummary({ frequency: 'weekly', interval: 0 })).toBe('sent every week');
  });

  // The cases of PostHog's own test_subscription_summary.
  it('matches PostHog model tests', () => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, bysetpos: null })).toBe('sent every month');
    expect(subscriptionSummary({ frequency: 'monthly', interval: 2, byweekday: ['wednesday'], bysetpos: 1 })).toBe(
      'sent every 2 months on the first Wednesday',
    );
    expect(subscriptionSummary({ frequency: 'weekly', interval: 1, byweekday: ['wednesday'], bysetpos: -1 })).toBe(
      'sent every week on the last Wednesday',
    );
    expect(subscriptionSummary({ frequency: 'weekly', interval: 1, byweekday: ['wednesday'] })).toBe('sent every week');
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ALL_DAYS, bysetpos: 3 })).toBe(
      'sent every month on the third day',
    );
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['monday'], bysetpos: 10 })).toBe('sent on a schedule');
  });

  it.each([
    [1, 'first'],
    [2, 'second'],
    [3, 'third'],
    [4, 'fourth'],
    [-1, 'last'],
  ])('bysetpos %i -> "%s"', (bysetpos, word) => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['monday'], bysetpos })).toBe(
      `sent every month on the ${word} Monday`,
    );
  });

  it('monthly, last Friday', () => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['friday'], bysetpos: -1 })).toBe(
      'sent every month on the last Friday',
    );
  });

  it('several weekdays with bysetpos say "day"', () => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['monday', 'friday'], bysetpos: -1 })).toBe(
      'sent every month on the last day',
    );
    // Duplicates are counted as PostHog does (len of the raw list).
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['monday', 'monday'], bysetpos: 1 })).toBe(
      'sent every month on the first day',
    );
  });

  it('yearly with bysetpos', () => {
    expect(subscriptionSummary({ frequency: 'yearly', interval: 2, byweekday: ['sunday'], bysetpos: 2 })).toBe(
      'sent every 2 years on the second Sunday',
    );
  });

  it('weekly with several weekdays and no bysetpos adds nothing', () => {
    expect(subscriptionSummary({ frequency: 'weekly', interval: 1, byweekday: ['monday', 'wednesday'] })).toBe('sent every week');
  });

  it('bysetpos without byweekday (or with an empty list) adds nothing', () => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: null, bysetpos: 1 })).toBe('sent every month');
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: [], bysetpos: 1 })).toBe('sent every month');
  });

  it('bysetpos 0 is falsy in Python: nothing added, no fallback', () => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['monday'], bysetpos: 0 })).toBe('sent every month');
  });

  it('count and until_date never appear in the summary', () => {
    const fields = { frequency: 'weekly', interval: 2, count: 5, until_date: '2030-01-01T00:00:00Z' };
    expect(subscriptionSummary(fields)).toBe('sent every 2 weeks');
  });

  it('unknown frequency or position falls back to "sent on a schedule"', () => {
    expect(FALLBACK_SUMMARY).toBe('sent on a schedule');
    expect(subscriptionSummary({ frequency: 'fortnightly', interval: 1 })).toBe('sent on a schedule');
    expect(subscriptionSummary({ frequency: 'toString', interval: 1 })).toBe('sent on a schedule');
    expect(subscriptionSummary({ frequency: 'weekly', interval: 1, byweekday: ['monday'], bysetpos: 5 })).toBe('sent on a schedule');
    expect(subscriptionSummary({ frequency: 'weekly', interval: 1, byweekday: ['monday'], bysetpos: -2 })).toBe('sent on a schedule');
  });

  it('capitalises like Python str.capitalize()', () => {
    expect(subscriptionSummary({ frequency: 'monthly', interval: 1, byweekday: ['MONDAY'], bysetpos: 1 })).toBe(
      'sent every month on the first Monday',
    );
  });
});
