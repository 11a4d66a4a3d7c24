/**
 * A range longer than an answer's 5,000 intervals: trends and a funnel's historical trends refuse it
 * with a 400 naming the date range, instead of answering the oldest 5,000 intervals and leaving out
 * the most recent events; a funnel's steps and time to convert read the range whole.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { trendsAnswer } from '../../src/insights/answers.js';
import { readTrendsQuery } from '../../src/insights/trends.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

beforeAll(async () => {
  // Three persons view a page and sign up in the last day; one of them views again a year ago.
  await server.ingest([
    ...['a', 'b', 'c'].flatMap((id) => [
      { event: '$pageview', distinct_id: id, timestamp: hoursAgo(3), properties: {} },
      { event: 'signed up', distinct_id: id, timestamp: hoursAgo(2), properties: {} },
    ]),
    { event: '$pageview', distinct_id: 'a', timestamp: hoursAgo(365 * 24), properties: {} },
  ]);
});

const query = (body: Record<string, unknown>) => server.request(`${env()}/query/`, { method: 'POST', body: { query: body } });
const pageviews = (extra: Record<string, unknown>) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  ...extra,
});
const funnel = (funnelsFilter: Record<string, unknown>) => ({
  kind: 'FunnelsQuery',
  series: [
    { kind: 'EventsNode', event: '$pageview' },
    { kind: 'EventsNode', event: 'signed up' },
  ],
  dateRange: { date_from: '-20y' },
  funnelsFilter,
});

describe('a range past 5,000 intervals', () => {
  it('is a 400 for trends by day or hour, saying what to change', async () => {
    const days = await query(pageviews({ dateRange: { date_from: '-20y' } }));
    expect({ status: days.status, attr: days.body.attr }).toEqual({ status: 400, attr: 'query__dateRange' });
    expect(days.body.detail).toBe(
      'This date range has more than 5,000 days, the most an answer is cut into: use a shorter date range or a longer interval.',
    );
    const hours = await query(pageviews({ interval: 'hour', dateRange: { date_from: '-7m' } }));
    expect({ status: hours.status, detail: hours.body.detail }).toEqual({
      status: 400,
      detail: expect.stringContaining('more than 5,000 hours'),
    });
  });

  it('is a 400 for a total over the range, which is read by day whatever the interval', async () => {
    const total = await query(pageviews({ interval: 'month', dateRange: { date_from: '-20y' }, trendsFilter: { display: 'BoldNumber' } }));
    expect(total.status).toBe(400);
    expect(total.body.detail).toBe('This date range has more than 5,000 days, the most an answer is cut into: use a shorter date range.');
  });

  it("is a 400 when only a comparison's previous period is that long", async () => {
    // On 30 June, "this year" by hour is 4,332 hours; the period it is compared with, all of last year, 8,760.
    const answer = (interval: string) =>
      trendsAnswer(
        server.running.ctx.analytics,
        server.bootstrap.team.id,
        readTrendsQuery(pageviews({ interval, dateRange: { date_from: 'yStart' }, compareFilter: { compare: true } })),
        new Date('2026-06-30T12:00:00Z'),
        { timezone: 'UTC' },
      );
    await expect(answer('hour')).rejects.toThrow('This date range has more than 5,000 hours');
    // By day both periods are within the bound.
    const byDay = await answer('day');
    expect(byDay.results.map((r) => [r.compare_label, r.days.length])).toEqual([
      ['current', 181],
      ['previous', 365],
    ]);
  });

  it('counts one value a breakdown value for a total, however long its range', async () => {
    // 1,001 values over 1,097 days would be past the bound for a line; a pie answers 1,001 values.
    const pie = await query(
      pageviews({
        dateRange: { date_from: '-3y' },
        breakdownFilter: { breakdown: '$browser', breakdown_limit: 1000 },
        trendsFilter: { display: 'ActionsPie' },
      }),
    );
    expect(pie.status, pie.text).toBe(200);
    expect(pie.body.results.map((r: any) => r.aggregated_value)).toEqual([4]);
  });

  it('reads a date before the year 100 as itself, and a range reaching before 1900 from 1900', async () => {
    // Year 50 is 23,000 months ago (Date.UTC would have read it as 1950).
    const months = await query(pageviews({ interval: 'month', dateRange: { date_from: '0050-01-01' } }));
    expect({ status: months.status, detail: months.body.detail }).toEqual({
      status: 400,
      detail: expect.stringContaining('more than 5,000 months'),
    });
    const days = await query(pageviews({ dateRange: { date_from: '0050-01-01', date_to: '0050-01-03' } }));
    expect(days.status, days.text).toBe(200);
    expect(days.body.results[0].days).toEqual(['0050-01-01', '0050-01-02', '0050-01-03']);
    expect(days.body.results[0].count).toBe(0);
    const overview = await query({ kind: 'WebOverviewQuery', properties: [], dateRange: { date_from: '0050-01-01' } });
    expect(overview.status, overview.text).toBe(200);
  });

  it('is answered within the bound: by month over 20 years, and by day over two years', async () => {
    const months = await query(pageviews({ interval: 'month', dateRange: { date_from: '-20y' } }));
    expect(months.status, months.text).toBe(200);
    expect(months.body.results[0].count).toBe(4);
    const total = await query(pageviews({ dateRange: { date_from: '-2y' }, trendsFilter: { display: 'BoldNumber' } }));
    expect(total.body.results[0].aggregated_value).toBe(4);
  });

  it("counts a funnel's steps and time to convert over the whole range, up to now", async () => {
    const steps = await query(funnel({}));
    expect(steps.status, steps.text).toBe(200);
    expect(steps.body.results.map((s: any) => s.count)).toEqual([3, 3]);
    expect(Date.parse(steps.body.resolved_date_range.date_to)).toBeGreaterThan(Date.now());
    const ttc = await query(funnel({ funnelVizType: 'time_to_convert' }));
    expect(ttc.status, ttc.text).toBe(200);
    expect(ttc.body.results.bins.reduce((sum: number, [, persons]: [number, number]) => sum + persons, 0)).toBe(3);
  });

  it("is a 400 for a funnel's historical trends by day", async () => {
    const trends = await query(funnel({ funnelVizType: 'trends' }));
    expect({ status: trends.status, attr: trends.body.attr }).toEqual({ status: 400, attr: 'query__dateRange' });
  });
});
