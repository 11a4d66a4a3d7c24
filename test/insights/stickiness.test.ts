/**
 * StickinessQuery through `query/`, on events sent through /batch/, against counts worked out by
 * hand: per series, how many persons were active in exactly 1, 2, … buckets of the range
 * (PostHog's stickiness), cumulative, with stickinessCriteria, across an $identify merge, by
 * week, in an environment's time zone, with a comparison, and what is refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
  event,
  distinct_id,
  timestamp,
  properties,
});
const node = (event: string | null, extra: Record<string, unknown> = {}) => ({ kind: 'EventsNode', event, ...extra });
/** 1 to 8 Nov 2025, by day: 8 buckets. */
const NOV_1_8 = { date_from: '2025-11-01', date_to: '2025-11-08' };

function ask(query: Record<string, unknown>) {
  return server.request(`${env()}/query/`, { method: 'POST', body: { query: { kind: 'StickinessQuery', ...query } } });
}

async function stickiness(query: Record<string, unknown>) {
  const res = await ask({ dateRange: NOV_1_8, ...query });
  expect(res.status, res.text).toBe(200);
  return res.body.results as Array<{ count: number; data: number[]; days: number[]; labels: string[]; [k: string]: unknown }>;
}

const dataOf = async (query: Record<string, unknown>) => (await stickiness(query)).map((r) => r.data);

beforeAll(() =>
  server.ingest([
    // The worked example: A on 1 day, B and C on 3 days each; B's pro views on 2 of its days.
    ev('A', 'view', '2025-11-02T10:00:00Z'),
    ev('A', 'view', '2025-11-02T11:00:00Z'),
    ev('B', 'view', '2025-11-01T10:00:00Z', { plan: 'pro' }),
    ev('B', 'view', '2025-11-03T10:00:00Z', { plan: 'pro' }),
    ev('B', 'view', '2025-11-05T10:00:00Z', { plan: 'free' }),
    ev('C', 'view', '2025-11-06T10:00:00Z'),
    ev('C', 'view', '2025-11-07T10:00:00Z'),
    ev('C', 'view', '2025-11-08T23:59:00Z'),
    // Outside the range: the day before and the day after.
    ev('A', 'view', '2025-10-31T23:59:00Z'),
    ev('A', 'view', '2025-11-09T00:00:00Z'),
    // Clicks: P1 3 on the 1st and 1 on the 2nd, P2 2 on the 1st and 2 on the 3rd.
    ...['01T09', '01T10', '01T11', '02T09'].map((t) => ev('P1', 'click', `2025-11-${t}:00:00Z`)),
    ...['01T09', '01T10', '03T09', '03T10'].map((t) => ev('P2', 'click', `2025-11-${t}:00:00Z`)),
    // Weeks starting on Sunday: Saturday 1 Nov, then Sunday the 2nd in a second week (the same one from Monday).
    ev('W', 'weekly', '2025-11-01T12:00:00Z'),
    ev('W', 'weekly', '2025-11-02T12:00:00Z'),
    // Two days in Tokyo (19:00 and 01:00 the next day), one in UTC.
    ev('T', 'tz probe', '2025-11-05T10:00:00Z'),
    ev('T', 'tz probe', '2025-11-05T16:00:00Z'),
    // For the comparison (8 to 14 Nov, after 1 to 7 Nov): O1 2 days before and 1 in, O2 3 in.
    ...['02', '03', '09'].map((d) => ev('O1', 'open', `2025-11-${d}T12:00:00Z`)),
    ...['10', '11', '12'].map((d) => ev('O2', 'open', `2025-11-${d}T12:00:00Z`)),
  ]),
);

describe('StickinessQuery', () => {
  it('counts the persons active on exactly k days (the worked example)', async () => {
    const [result] = await stickiness({ series: [node('view', { math: 'dau', custom_name: 'Views' })] });
    expect(result).toEqual({
      count: 3,
      data: [1, 0, 2, 0, 0, 0, 0, 0],
      days: [1, 2, 3, 4, 5, 6, 7, 8],
      labels: ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days', '8 days'],
      label: 'view',
      action: { order: 0, type: 'events', name: 'view', id: 'view', custom_name: 'Views' },
    });
  });

  it('answers the time zone and the range it covered', async () => {
    const res = await ask({ series: [node('view')], dateRange: NOV_1_8 });
    expect(res.body).toMatchObject({
      timezone: 'UTC',
      resolved_date_range: { date_from: '2025-11-01T00:00:00.000Z', date_to: '2025-11-09T00:00:00.000Z' },
    });
  });

  it('sums from the end when cumulative, keeping count, and labels "or more"', async () => {
    const [result] = await stickiness({ series: [node('view')], stickinessFilter: { computedAs: 'cumulative' } });
    expect(result!.data).toEqual([3, 2, 2, 0, 0, 0, 0, 0]);
    expect(result!.count).toBe(3);
    expect(result!.labels.slice(0, 2)).toEqual(['1 day or more', '2 days or more']);
  });

  it('counts only buckets whose events pass stickinessCriteria', async () => {
    const clicks = (stickinessCriteria?: unknown) => dataOf({ series: [node('click')], stickinessFilter: { stickinessCriteria } });
    expect(await clicks()).toEqual([[0, 2, 0, 0, 0, 0, 0, 0]]);
    expect(await clicks({ operator: 'gte', value: 2 })).toEqual([[1, 1, 0, 0, 0, 0, 0, 0]]);
    expect(await clicks({ operator: 'gte', value: 3 })).toEqual([[1, 0, 0, 0, 0, 0, 0, 0]]);
    expect(await clicks({ operator: 'exact', value: 1 })).toEqual([[1, 0, 0, 0, 0, 0, 0, 0]]);
    expect(await clicks({ operator: 'lte', value: 2 })).toEqual([[1, 1, 0, 0, 0, 0, 0, 0]]);
  });

  it('answers each series in order, all events under "All events"', async () => {
    const results = await stickiness({ series: [node('click'), node('view'), node(null)] });
    expect(results.map((r) => [r.label, r.action, r.data.slice(0, 4)])).toEqual([
      ['click', { order: 0, type: 'events', name: 'click', id: 'click', custom_name: null }, [0, 2, 0, 0]],
      ['view', { order: 1, type: 'events', name: 'view', id: 'view', custom_name: null }, [1, 0, 2, 0]],
      // All events: A and T 1 day; P1, P2, O1 (the 2nd and 3rd) and W 2; B and C 3.
      ['All events', { order: 2, type: 'events', name: 'All events', id: null, custom_name: null }, [2, 4, 2, 0]],
    ]);
  });

  it('counts a person merged by $identify once, with the days of both their ids', async () => {
    await server.ingest([
      ev('anon-m', 'read', '2025-11-01T09:00:00Z'),
      ev('anon-m', 'read', '2025-11-02T09:00:00Z'),
      ev('user-m', 'read', '2025-11-02T10:00:00Z'),
      ev('user-m', 'read', '2025-11-04T10:00:00Z'),
    ]);
    expect(await dataOf({ series: [node('read')] })).toEqual([[0, 2, 0, 0, 0, 0, 0, 0]]);
    await server.ingest([ev('user-m', '$identify', '2025-11-04T11:00:00Z', { $anon_distinct_id: 'anon-m' })]);
    expect(await dataOf({ series: [node('read')] })).toEqual([[0, 0, 1, 0, 0, 0, 0, 0]]);
  });

  it('applies the query’s and the series’ property filters', async () => {
    const pro = [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }];
    expect(await dataOf({ series: [node('view')], properties: pro })).toEqual([[0, 1, 0, 0, 0, 0, 0, 0]]);
    expect(await dataOf({ series: [node('view', { properties: pro })] })).toEqual([[0, 1, 0, 0, 0, 0, 0, 0]]);
    const notPro = [{ key: 'plan', value: 'pro', operator: 'is_not', type: 'event' }];
    expect(await dataOf({ series: [node('view', { properties: notPro })] })).toEqual([[2, 0, 1, 0, 0, 0, 0, 0]]);
  });

  it('counts weeks by week, starting on Sunday', async () => {
    const [result] = await stickiness({
      series: [node('weekly')],
      interval: 'week',
      dateRange: { date_from: '2025-11-01', date_to: '2025-11-30' },
    });
    // 26 Oct, 2, 9, 16, 23 and 30 Nov.
    expect(result!.data).toEqual([0, 1, 0, 0, 0, 0]);
    expect(result!.labels).toEqual(['1 week', '2 weeks', '3 weeks', '4 weeks', '5 weeks', '6 weeks']);
  });

  it('cuts days in the environment’s time zone', async () => {
    const probe = { series: [node('tz probe')], dateRange: { date_from: '2025-11-05', date_to: '2025-11-06' } };
    expect((await stickiness(probe))[0]!.data).toEqual([1, 0]);
    expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
    try {
      const res = await ask(probe);
      expect(res.body.results[0].data).toEqual([0, 1]);
      expect(res.body.timezone).toBe('Asia/Tokyo');
      expect(res.body.resolved_date_range.date_from).toBe('2025-11-04T15:00:00.000Z');
    } finally {
      expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'UTC' } })).status).toBe(200);
    }
  });

  it('compares with the previous period, each series current then previous', async () => {
    const results = await stickiness({
      series: [node('open'), node('weekly')],
      dateRange: { date_from: '2025-11-08', date_to: '2025-11-14' },
      compareFilter: { compare: true },
    });
    expect(results.map((r) => [r.label, r.compare, r.compare_label, r.data])).toEqual([
      ['open', true, 'current', [1, 0, 1, 0, 0, 0, 0]],
      ['open', true, 'previous', [0, 1, 0, 0, 0, 0, 0]],
      ['weekly', true, 'current', [0, 0, 0, 0, 0, 0, 0]],
      ['weekly', true, 'previous', [0, 1, 0, 0, 0, 0, 0]],
    ]);
  });

  it('defaults to the last 7 days and today by day', async () => {
    const now = Date.now();
    await server.ingest([
      ev('R', 'recent', new Date(now - 1000).toISOString()),
      ev('R', 'recent', new Date(now - 2 * 86_400_000).toISOString()),
    ]);
    const res = await ask({ series: [node('recent')] });
    expect(res.body.results[0].days).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(res.body.results[0].data).toEqual([0, 1, 0, 0, 0, 0, 0, 0]);
  });

  it('answers what it cannot run with a 400 naming the field', async () => {
    const refused = async (query: Record<string, unknown>) => {
      const res = await ask({ series: [node('view')], ...query });
      return { status: res.status, type: res.body?.type, attr: res.body?.attr };
    };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ series: [] }, 'query__series'],
      [{ series: [{ kind: 'ActionsNode', id: 1 }] }, 'query__series__0__kind'],
      [{ series: [node('view'), node('view', { math: 'unique_group', math_group_type_index: 0 })] }, 'query__series__1__math'],
      [{ series: [node('view', { math: 'hogql', math_hogql: 'count()' })] }, 'query__series__0__math'],
      [{ series: [node('view', { math: 'bogus' })] }, 'query__series__0__math'],
      [{ series: [node(7 as unknown as string)] }, 'query__series__0__event'],
      [{ interval: 'minute' }, 'query__interval'],
      [{ dateRange: { date_from: 'whenever' } }, 'query__dateRange__date_from'],
      [{ stickinessFilter: { computedAs: 'sometimes' } }, 'query__stickinessFilter__computedAs'],
      [{ stickinessFilter: { stickinessCriteria: { operator: 'gt', value: 1 } } }, 'query__stickinessFilter__stickinessCriteria__operator'],
      [{ stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 1.5 } } }, 'query__stickinessFilter__stickinessCriteria__value'],
      [{ intervalCount: 2 }, 'query__intervalCount'],
      [{ interval: 'week', intervalCount: 1 }, 'query__intervalCount'],
      [{ compareFilter: { compare: true, compare_to: 'sometime' } }, 'query__compareFilter__compare_to'],
      [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }, 'query__properties__0'],
      // 600 series × 2,000 hours: more values than an answer holds.
      [
        {
          series: Array.from({ length: 600 }, () => node('view')),
          interval: 'hour',
          dateRange: { date_from: '2025-01-01', date_to: '2025-03-24' },
        },
        'query__series',
      ],
    ];
    for (const [query, attr] of cases) {
      expect(await refused(query), JSON.stringify(query).slice(0, 120)).toEqual({ status: 400, type: 'validation_error', attr });
    }
    // Accepted as PostHog takes them: persons whatever the math, intervalCount 1 by day, test accounts.
    for (const query of [{ series: [node('view', { math: 'sum' })] }, { intervalCount: 1 }, { filterTestAccounts: true }]) {
      expect((await ask({ series: [node('view')], dateRange: NOV_1_8, ...query })).body.results?.[0]?.data).toEqual([
        1, 0, 2, 0, 0, 0, 0, 0,
      ]);
    }
  });
});

describe("a stickiness bar's persons", () => {
  const persons = async (query: Record<string, unknown>, point: Record<string, unknown>) => {
    const source = { kind: 'StickinessQuery', dateRange: NOV_1_8, ...query };
    const res = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: { kind: 'ActorsQuery', select: ['person'], source: { kind: 'StickinessActorsQuery', source, ...point } } },
    });
    return res;
  };
  const names = async (query: Record<string, unknown>, point: Record<string, unknown>) => {
    const res = await persons(query, point);
    expect(res.status, res.text).toBe(200);
    return (res.body.results as Array<[{ distinct_ids: string[] }]>).map(([person]) => person.distinct_ids[0]).sort();
  };

  it("answer PostHog's stickiness actors: the persons active in exactly k intervals, or k or more", async () => {
    const series = [node('view')];
    expect(await names({ series }, { day: 1, series: 0 })).toEqual(['A']);
    expect(await names({ series }, { day: 3, series: 0 })).toEqual(['B', 'C']);
    expect(await names({ series }, { day: 2, series: 0 })).toEqual([]);
    expect(await names({ series, stickinessFilter: { computedAs: 'cumulative' } }, { day: 1, series: 0 })).toEqual(['A', 'B', 'C']);
    // Older frontends send InsightActorsQuery with the count as text.
    const older = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: {
        query: {
          kind: 'ActorsQuery',
          source: { kind: 'InsightActorsQuery', source: { kind: 'StickinessQuery', dateRange: NOV_1_8, series }, day: '3' },
        },
      },
    });
    expect(older.status, older.text).toBe(200);
    expect(older.body.results).toHaveLength(2);
  });

  it('is a 400 for a count or series the query has not', async () => {
    expect((await persons({ series: [node('view')] }, { day: 0 })).body.attr).toBe('query__source__day');
    expect((await persons({ series: [node('view')] }, { day: 1, series: 1 })).body.attr).toBe('query__source__series');
    expect((await persons({ series: [node('view')] }, { day: 1, operator: 'gte' })).body.attr).toBe('query__source__operator');
  });
});
