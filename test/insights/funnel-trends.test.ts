import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { conversionRate } from '../../src/insights/funnel-trends.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const page = (distinctId: string, timestamp: string, browser?: string) => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp,
  properties: browser === undefined ? {} : { $browser: browser },
});
const step = (event: string, distinctId: string, timestamp: string) => ({ event, distinct_id: distinctId, timestamp, properties: {} });

/**
 * $pageview → signed up → purchased, by UTC day over 1–5 May 2026, a one-day window by default.
 * Each person's browser is that of their first page view.
 *
 * 1 May: p1 (Firefox) converts fully; p2 (Firefox) signs up only; p3 (Chrome) signs up 23 h after
 * its page view but purchases 25 h after it, outside the window; p8 (Safari) views twice (00:30 and
 * 23:00), then converts: counted once. 2 May: p4 (Chrome) converts fully, and on 4 May only views.
 * 3 May: p6 (Firefox) purchases without signing up; p7 (Firefox) converts; p9 (Firefox) only views;
 * p5 signs up without a page view (never entered). 5 May: p10 (no browser) converts fully.
 *
 * So by day, entered / converted: 4 / 2 (p1, p8), 1 / 1, 3 / 1 (p7), 1 / 0, 1 / 1.
 */
beforeAll(async () => {
  await server.ingest([
    page('p1', '2026-05-01T10:00:00Z', 'Firefox'),
    step('signed up', 'p1', '2026-05-01T11:00:00Z'),
    step('purchased', 'p1', '2026-05-01T12:00:00Z'),
    page('p2', '2026-05-01T09:00:00Z', 'Firefox'),
    step('signed up', 'p2', '2026-05-01T10:00:00Z'),
    page('p3', '2026-05-01T08:00:00Z', 'Chrome'),
    step('signed up', 'p3', '2026-05-02T07:00:00Z'),
    step('purchased', 'p3', '2026-05-02T09:00:00Z'),
    page('p8', '2026-05-01T00:30:00Z', 'Safari'),
    page('p8', '2026-05-01T23:00:00Z', 'Safari'),
    step('signed up', 'p8', '2026-05-02T00:00:00Z'),
    step('purchased', 'p8', '2026-05-02T00:10:00Z'),
    page('p4', '2026-05-02T10:00:00Z', 'Chrome'),
    step('signed up', 'p4', '2026-05-02T10:30:00Z'),
    step('purchased', 'p4', '2026-05-02T11:00:00Z'),
    page('p4', '2026-05-04T10:00:00Z', 'Chrome'),
    step('signed up', 'p5', '2026-05-03T09:00:00Z'),
    page('p6', '2026-05-03T10:00:00Z', 'Firefox'),
    step('purchased', 'p6', '2026-05-03T11:00:00Z'),
    page('p7', '2026-05-03T12:00:00Z', 'Firefox'),
    step('signed up', 'p7', '2026-05-03T13:00:00Z'),
    step('purchased', 'p7', '2026-05-03T14:00:00Z'),
    page('p9', '2026-05-03T15:00:00Z', 'Firefox'),
    page('p10', '2026-05-05T10:00:00Z'),
    step('signed up', 'p10', '2026-05-05T10:05:00Z'),
    step('purchased', 'p10', '2026-05-05T10:10:00Z'),
  ]);
});

const DAYS = ['2026-05-01', '2026-05-02', '2026-05-03', '2026-05-04', '2026-05-05'];
const LABELS = ['1-May-2026', '2-May-2026', '3-May-2026', '4-May-2026', '5-May-2026'];

const trendsQuery = (funnelsFilter: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  kind: 'FunnelsQuery',
  series: ['$pageview', 'signed up', 'purchased'].map((event) => ({ kind: 'EventsNode', event, name: event })),
  dateRange: { date_from: '2026-05-01', date_to: '2026-05-05' },
  interval: 'day',
  funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day', funnelVizType: 'trends', ...funnelsFilter },
  ...extra,
});

async function ask(query: Record<string, unknown>) {
  const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('funnelVizType trends through query/', () => {
  it('answers the conversion percentage per day of the first step, a person outside the window not converted', async () => {
    const body = await ask(trendsQuery());
    expect(body.results).toEqual([{ count: 5, data: [50, 100, 33.33, 0, 100], days: DAYS, labels: LABELS }]);
    expect(body.resolved_date_range).toEqual({ date_from: '2026-05-01T00:00:00.000Z', date_to: '2026-05-06T00:00:00.000Z' });
  });

  it('converts the person slower than a day with a wider window', async () => {
    // p3 purchased 25 h after its page view: within 14 days, so 3 of 4 on 1 May.
    expect((await ask(trendsQuery({ funnelWindowInterval: 14 }))).results[0].data).toEqual([75, 100, 33.33, 0, 100]);
  });

  it('reads funnelFromStep and funnelToStep', async () => {
    // To sign-up: p3 signed up 23 h after (within the day); p6 and p9 on 3 May did not.
    expect((await ask(trendsQuery({ funnelToStep: 1 }))).results[0].data).toEqual([100, 100, 33.33, 0, 100]);
    // From sign-up: of p1, p2, p3, p8 on 1 May, p1 and p8 purchased; on 3 May only p7 signed up; p4 did not on 4 May.
    expect((await ask(trendsQuery({ funnelFromStep: 1 }))).results[0].data).toEqual([50, 100, 100, 0, 100]);
  });

  it('breaks down by the first step property, one line per value in the values order', async () => {
    const body = await ask(trendsQuery({}, { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }));
    // Firefox is the most entered (5 persons), but PostHog answers the values sorted.
    expect(body.results.map((r: any) => [r.breakdown_value, r.data])).toEqual([
      [[''], [0, 0, 0, 0, 100]],
      [['Chrome'], [0, 100, 0, 0, 0]],
      [['Firefox'], [50, 0, 33.33, 0, 0]],
      [['Safari'], [100, 0, 0, 0, 0]],
    ]);
    for (const r of body.results)
      expect(r).toEqual({ count: 5, data: r.data, days: DAYS, labels: LABELS, breakdown_value: r.breakdown_value });
  });

  it('keeps the breakdown_limit values most entered, still in the values order', async () => {
    // Entered: Firefox 5 persons, Chrome 3 (p4 on two days), Safari and no browser 1 each.
    const body = await ask(trendsQuery({}, { breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }));
    expect(body.results.map((r: any) => r.breakdown_value)).toEqual([['Chrome'], ['Firefox']]);
  });

  it('answers no line for a breakdown over a range without events, and zeros without a breakdown', async () => {
    const empty = { dateRange: { date_from: '2025-01-01', date_to: '2025-01-02' } };
    expect((await ask(trendsQuery({}, { ...empty, breakdownFilter: { breakdown: '$browser' } }))).results).toEqual([]);
    expect((await ask(trendsQuery({}, empty))).results).toEqual([
      { count: 2, data: [0, 0], days: ['2025-01-01', '2025-01-02'], labels: ['1-Jan-2025', '2-Jan-2025'] },
    ]);
  });

  it('buckets by week and by hour, a person once per bucket they entered', async () => {
    // Weeks start on Sunday: 26 Apr holds 1-2 May (p1, p2, p3, p8, p4: 3 converted), 3 May the rest
    // (p6, p7, p9, p4 again, p10: 2 converted).
    expect((await ask(trendsQuery({}, { interval: 'week' }))).results).toEqual([
      { count: 2, data: [60, 40], days: ['2026-04-26', '2026-05-03'], labels: ['26-Apr-2026', '3-May-2026'] },
    ]);
    // By hour on 1 May: only p1 converts within the range (p8's purchase is on 2 May, outside it).
    const [hourly] = (await ask(trendsQuery({}, { interval: 'hour', dateRange: { date_from: '2026-05-01', date_to: '2026-05-01' } })))
      .results;
    expect(hourly.count).toBe(24);
    expect(hourly.days.slice(0, 2)).toEqual(['2026-05-01 00:00:00', '2026-05-01 01:00:00']);
    expect(hourly.labels).toEqual(Array(24).fill('1-May-2026'));
    expect(hourly.data).toEqual(Array.from({ length: 24 }, (_, h) => (h === 10 ? 100 : 0)));
  });

  it('rounds as ClickHouse does, to 2 decimals', () => {
    expect(conversionRate(3, 1)).toBe(33.33);
    expect(conversionRate(3, 2)).toBe(66.67);
    expect(conversionRate(0, 0)).toBe(0);
    expect(conversionRate(800, 1)).toBe(0.12);
  });

  it('answers a bad interval or steps with a 400 naming the field', async () => {
    const refused = async (query: Record<string, unknown>, attr: string) => {
      const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', attr });
    };
    await refused(trendsQuery({}, { interval: 'minute' }), 'query__interval');
    await refused(trendsQuery({ funnelToStep: 3 }), 'query__funnelsFilter__funnelToStep');
    await refused(trendsQuery({ funnelToStep: 0 }), 'query__funnelsFilter__funnelToStep');
    await refused(trendsQuery({ funnelFromStep: 2, funnelToStep: 1 }), 'query__funnelsFilter__funnelFromStep');
    await refused(trendsQuery({ funnelFromStep: 'first' }), 'query__funnelsFilter__funnelFromStep');
  });

  it('saves as an insight whose result is what query/ answers', async () => {
    const query = trendsQuery({}, { breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } });
    const created = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { name: 'Conversion by day', query: { kind: 'InsightVizNode', source: query } },
    });
    expect(created.status, created.text).toBe(201);
    const asked = await ask(query);
    expect(created.body.result).toEqual(asked.results);
    expect((await server.request(`${env()}/insights/${created.body.id}/`)).body.result).toEqual(asked.results);
  });
});
