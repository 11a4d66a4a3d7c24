import { describe, expect, it } from 'vitest';

import {
  checkWebVitalsQuery,
  cleanPath,
  computeWebVitals,
  quantileLinear,
  type WebVitalsEventInput,
} from '../../src/recordings/core/web-vitals.js';

// Saturday 2026-11-21 05:00 UTC: the 7-day range starts Saturday 2026-11-14 00:00 UTC.
const NOW = new Date('2026-11-21T05:00:00.000Z');

function vital(
  timestamp: string,
  pathname: string | null,
  values: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): WebVitalsEventInput {
  const properties: Record<string, unknown> = { ...extra };
  if (pathname !== null) properties['$pathname'] = pathname;
  for (const [metric, value] of Object.entries(values)) properties[`$web_vitals_${metric}_value`] = value;
  return { event: '$web_vitals', timestamp, properties };
}

describe('quantileLinear (ClickHouse quantile(0.9))', () => {
  it('interpolates linearly between closest ranks', () => {
    expect(quantileLinear([50, 100, 150, 200, 250, 300, 350, 400], 0.9)).toBeCloseTo(365, 10);
    expect(quantileLinear([400, 50, 300, 100, 250, 150, 350, 200], 0.9)).toBeCloseTo(365, 10);
    expect(quantileLinear([7], 0.9)).toBe(7);
    expect(quantileLinear([1, 2], 0.9)).toBeCloseTo(1.9, 10);
    expect(
      quantileLinear(
        Array.from({ length: 11 }, (_, i) => i * 10),
        0.9,
      ),
    ).toBe(90);
    expect(quantileLinear([], 0.9)).toBe(0);
  });
});

describe('checkWebVitalsQuery', () => {
  it('requires pathname', () => {
    expect(checkWebVitalsQuery({})).toEqual({
      ok: false,
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', detail: 'This field is required.', attr: 'pathname' },
    });
    expect(checkWebVitalsQuery({ pathname: '' }).ok).toBe(false);
    expect(checkWebVitalsQuery({ pathname: '/pricing' })).toEqual({ ok: true, pathname: '/pricing' });
    expect(checkWebVitalsQuery({ pathname: ['/a', '/b'] })).toEqual({ ok: true, pathname: '/a' });
  });
});

describe('computeWebVitals', () => {
  const events: WebVitalsEventInput[] = [
    // current week (Sunday 2026-11-15 onwards): INP 50..400 → p90 365
    ...[50, 100, 150, 200, 250, 300, 350, 400].map((inp, i) =>
      vital(`2026-11-${String(15 + (i % 6)).padStart(2, '0')}T10:00:00Z`, '/pricing', { INP: inp }),
    ),
    vital('2026-11-20T12:00:00Z', '/pricing', { LCP: '2500', CLS: 0.25, FCP: 900 }),
    vital('2026-11-21T04:00:00Z', '/pricing', { LCP: 1500, CLS: 0.05, FCP: 1100 }),
    // previous week bucket, inside the range (Saturday 2026-11-14)
    vital('2026-11-14T08:00:00Z', '/pricing', { INP: 1000 }),
    // outside the 7-day range (Friday 2026-11-13)
    vital('2026-11-13T23:59:59Z', '/pricing', { INP: 99999 }),
    // other page, other event, non-numeric value
    vital('2026-11-20T12:00:00Z', '/other', { INP: 5000 }),
    { event: '$pageview', timestamp: '2026-11-20T12:00:00Z', properties: { $pathname: '/pricing', $web_vitals_INP_value: 7000 } },
    vital('2026-11-20T12:00:00Z', '/pricing', { INP: 'slow', LCP: null }),
    // pathname derived from $current_url when $pathname is missing
    vital('2026-11-20T13:00:00Z', null, { FCP: 1300 }, { $current_url: 'https://shop.test/pricing?utm_source=x' }),
  ];

  it('returns the four p90 series in order INP, LCP, CLS, FCP with weekly buckets', () => {
    const response = computeWebVitals(events, { pathname: '/pricing', now: NOW });
    expect(response.results.map((s) => s.action.custom_name)).toEqual(['INP', 'LCP', 'CLS', 'FCP']);
    const [inp, lcp, cls, fcp] = response.results;
    expect(inp!.days).toEqual(['2026-11-08', '2026-11-15']);
    expect(inp!.labels).toEqual(['8-Nov-2026', '15-Nov-2026']);
    expect(inp!.data[0]).toBe(1000);
    expect(inp!.data[1]).toBeCloseTo(365, 10);
    expect(inp!.count).toBeCloseTo(1365, 10);
    // two LCP values 2500 and 1500: 1500 + 0.9 * 1000
    expect(lcp!.data).toEqual([0, 2400]);
    expect(cls!.data[1]).toBeCloseTo(0.23, 10);
    // FCP 900, 1100, 1300 → position 1.8 → 1100 + 0.8 * 200
    expect(fcp!.data[1]).toBeCloseTo(1260, 10);
    expect(inp!.action).toMatchObject({
      id: '$web_vitals',
      type: 'events',
      order: 0,
      name: 'INP',
      math: 'p90',
      math_property: '$web_vitals_INP_value',
    });
    expect(fcp!.action.order).toBe(3);
    expect(response.resolved_date_range).toEqual({
      date_from: '2026-11-14T00:00:00.000Z',
      date_to: '2026-11-21T23:59:59.999Z',
    });
    expect(response.is_cached).toBe(false);
    expect(response.timezone).toBe('UTC');
  });

  it('returns the four series with zeros when there is no data', () => {
    const response = computeWebVitals([], { pathname: '/nothing', now: NOW });
    expect(response.results).toHaveLength(4);
    for (const series of response.results) {
      expect(series.data).toEqual([0, 0]);
      expect(series.count).toBe(0);
    }
  });

  it('honours a Monday week start', () => {
    const response = computeWebVitals(events, { pathname: '/pricing', now: NOW, weekStartDay: 1 });
    expect(response.results[0]!.days).toEqual(['2026-11-09', '2026-11-16']);
    // the Sunday 2026-11-15 values (50 and 350) now belong to the first week, with 1000:
    // sorted [50, 350, 1000], position 1.8 → 350 + 0.8 * 650
    expect(response.results[0]!.data[0]).toBeCloseTo(870, 10);
  });

  it('matches pathnames after the team path cleaning rules', () => {
    const filters = [{ regex: '/products/\\d+', alias: '/products/<id>' }];
    expect(cleanPath('/products/123/reviews', filters)).toBe('/products/<id>/reviews');
    const response = computeWebVitals(
      [
        vital('2026-11-20T10:00:00Z', '/products/1', { LCP: 100 }),
        vital('2026-11-20T10:00:00Z', '/products/2', { LCP: 300 }),
        vital('2026-11-20T10:00:00Z', '/products', { LCP: 9000 }),
      ],
      { pathname: '/products/777', now: NOW, pathCleaningFilters: filters },
    );
    expect(response.results[1]!.data[1]).toBeCloseTo(280, 10);
    // without cleaning only the exact path matches
    expect(
      computeWebVitals([vital('2026-11-20T10:00:00Z', '/products/1', { LCP: 100 })], { pathname: '/products/777', now: NOW }).results[1]!
        .data,
    ).toEqual([0, 0]);
  });

  it('ClickHouse-style back references in aliases, invalid regexes skipped', () => {
    expect(cleanPath('/u/42/x', [{ regex: '/u/(\\d+)', alias: '/user-\\1' }])).toBe('/user-42/x');
    expect(cleanPath('/a', [{ regex: '(', alias: 'x' }])).toBe('/a');
    expect(cleanPath('/price', [{ regex: 'price', alias: '$cost' }])).toBe('/$cost');
    expect(cleanPath('/a/b', [{ regex: '/(\\w)', alias: '[\\0:\\1:\\2]' }])).toBe('[/a:a:][/b:b:]');
    // RE2, as ClickHouse: linear time on a pattern that backtracks exponentially elsewhere.
    const long = `/${'a'.repeat(5000)}!`;
    expect(cleanPath(long, [{ regex: '(a+)+$', alias: 'x' }])).toBe(long);
  });
});
