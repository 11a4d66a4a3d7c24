/**
 * Trends compared with the previous period (`compareFilter`), through query/ and saved insights,
 * against events counted by hand.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const buy = (timestamp: string, browser: string) => ({ event: 'buy', distinct_id: 'a', timestamp, properties: { $browser: browser } });

/** Visits: a on Nov 3 and 4, b on Nov 4 (3 daily users, 2 over the period); c on Oct 26. */
const visit = (distinct_id: string, timestamp: string) => ({ event: 'visit', distinct_id, timestamp, properties: {} });

/**
 * Current period Nov 1 .. Nov 7: Chrome twice on Nov 2, Firefox on Nov 7. Previous period (same
 * length, just before): Oct 25 .. Oct 31: Chrome on Oct 25, Firefox three times on Oct 31. Oct 24
 * and Nov 8 are in neither.
 */
beforeAll(async () => {
  await server.ingest([
    buy('2026-11-02T10:00:00Z', 'Chrome'),
    buy('2026-11-02T11:00:00Z', 'Chrome'),
    buy('2026-11-07T23:00:00Z', 'Firefox'),
    buy('2026-10-25T00:00:00Z', 'Chrome'),
    buy('2026-10-31T01:00:00Z', 'Firefox'),
    buy('2026-10-31T02:00:00Z', 'Firefox'),
    buy('2026-10-31T03:00:00Z', 'Firefox'),
    buy('2026-10-24T12:00:00Z', 'Chrome'),
    buy('2026-11-08T00:00:00Z', 'Chrome'),
    visit('a', '2026-11-03T10:00:00Z'),
    visit('a', '2026-11-04T10:00:00Z'),
    visit('b', '2026-11-04T11:00:00Z'),
    visit('c', '2026-10-26T10:00:00Z'),
  ]);
});

const trends = (extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: 'buy', name: 'buy' }],
  dateRange: { date_from: '2026-11-01', date_to: '2026-11-07' },
  compareFilter: { compare: true },
  ...extra,
});

const days = (from: number, month: string, monthName: string, n = 7) => ({
  days: Array.from({ length: n }, (_, i) => `2026-${month}-${String(from + i).padStart(2, '0')}`),
  labels: Array.from({ length: n }, (_, i) => `${from + i}-${monthName}-2026`),
});

describe('compareFilter through query/', () => {
  it('answers the current period, then the previous one, each marked, with its own days and labels', async () => {
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query: trends() } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([
      expect.objectContaining({
        label: 'buy',
        data: [0, 2, 0, 0, 0, 0, 1],
        count: 3,
        ...days(1, '11', 'Nov'),
        compare: true,
        compare_label: 'current',
      }),
      expect.objectContaining({
        label: 'buy',
        data: [1, 0, 0, 0, 0, 0, 3],
        count: 4,
        ...days(25, '10', 'Oct'),
        compare: true,
        compare_label: 'previous',
      }),
    ]);
    expect(res.body.resolved_date_range).toEqual({ date_from: '2026-11-01T00:00:00.000Z', date_to: '2026-11-08T00:00:00.000Z' });
  });

  it('breaks each period down by its own values', async () => {
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: trends({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: any) => [r.compare_label, r.breakdown_value, r.count, r.data])).toEqual([
      ['current', 'Chrome', 2, [0, 2, 0, 0, 0, 0, 0]],
      ['current', 'Firefox', 1, [0, 0, 0, 0, 0, 0, 1]],
      ['previous', 'Firefox', 3, [0, 0, 0, 0, 0, 0, 3]],
      ['previous', 'Chrome', 1, [1, 0, 0, 0, 0, 0, 0]],
    ]);
  });

  it('compares with compare_to, the current length from that date before the start', async () => {
    // Nov 1 - 1 week = Oct 25: the same period as the previous one here.
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: trends({ compareFilter: { compare: true, compare_to: '-1w' } }) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results[1]).toMatchObject({ compare_label: 'previous', data: [1, 0, 0, 0, 0, 0, 3], days: days(25, '10', 'Oct').days });
  });

  it('answers without the marks when compare is false', async () => {
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query: trends({ compareFilter: { compare: false } }) } });
    expect(res.body.results).toHaveLength(1);
    expect(res.body.results[0]).not.toHaveProperty('compare');
  });

  it('refuses what it cannot read with a 400 naming the field', async () => {
    for (const [compareFilter, attr] of [
      [{ compare: true, compare_to: 'last tuesday' }, 'query__compareFilter__compare_to'],
      [{ compare: 'yes' }, 'query__compareFilter__compare'],
      ['on', 'query__compareFilter'],
    ] as const) {
      const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query: trends({ compareFilter }) } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr });
    }
  });

  it('gives a saved insight the same compared result', async () => {
    const created = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { name: 'Compared', query: { kind: 'InsightVizNode', source: trends() } },
    });
    expect(created.status, created.text).toBe(201);
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query: trends() } });
    expect(created.body.result).toEqual(res.body.results);
  });
});

describe('total-value displays (BoldNumber, ActionsTable, …)', () => {
  const bold = (extra: Record<string, unknown> = {}) => trends({ trendsFilter: { display: 'BoldNumber' }, compareFilter: null, ...extra });

  it('answers one aggregated_value per series over the whole range, no buckets', async () => {
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query: bold() } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results).toEqual([
      expect.objectContaining({
        label: 'buy',
        aggregated_value: 3,
        count: 0,
        data: [],
        days: [],
        action: expect.objectContaining({ id: 'buy' }),
      }),
    ]);
    expect(res.body.results[0]).not.toHaveProperty('labels');
    // Unique users over the range, not the sum of the daily ones (3).
    const users = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: bold({ series: [{ kind: 'EventsNode', event: 'visit', math: 'dau' }] }) },
    });
    expect(users.body.results[0].aggregated_value).toBe(2);
  });

  it('compares and breaks down totals', async () => {
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: {
        query: bold({
          compareFilter: { compare: true },
          trendsFilter: { display: 'ActionsTable' },
          breakdownFilter: { breakdown: '$browser' },
        }),
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: any) => [r.compare_label, r.breakdown_value, r.aggregated_value])).toEqual([
      ['current', 'Chrome', 2],
      ['current', 'Firefox', 1],
      ['previous', 'Firefox', 3],
      ['previous', 'Chrome', 1],
    ]);
  });

  it('keeps the series by interval for the line and bar displays, and refuses what it cannot draw', async () => {
    const bar = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: bold({ trendsFilter: { display: 'ActionsBar' } }) },
    });
    expect(bar.body.results[0]).toMatchObject({ data: [0, 2, 0, 0, 0, 0, 1], count: 3 });
    for (const [query, attr] of [
      [bold({ trendsFilter: { display: 'BoxPlot' } }), 'query__trendsFilter__display'],
      [bold({ trendsFilter: { display: 'Sparkles' } }), 'query__trendsFilter__display'],
    ] as const) {
      const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', attr });
    }
  });
});
