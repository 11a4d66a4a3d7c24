/**
 * "All time" (`date_from: "all"`) through POST /query/: it starts at the environment's first event,
 * as PostHog's does, so a range by day reaches today's events instead of stopping at the bucket
 * limit decades before them. Trends as a line and as one number, with a comparison, and a funnel;
 * the counts are those of the fixture below.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const DAY = 86_400_000;

const api = (path: string) => `/api/environments/${server.bootstrap.team.id}${path}`;

// Three visitors view a page; two of them sign up, 40 and 2 days ago.
const FIXTURE: Array<[distinctId: string, event: string, daysAgo: number]> = [
  ['a', 'viewed', 40],
  ['a', 'signed up', 40],
  ['b', 'viewed', 10],
  ['c', 'viewed', 2],
  ['c', 'signed up', 2],
];

let firstDay: string;

beforeAll(async () => {
  const now = Date.now();
  firstDay = new Date(now - 40 * DAY).toISOString().slice(0, 10);
  await server.ingest(
    FIXTURE.map(([distinct_id, event, daysAgo]) => ({
      event,
      distinct_id,
      properties: {},
      timestamp: new Date(now - daysAgo * DAY).toISOString(),
    })),
  );
});

async function ask(query: Record<string, unknown>) {
  const res = await server.request(api('/query/'), { method: 'POST', body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const trends = (extra: Record<string, unknown> = {}) => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: 'viewed', math: 'total' }],
  interval: 'day',
  dateRange: { date_from: 'all' },
  ...extra,
});

describe('all time', () => {
  it('draws a line by day from the first event through today', async () => {
    const answer = await ask(trends());
    const [series] = answer.results;
    expect(series.days[0]).toBe(firstDay);
    expect(series.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(series.count).toBe(3);
    expect(answer.resolved_date_range.date_from.slice(0, 10)).toBe(firstDay);
  });

  it('counts every event as one number, and compares with an empty period before', async () => {
    for (const display of ['BoldNumber', 'ActionsBarValue']) {
      const answer = await ask(trends({ trendsFilter: { display } }));
      expect(answer.results.map((r: { aggregated_value: number }) => r.aggregated_value)).toEqual([3]);
    }
    const compared = await ask(trends({ trendsFilter: { display: 'BoldNumber' }, compareFilter: { compare: true } }));
    expect(compared.results.map((r: { compare_label: string; aggregated_value: number }) => [r.compare_label, r.aggregated_value])).toEqual(
      [
        ['current', 3],
        ['previous', 0],
      ],
    );
  });

  it('runs a funnel over every event', async () => {
    const answer = await ask({
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: 'viewed' },
        { kind: 'EventsNode', event: 'signed up' },
      ],
      dateRange: { date_from: 'all' },
      funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
    });
    expect(answer.results.map((step: { count: number }) => step.count)).toEqual([3, 2]);
  });
});
