/**
 * Trends through real HTTP in the environment's time zone: events just before and after local
 * midnight, counted in their local days; the serializer reports the environment's zone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { insightResult } from '../../src/insights/answers.js';
import { getInsight } from '../../src/insights/store.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

// Past dates, so the events are never "in the future" for ingestion. In New York, 19 Nov 2025
// starts at 05:00 UTC (EST); 2 Nov 2025 (DST ends) runs from 04:00 UTC to 05:00 UTC on the 3rd.
const EVENTS: Array<[string, string]> = [
  ['u1', '2025-11-19T04:59:59Z'], // 18 Nov 23:59:59 in New York, the 19th in UTC
  ['u1', '2025-11-19T05:00:00Z'], // 19 Nov 00:00:00 in New York
  ['u2', '2025-11-19T23:30:00Z'], // 19 Nov 18:30 in New York
  ['u3', '2025-11-20T03:00:00Z'], // 19 Nov 22:00 in New York, the 20th in UTC
  ['u4', '2025-11-02T03:59:59Z'], // 1 Nov 23:59:59 EDT
  ['u4', '2025-11-02T04:00:00Z'], // 2 Nov 00:00 EDT
  ['u5', '2025-11-03T04:30:00Z'], // 2 Nov 23:30 EST (the 25-hour day), the 3rd in UTC
  ['u5', '2025-11-03T05:00:00Z'], // 3 Nov 00:00 EST
];

const trends = (dateFrom: string, dateTo: string, interval = 'day') => ({
  kind: 'InsightVizNode',
  source: {
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: 'tz probe', math: 'total' }],
    interval,
    dateRange: { date_from: dateFrom, date_to: dateTo },
  },
});

async function setZone(settings: Record<string, unknown>) {
  const res = await server.request(`${env()}/`, { method: 'PATCH', body: settings });
  expect(res.status).toBe(200);
}

async function createInsight(query: unknown) {
  const res = await server.request(`${env()}/insights/`, { method: 'POST', body: { name: 'Probe', query } });
  expect(res.status).toBe(201);
  return res.body;
}

const series = (insight: any) => {
  const [r] = insight.result;
  return { days: r.days, labels: r.labels, data: r.data, count: r.count };
};

beforeAll(async () => {
  // A batch without sent_at: the timestamps are stored as sent, to the millisecond (no clock-skew shift).
  const batch = EVENTS.map(([distinct_id, timestamp]) => ({ event: 'tz probe', distinct_id, timestamp, properties: {} }));
  const res = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: server.token, batch } });
  expect(res.status).toBe(200);
  await server.settle();
});

describe('trends in the environment time zone', () => {
  it('counts in UTC days by default, in local days once the environment has a time zone', async () => {
    const insight = await createInsight(trends('2025-11-18', '2025-11-20'));
    expect(insight.timezone).toBe('UTC');
    expect(series(insight)).toEqual({
      days: ['2025-11-18', '2025-11-19', '2025-11-20'],
      labels: ['18-Nov-2025', '19-Nov-2025', '20-Nov-2025'],
      data: [0, 3, 1],
      count: 4,
    });

    await setZone({ timezone: 'America/New_York' });
    const got = await server.request(`${env()}/insights/${insight.id}/`);
    expect(got.status).toBe(200);
    expect(got.body.timezone).toBe('America/New_York');
    expect(series(got.body)).toEqual({
      days: ['2025-11-18', '2025-11-19', '2025-11-20'],
      labels: ['18-Nov-2025', '19-Nov-2025', '20-Nov-2025'],
      data: [1, 3, 0],
      count: 4,
    });

    const list = await server.request(`${env()}/insights/`);
    expect(list.body.results.find((i: any) => i.id === insight.id)).toMatchObject({ timezone: 'America/New_York' });
  });

  it('subscription reports read the environment zone too (insightResult without a zone)', async () => {
    await setZone({ timezone: 'America/New_York' });
    const created = await createInsight(trends('2025-11-18', '2025-11-20'));
    const { database } = server.running.ctx;
    const insight = await getInsight(database.db, server.bootstrap.team.id, created.id);
    const [r] = (await insightResult(server.running.ctx, insight!, new Date()))!;
    expect(r!.data).toEqual([1, 3, 0]);
    expect(r!.labels).toEqual(['18-Nov-2025', '19-Nov-2025', '20-Nov-2025']);
  });

  it('gives the day DST ends its 25 hours', async () => {
    await setZone({ timezone: 'America/New_York' });
    const insight = await createInsight(trends('2025-11-01', '2025-11-03'));
    expect(series(insight)).toMatchObject({ days: ['2025-11-01', '2025-11-02', '2025-11-03'], data: [1, 2, 1] });
  });

  it('starts hours on the local hour in a half-hour zone', async () => {
    await setZone({ timezone: 'Asia/Kolkata' });
    // 05:00 UTC on the 19th is 10:30 IST: the 10:00 IST hour starts at 04:30 UTC.
    const insight = await createInsight(trends('2025-11-19 09:00', '2025-11-19 11:00', 'hour'));
    expect(insight.timezone).toBe('Asia/Kolkata');
    expect(series(insight)).toMatchObject({
      days: ['2025-11-19 09:00:00', '2025-11-19 10:00:00', '2025-11-19 11:00:00'],
      labels: ['19-Nov-2025 09:00', '19-Nov-2025 10:00', '19-Nov-2025 11:00'],
      data: [0, 2, 0],
    });
  });

  it('starts weeks on the environment week_start_day', async () => {
    await setZone({ timezone: 'America/New_York', week_start_day: 1 });
    // Monday 17 Nov 2025 to Sunday 23 Nov; Sunday 2 Nov belongs to the week of Monday 27 Oct.
    const monday = await createInsight(trends('2025-11-01', '2025-11-20', 'week'));
    expect(series(monday)).toMatchObject({ days: ['2025-10-27', '2025-11-03', '2025-11-10', '2025-11-17'], data: [3, 1, 0, 4] });
    await setZone({ week_start_day: 0 });
    const sunday = await server.request(`${env()}/insights/${monday.id}/`);
    expect(series(sunday.body)).toMatchObject({ days: ['2025-10-26', '2025-11-02', '2025-11-09', '2025-11-16'], data: [1, 3, 0, 4] });
  });
});
