/**
 * The retention insight (PostHog's RetentionQuery) through the query API, on events sent through
 * /batch/, against cohorts worked out by hand: first time, recurring and first ever occurrence,
 * cumulative, merged persons, weeks in the environment's zone, the window PostHog cuts, and the
 * 400s of what Hoglet does not compute.
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

type Filter = Record<string, unknown>;

const retention = (filter: Filter, extra: Record<string, unknown> = {}) => ({
  kind: 'RetentionQuery',
  retentionFilter: {
    period: 'Day',
    totalIntervals: 3,
    targetEntity: { id: 'visit', name: 'visit', type: 'events' },
    returningEntity: { id: 'visit', name: 'visit', type: 'events' },
    retentionType: 'retention_first_time',
    ...filter,
  },
  dateRange: { date_from: '2024-01-08', date_to: '2024-01-10' },
  ...extra,
});

interface Row {
  values: Array<{ count: number; label: string }>;
  label: string;
  date: string;
}

async function ask(query: Record<string, unknown>) {
  const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.body as { results: Row[]; timezone: string };
}

/** Each cohort's counts, by interval. */
const grid = async (filter: Filter, extra: Record<string, unknown> = {}) =>
  (await ask(retention(filter, extra))).results.map((row) => row.values.map((v) => v.count));

beforeAll(() =>
  server.ingest([
    // a: 8th and 10th; b: 9th and 10th; c: the 5th (before the window) and the 9th.
    ev('a', 'visit', '2024-01-08T10:00:00Z'),
    ev('a', 'visit', '2024-01-10T10:00:00Z'),
    ev('b', 'visit', '2024-01-09T10:00:00Z'),
    ev('b', 'visit', '2024-01-10T11:00:00Z'),
    ev('b', 'visit', '2024-01-10T12:00:00Z'),
    ev('c', 'visit', '2024-01-05T10:00:00Z'),
    ev('c', 'visit', '2024-01-09T10:00:00Z'),
    // d opens the app on the 8th without a plan, on the 9th on pro, and buys on the 10th.
    ev('d', 'open', '2024-01-08T10:00:00Z'),
    ev('d', 'open', '2024-01-09T10:00:00Z', { plan: 'pro' }),
    ev('d', 'buy', '2024-01-10T10:00:00Z'),
  ]),
);

describe('cohorts', () => {
  it('put a first-time person in the period of their first event ever, when the window holds it', async () => {
    const { results } = await ask(retention({}));
    expect(results.map((row) => [row.label, row.date])).toEqual([
      ['Day 0', '2024-01-08T00:00:00Z'],
      ['Day 1', '2024-01-09T00:00:00Z'],
      ['Day 2', '2024-01-10T00:00:00Z'],
    ]);
    expect(results[0]!.values.map((v) => v.label)).toEqual(['Day 0', 'Day 1', 'Day 2']);
    // a from the 8th, back on the 10th; b from the 9th, back on the 10th; c was first seen on the 5th.
    expect(await grid({})).toEqual([
      [1, 0, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it('put a recurring person in every period they did the target event', async () => {
    expect(await grid({ retentionType: 'retention_recurring' })).toEqual([
      [1, 0, 1],
      [2, 1, 0],
      [2, 0, 0],
    ]);
    // PostHog runs a query without a type as recurring.
    expect(await grid({ retentionType: undefined })).toEqual(await grid({ retentionType: 'retention_recurring' }));
  });

  it('count the cohort whole at interval 0, whatever the returning event', async () => {
    const buy = { id: 'buy', type: 'events' };
    const target = { id: 'open', type: 'events', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] };
    // First time on pro: d on the 9th, buying the next day.
    expect(await grid({ targetEntity: target, returningEntity: buy })).toEqual([
      [0, 0, 0],
      [1, 1, 0],
      [0, 0, 0],
    ]);
    // First ever open: d's was on the 8th, without the plan, so d is in no cohort.
    expect(await grid({ targetEntity: target, returningEntity: buy, retentionType: 'retention_first_ever_occurrence' })).toEqual([
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('count a person in every interval up to their last return when cumulative', async () => {
    expect(await grid({ cumulative: true })).toEqual([
      [1, 1, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it('count a person merged by $identify once, from their first event under either id', async () => {
    await server.ingest([ev('anon-m', 'signup', '2024-01-08T09:00:00Z'), ev('user-m', 'signup', '2024-01-09T09:00:00Z')]);
    await server.ingest([ev('user-m', '$identify', '2024-01-09T10:00:00Z', { $anon_distinct_id: 'anon-m' })]);
    const signup = { id: 'signup', type: 'events' };
    expect(await grid({ targetEntity: signup, returningEntity: signup })).toEqual([
      [1, 1, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });
});

describe('the window', () => {
  it('ends with the period after the one holding date_to, and starts totalIntervals periods before without date_from', async () => {
    const { results } = await ask(retention({ totalIntervals: 2 }, { dateRange: { date_to: '2024-01-10' } }));
    expect(results.map((row) => row.date)).toEqual(['2024-01-09T00:00:00Z', '2024-01-10T00:00:00Z']);
    expect(results.map((row) => row.values.map((v) => v.count))).toEqual([
      [1, 1],
      [0, 0],
    ]);
  });

  it("cuts weeks in the environment's zone, on its first day of the week", async () => {
    const patch = (body: Record<string, unknown>) => server.request(`${env()}/`, { method: 'PATCH', body });
    expect((await patch({ timezone: 'Pacific/Auckland', week_start_day: 1 })).status).toBe(200);
    try {
      // Monday 8 Jan in Auckland (UTC+13) starts on Sunday the 7th at 11:00 UTC.
      const { results, timezone } = await ask(
        retention({ period: 'Week', totalIntervals: 2 }, { dateRange: { date_from: '2024-01-08', date_to: '2024-01-15' } }),
      );
      expect(timezone).toBe('Pacific/Auckland');
      expect(results.map((row) => [row.label, row.date])).toEqual([
        ['Week 0', '2024-01-08T00:00:00+13:00'],
        ['Week 1', '2024-01-15T00:00:00+13:00'],
      ]);
      // Every visitor's first visit is in the week of the 8th (c's of the 5th is in the week before); none after it.
      expect(results[0]!.values.map((v) => v.count)).toEqual([2, 0]);
    } finally {
      expect((await patch({ timezone: 'UTC', week_start_day: 0 })).status).toBe(200);
    }
  });
});

describe("a cohort's persons", () => {
  const actors = (filter: Filter, interval: number, extra: Record<string, unknown> = {}) =>
    server.request(`${env()}/query/`, {
      method: 'POST',
      body: {
        query: {
          kind: 'ActorsQuery',
          source: { kind: 'InsightActorsQuery', interval, source: retention(filter) },
          select: ['person', 'day_0', 'day_1', 'day_2'],
          orderBy: ['length(appearances) DESC', 'actor_id'],
          ...extra,
        },
      },
    });
  const rows = (res: { body: { results: Array<[{ distinct_ids: string[] }, ...boolean[]]> } }) =>
    res.body.results.map(([person, ...days]) => [person.distinct_ids[0], ...days]);

  it("answer PostHog's retention actors: each person of the cohort and the intervals they count in", async () => {
    const res = await actors({ retentionType: 'retention_recurring' }, 1);
    expect(res.status, res.text).toBe(200);
    expect(res.body.columns).toEqual(['person', 'day_0', 'day_1', 'day_2']);
    // The 9th's recurring cohort: b (back on the 10th) before c (not back).
    expect(rows(res)).toEqual([
      ['b', true, true, false],
      ['c', true, false, false],
    ]);
    expect(rows(await actors({}, 0))).toEqual([['a', true, false, true]]);
    expect(rows(await actors({ cumulative: true }, 0))).toEqual([['a', true, true, true]]);
    const paged = await actors({ retentionType: 'retention_recurring' }, 1, { limit: 1, offset: 1 });
    expect(rows(paged)).toEqual([['c', true, false, false]]);
    expect(paged.body.hasMore).toBe(false);
  });

  it('is a 400 for a cohort or column the retention has not', async () => {
    const past = await actors({}, 3);
    expect(past.status).toBe(400);
    expect(past.body.attr).toBe('query__source__interval');
    const column = await actors({}, 0, { select: ['person', 'day_3'] });
    expect(column.status).toBe(400);
    expect(column.body.attr).toBe('query__select__1');
  });
});

describe('a saved retention insight', () => {
  it('is saved with its query checked, and answers its cohorts as its result', async () => {
    const query = { kind: 'InsightVizNode', source: retention({}) };
    const created = await server.request(`${env()}/insights/`, { method: 'POST', body: { name: 'Visitors back', query } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.result).toEqual((await ask(retention({}))).results);
    const bad = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { query: { kind: 'InsightVizNode', source: retention({ period: 'Year' }) } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe('query__source__retentionFilter__period');
    const unknown = await server.request(`${env()}/insights/`, {
      method: 'POST',
      body: { query: { kind: 'InsightVizNode', source: { kind: 'PathsQuery' } } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ attr: 'query__source__kind', detail: expect.stringContaining('RetentionQuery') });
  });
});

describe('what is not computed', () => {
  const refused = async (query: Record<string, unknown>, attr: string) => {
    const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ type: 'validation_error', attr });
  };

  it('is a 400 naming the field', async () => {
    await refused({ kind: 'RetentionQuery' }, 'query__retentionFilter');
    await refused(retention({ period: 'Year' }), 'query__retentionFilter__period');
    await refused(retention({ totalIntervals: 1001 }), 'query__retentionFilter__totalIntervals');
    await refused(retention({ retentionType: 'x' }), 'query__retentionFilter__retentionType');
    await refused(retention({ targetEntity: { id: 1, type: 'actions' } }), 'query__retentionFilter__targetEntity__type');
    await refused(retention({}, { breakdownFilter: { breakdown: '$browser' } }), 'query__breakdownFilter__breakdown');
    await refused(
      retention({ period: 'Hour', totalIntervals: 1000 }, { dateRange: { date_from: '2023-01-01', date_to: '2024-01-10' } }),
      'query__dateRange',
    );
  });
});
