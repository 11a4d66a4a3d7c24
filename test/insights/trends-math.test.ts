/**
 * Each trends math through the insights API, on events sent through /batch/, against numbers
 * worked out by hand: unique users (persons merged by $identify and $create_alias count once),
 * weekly and monthly active users (PostHog's trailing windows), unique sessions, and the
 * property maths; in UTC and in an environment's own time zone.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BREAKDOWN_NULL } from '../../src/insights/trends-results.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
  event,
  distinct_id,
  timestamp,
  properties,
});

async function trends(series: Record<string, unknown>, dateFrom: string, dateTo: string, extra: Record<string, unknown> = {}) {
  const query = {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', ...series }],
      interval: 'day',
      dateRange: { date_from: dateFrom, date_to: dateTo },
      ...extra,
    },
  };
  const res = await server.request(`${env()}/insights/`, { method: 'POST', body: { name: 'Probe', query } });
  expect(res.status).toBe(201);
  return res.body.result as Array<{ data: number[]; count: number; breakdown_value?: string; action: Record<string, unknown> }>;
}

const data = async (...args: Parameters<typeof trends>) => (await trends(...args)).map((r) => r.data);

beforeAll(() =>
  server.ingest([
    // 1 to 3 Oct 2025: in New York, the purchase at 02:00 UTC on the 2nd is on the 1st (22:00).
    ev('alice', 'purchase', '2025-10-01T10:00:00Z', { amount: 10, $session_id: 's1', plan: 'pro' }),
    ev('alice', 'purchase', '2025-10-01T11:00:00Z', { amount: 20, $session_id: 's1', plan: 'pro' }),
    ev('bob', 'purchase', '2025-10-01T12:00:00Z', { amount: '15', $session_id: 's2', plan: 'free' }),
    ev('bob', 'purchase', '2025-10-01T13:00:00Z', { amount: 'n/a', plan: 'free' }),
    ev('carol', 'purchase', '2025-10-02T02:00:00Z', { amount: 40, $session_id: 's3', plan: 'pro' }),
    ev('carol', 'purchase', '2025-10-02T09:00:00Z', { amount: 5, $session_id: '', plan: 'pro' }),
    ev('dave', 'purchase', '2025-10-02T15:00:00Z', { $session_id: 's4' }),
    // 8 Oct: ms = k² for k = 0..100, and two without a number; 9 Oct: none with a number.
    ...Array.from({ length: 101 }, (_, k) =>
      ev('svc', 'request', new Date(Date.parse('2025-10-08T00:00:00Z') + k * 60_000).toISOString(), { ms: k * k }),
    ),
    ev('svc', 'request', '2025-10-08T12:00:00Z', { ms: 'slow' }),
    ev('svc', 'request', '2025-10-08T13:00:00Z'),
    ev('svc', 'request', '2025-10-09T13:00:00Z', { ms: 'n/a' }),
    // Visits for the active users: p4's at midnight belongs to the 13th's trailing windows, not the 20th's.
    ev('p1', 'visit', '2025-09-01T12:00:00Z'),
    ev('p2', 'visit', '2025-09-08T12:00:00Z'),
    ev('p3', 'visit', '2025-09-12T12:00:00Z'),
    ev('p5', 'visit', '2025-09-13T11:00:00Z'),
    ev('p4', 'visit', '2025-09-14T00:00:00Z'),
    ev('p2', 'visit', '2025-09-15T12:00:00Z'),
  ]),
);

describe('unique users', () => {
  it('count a person merged by $identify or $create_alias once', async () => {
    await server.ingest([ev('anon-m', 'app opened', '2025-10-05T09:00:00Z'), ev('user-m', 'app opened', '2025-10-05T10:00:00Z')]);
    await server.ingest([ev('alias-a', 'app opened', '2025-10-06T09:00:00Z'), ev('alias-b', 'app opened', '2025-10-06T10:00:00Z')]);
    expect(await data({ event: 'app opened', math: 'dau' }, '2025-10-05', '2025-10-06')).toEqual([[2, 2]]);

    await server.ingest([ev('user-m', '$identify', '2025-10-05T11:00:00Z', { $anon_distinct_id: 'anon-m' })]);
    expect(await data({ event: 'app opened', math: 'dau' }, '2025-10-05', '2025-10-06')).toEqual([[1, 2]]);
    await server.ingest([ev('alias-a', '$create_alias', '2025-10-06T11:00:00Z', { alias: 'alias-b' })]);
    expect(await data({ event: 'app opened', math: 'dau' }, '2025-10-05', '2025-10-06')).toEqual([[1, 1]]);
    expect(await data({ event: 'app opened', math: 'weekly_active' }, '2025-10-05', '2025-10-06')).toEqual([[1, 2]]);
  });

  it('count persons per day', async () => {
    expect(await data({ event: 'purchase', math: 'dau' }, '2025-10-01', '2025-10-03')).toEqual([[2, 2, 0]]);
  });
});

describe('weekly and monthly active users', () => {
  it("count each day's persons of the trailing 7 and 30 days", async () => {
    const [wau, mau, dau] = (
      await trends({ event: 'visit', math: 'weekly_active' }, '2025-09-10', '2025-09-20', {
        series: ['weekly_active', 'monthly_active', 'dau'].map((math) => ({ kind: 'EventsNode', event: 'visit', math })),
      })
    ).map((r) => r.data);
    expect(wau).toEqual([1, 1, 2, 4, 4, 4, 4, 4, 4, 3, 1]);
    expect(mau).toEqual([2, 2, 3, 5, 5, 5, 5, 5, 5, 5, 5]);
    expect(dau).toEqual([0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
  });

  it('end an hour bucket’s window a day after its start, never after date_to', async () => {
    const [hourly] = await data({ event: 'visit', math: 'weekly_active' }, '2025-09-12T10:00:00Z', '2025-09-13T11:00:00Z', {
      interval: 'hour',
    });
    // p5 (the 13th, 11:00) counts from the 12th's 11:00 on; p4 (the 14th) is after date_to.
    expect(hourly).toEqual([2, ...new Array(25).fill(3)]);
  });

  it('count, as one number over the range, the persons active in the trailing window of any of its days', async () => {
    const number = { trendsFilter: { display: 'BoldNumber' } };
    const values = async (math: string) =>
      (await trends({ event: 'visit', math }, '2025-09-10', '2025-09-20', number)).map((r: any) => r.aggregated_value);
    // From 4 Sep (the 10th less six days): p2, p3, p5 and p4; from 12 Aug: p1 too.
    expect(await values('weekly_active')).toEqual([4]);
    expect(await values('monthly_active')).toEqual([5]);
    // Starting on the 19th (from the 13th): p5, p4 and p2's second visit; p3's of the 12th is before.
    expect(
      (await trends({ event: 'visit', math: 'weekly_active' }, '2025-09-19', '2025-09-20', number)).map((r: any) => r.aggregated_value),
    ).toEqual([3]);
  });

  it('are unique users by week or longer (monthly active by week still trail)', async () => {
    const weeks = { interval: 'week' };
    expect(await data({ event: 'visit', math: 'weekly_active' }, '2025-09-10', '2025-09-20', weeks)).toEqual([[3, 2]]);
    expect(await data({ event: 'visit', math: 'dau' }, '2025-09-10', '2025-09-20', weeks)).toEqual([[3, 2]]);
    // Weeks of the 7th and 14th: (9 Aug, 8 Sep 00:00] holds p1 only; (16 Aug, 15 Sep 00:00] all but p2's second visit.
    expect(await data({ event: 'visit', math: 'monthly_active' }, '2025-09-10', '2025-09-20', weeks)).toEqual([[1, 5]]);
  });
});

describe('unique sessions', () => {
  it('count distinct non-empty $session_id', async () => {
    expect(await data({ event: 'purchase', math: 'unique_session' }, '2025-10-01', '2025-10-03')).toEqual([[2, 2, 0]]);
  });
});

describe('property maths', () => {
  const purchases = (math: string) => data({ event: 'purchase', math, math_property: 'amount' }, '2025-10-01', '2025-10-03');
  const requests = (math: string) => data({ event: 'request', math, math_property: 'ms' }, '2025-10-08', '2025-10-10');

  it('aggregate the numbers of the property, 0 for a bucket without any', async () => {
    // 1 Oct: 10, 20 and "15" ("n/a" is no number); 2 Oct: 40 and 5 (dave's has no amount).
    expect(await purchases('sum')).toEqual([[45, 45, 0]]);
    expect(await purchases('avg')).toEqual([[15, 22.5, 0]]);
    expect(await purchases('min')).toEqual([[10, 5, 0]]);
    expect(await purchases('max')).toEqual([[20, 40, 0]]);
    // Interpolated between the nearest two, as ClickHouse's quantile: 1 Oct [10, 15, 20], 2 Oct [5, 40].
    expect(await purchases('median')).toEqual([[15, 22.5, 0]]);
    expect(await purchases('p75')).toEqual([[17.5, 31.25, 0]]);
    expect(await purchases('p90')).toEqual([[19, 36.5, 0]]);
    expect(await purchases('p95')).toEqual([[19.5, 38.25, 0]]);
  });

  it('read percentiles of a hundred and one values', async () => {
    expect(await requests('total')).toEqual([[103, 1, 0]]);
    expect(await requests('sum')).toEqual([[338350, 0, 0]]);
    expect(await requests('avg')).toEqual([[3350, 0, 0]]);
    expect(await requests('min')).toEqual([[0, 0, 0]]);
    expect(await requests('max')).toEqual([[10000, 0, 0]]);
    expect(await requests('median')).toEqual([[2500, 0, 0]]);
    expect(await requests('p75')).toEqual([[5625, 0, 0]]);
    expect(await requests('p90')).toEqual([[8100, 0, 0]]);
    expect(await requests('p95')).toEqual([[9025, 0, 0]]);
    expect(await requests('p99')).toEqual([[9801, 0, 0]]);
  });

  it('break down, and name the property in the action', async () => {
    const results = await trends({ event: 'purchase', math: 'sum', math_property: 'amount' }, '2025-10-01', '2025-10-03', {
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' },
    });
    expect(results.map((r) => [r.breakdown_value, r.data, r.count])).toEqual([
      ['pro', [30, 45, 0], 75],
      ['free', [15, 0, 0], 15],
      [BREAKDOWN_NULL, [0, 0, 0], 0],
    ]);
    expect(results[0]!.action).toMatchObject({ math: 'sum', math_property: 'amount' });
  });
});

describe('the cumulative display', () => {
  const cumulative = { trendsFilter: { display: 'ActionsLineGraphCumulative' } };

  it('sums each bucket with the ones before it, whatever the math', async () => {
    expect(await trends({ event: 'purchase' }, '2025-10-01', '2025-10-03')).toMatchObject([{ data: [4, 3, 0] }]);
    expect(await trends({ event: 'purchase' }, '2025-10-01', '2025-10-03', cumulative)).toMatchObject([{ data: [4, 7, 7], count: 18 }]);
    expect(await data({ event: 'purchase', math: 'sum', math_property: 'amount' }, '2025-10-01', '2025-10-03', cumulative)).toEqual([
      [45, 90, 90],
    ]);
  });

  it('counts a unique user once, on the day of their first event in the range', async () => {
    // p2 visits on the 8th and the 15th: seven persons-days, five persons, four in the range.
    expect(await data({ event: 'visit', math: 'dau' }, '2025-09-08', '2025-09-15')).toEqual([[1, 0, 0, 0, 1, 1, 1, 1]]);
    expect(await data({ event: 'visit', math: 'dau' }, '2025-09-08', '2025-09-15', cumulative)).toEqual([[1, 1, 1, 1, 2, 3, 4, 4]]);
    expect(await data({ event: 'visit', math: 'dau' }, '2025-09-09', '2025-09-15', cumulative)).toEqual([[0, 0, 0, 1, 2, 3, 4]]);
  });

  it('runs per breakdown value', async () => {
    const rows = await trends({ event: 'purchase', math: 'dau' }, '2025-10-01', '2025-10-03', {
      ...cumulative,
      breakdownFilter: { breakdown: 'plan' },
    });
    expect(Object.fromEntries(rows.map((r) => [r.breakdown_value, r.data]))).toEqual({
      pro: [1, 2, 2],
      free: [1, 1, 1],
      [BREAKDOWN_NULL]: [0, 1, 1],
    });
  });

  it('shows the sum before where a running sum falls to zero or below, as PostHog fills it', async () => {
    await server.ingest([
      ev('alice', 'refund', '2025-10-20T10:00:00Z', { amount: 5 }),
      ev('alice', 'refund', '2025-10-21T10:00:00Z', { amount: -10 }),
      ev('alice', 'refund', '2025-10-23T10:00:00Z', { amount: 8 }),
    ]);
    const sums = (extra = {}) => data({ event: 'refund', math: 'sum', math_property: 'amount' }, '2025-10-20', '2025-10-23', extra);
    expect(await sums()).toEqual([[5, -10, 0, 8]]);
    // Running sums 5, -5, -5, 3: the two not positive show the 5 before them.
    expect(await sums(cumulative)).toEqual([[5, 5, 5, 3]]);
  });

  it('counts a unique user once by week too', async () => {
    // Weeks of 7 and 14 Sep: p2 (the 8th), p3 and p5 first, then p4; p2's visit of the 15th not again.
    const weeks = { ...cumulative, interval: 'week' };
    expect(await data({ event: 'visit', math: 'dau' }, '2025-09-08', '2025-09-20', { interval: 'week' })).toEqual([[3, 2]]);
    expect(await data({ event: 'visit', math: 'dau' }, '2025-09-08', '2025-09-20', weeks)).toEqual([[3, 4]]);
  });

  it('sums weekly active users as they are, each day its own trailing week', async () => {
    // The days' weekly active users are 1, 1, 2, 4, 4, 4, 4, 4, 4, 3, 1 (above).
    expect(await data({ event: 'visit', math: 'weekly_active' }, '2025-09-10', '2025-09-20', cumulative)).toEqual([
      [1, 2, 4, 8, 12, 16, 20, 24, 28, 31, 32],
    ]);
  });

  it('runs over each period of a comparison on its own', async () => {
    const compared = async (math: string) =>
      (await trends({ event: 'purchase', math }, '2025-10-02', '2025-10-03', { ...cumulative, compareFilter: { compare: true } })).map(
        (r: any) => [r.compare_label, r.data],
      );
    // 2–3 Oct: carol twice and dave on the 2nd; the period before, 30 Sep – 1 Oct: alice and bob twice each on the 1st.
    expect(await compared('total')).toEqual([
      ['current', [3, 3]],
      ['previous', [0, 4]],
    ]);
    expect(await compared('dau')).toEqual([
      ['current', [2, 2]],
      ['previous', [0, 2]],
    ]);
  });
});

describe('in the environment time zone', () => {
  it('buckets each math in local days', async () => {
    const res = await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'America/New_York' } });
    expect(res.status).toBe(200);
    try {
      // Carol's purchase at 02:00 UTC on the 2nd is on the 1st in New York.
      expect(await data({ event: 'purchase', math: 'sum', math_property: 'amount' }, '2025-10-01', '2025-10-03')).toEqual([[85, 5, 0]]);
      expect(await data({ event: 'purchase', math: 'unique_session' }, '2025-10-01', '2025-10-03')).toEqual([[3, 1, 0]]);
      expect(await data({ event: 'purchase', math: 'dau' }, '2025-10-01', '2025-10-03')).toEqual([[3, 2, 0]]);
      expect(await data({ event: 'purchase', math: 'median', math_property: 'amount' }, '2025-10-01', '2025-10-03')).toEqual([
        [17.5, 5, 0],
      ]);
    } finally {
      await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'UTC' } });
    }
  });
});
