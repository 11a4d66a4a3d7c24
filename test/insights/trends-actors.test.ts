/**
 * The persons behind a trends value (PostHog's ActorsQuery over an InsightActorsQuery) through the
 * query API, on events sent through /batch/: for every math the persons listed are those counted,
 * each with their events in the value's span; breakdown values (null and "other" included), the
 * previous period, totals, cumulative lines, paging and the errors of a query that names no value.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from '../../src/insights/trends-results.js';
import { useTestServer } from '../helpers/server.js';
import { fullSnapshot, meta, postSnapshots, snapshotEvent } from '../recordings/helpers.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
  event,
  distinct_id,
  timestamp,
  properties,
});

type Source = Record<string, unknown>;

const trendsQuery = (series: Record<string, unknown>, dateFrom: string, dateTo: string, extra: Source = {}): Source => ({
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', ...series }],
  interval: 'day',
  dateRange: { date_from: dateFrom, date_to: dateTo },
  ...extra,
});

async function query(body: Source) {
  return server.request(`${env()}/query/`, { method: 'POST', body: { query: body } });
}

async function trends(source: Source) {
  const res = await query(source);
  expect(res.status).toBe(200);
  return res.body.results as Array<{
    data: number[];
    days: string[];
    breakdown_value?: string;
    aggregated_value?: number;
    compare_label?: string;
  }>;
}

/** As PostHog's persons modal asks for a trends value's persons. */
async function actors(source: Source, point: Source, page: Source = {}) {
  const res = await query({
    kind: 'ActorsQuery',
    source: { kind: 'InsightActorsQuery', source, includeRecordings: true, ...point },
    select: ['actor', 'event_count', 'matched_recordings'],
    orderBy: ['event_count DESC, actor_id DESC'],
    search: '',
    ...page,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    results: Array<
      [
        { id: string; distinct_ids: string[]; properties: Record<string, unknown> },
        number,
        Array<{ session_id: string; events: Array<{ uuid: string }> }>,
        string[],
      ]
    >;
    columns: string[];
    hasMore: boolean;
    limit: number;
    offset: number;
    missing_actors_count: number;
  };
}

/** The first distinct id and event count of each row. */
const people = (body: Awaited<ReturnType<typeof actors>>) => body.results.map(([actor, count]) => [actor.distinct_ids[0], count]);
/** The same by name, for rows whose order among equal counts is the persons' uuids'. */
const sorted = (body: Awaited<ReturnType<typeof actors>>) => people(body).sort(([a], [b]) => String(a).localeCompare(String(b)));

beforeAll(() =>
  server.ingest([
    ev('alice', 'purchase', '2025-10-01T10:00:00Z', { plan: 'pro' }),
    ev('alice', 'purchase', '2025-10-01T11:00:00Z', { plan: 'pro' }),
    ev('alice', 'purchase', '2025-10-01T12:00:00Z', { plan: 'pro' }),
    ev('bob', 'purchase', '2025-10-01T12:00:00Z', { plan: 'free' }),
    ev('bob', 'purchase', '2025-10-01T13:00:00Z', { plan: 'free' }),
    ev('carol', 'purchase', '2025-10-01T14:00:00Z'),
    ev('carol', 'purchase', '2025-10-02T09:00:00Z', { plan: 'team' }),
    ev('dave', 'purchase', '2025-10-02T15:00:00Z', { plan: 'pro' }),
    ev('erin', 'purchase', '2025-09-24T15:00:00Z', { plan: 'pro' }),
    ev('alice', 'pageview', '2025-10-01T10:00:00Z'),
    // Active users: p4's visit at midnight belongs to the 13th's trailing windows, not the 20th's.
    ev('p1', 'visit', '2025-09-01T12:00:00Z'),
    ev('p2', 'visit', '2025-09-08T12:00:00Z'),
    ev('p3', 'visit', '2025-09-12T12:00:00Z'),
    ev('p4', 'visit', '2025-09-14T00:00:00Z'),
    ev('p2', 'visit', '2025-09-15T12:00:00Z'),
  ]),
);

describe('a value over time', () => {
  it("lists the day's persons, most events first, with their events of that day", async () => {
    const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-02');
    const body = await actors(source, { day: '2025-10-01', series: 0 });
    expect(body.columns).toEqual(['actor', 'event_count', 'matched_recordings', 'event_distinct_ids']);
    expect(people(body)).toEqual([
      ['alice', 3],
      ['bob', 2],
      ['carol', 1],
    ]);
    expect(body.results[0]![0].properties).toEqual(expect.any(Object));
    expect(body).toMatchObject({ hasMore: false, limit: 100, offset: 0, missing_actors_count: 0 });
    expect(sorted(await actors(source, { day: '2025-10-02', series: 0 }))).toEqual([
      ['carol', 1],
      ['dave', 1],
    ]);
  });

  it('lists for unique users exactly the persons counted, on every day', async () => {
    for (const math of ['dau', 'weekly_active', 'monthly_active'] as const) {
      const source = trendsQuery({ event: 'visit', math }, '2025-09-01', '2025-09-21');
      const [result] = await trends(source);
      for (const [i, day] of result!.days.entries()) {
        const body = await actors(source, { day, series: 0 });
        expect(body.results.length, `${math} on ${day}`).toBe(result!.data[i]);
      }
    }
  });

  it("takes a weekly active user's trailing days as the count does", async () => {
    const source = trendsQuery({ event: 'visit', math: 'weekly_active' }, '2025-09-13', '2025-09-20');
    const names = async (day: string) =>
      people(await actors(source, { day, series: 0 }))
        .map(([name]) => name)
        .sort();
    expect(await names('2025-09-13')).toEqual(['p2', 'p3', 'p4']);
    expect(await names('2025-09-20')).toEqual(['p2']);
    // A cumulative line sums the weeks up to the day: its persons are those of any of them.
    const cumulative = { ...source, trendsFilter: { display: 'ActionsLineGraphCumulative' } };
    const summed = await actors(cumulative, { day: '2025-09-20', series: 0 });
    expect(
      people(summed)
        .map(([name]) => name)
        .sort(),
    ).toEqual(['p2', 'p3', 'p4']);
  });

  it('counts a merged person once, under the person they were merged into', async () => {
    await server.ingest([ev('anon-x', 'signup', '2025-08-05T09:00:00Z'), ev('user-x', 'signup', '2025-08-05T10:00:00Z')]);
    await server.ingest([ev('user-x', '$identify', '2025-08-05T11:00:00Z', { $anon_distinct_id: 'anon-x' })]);
    const body = await actors(trendsQuery({ event: 'signup', math: 'dau' }, '2025-08-05', '2025-08-05'), { day: '2025-08-05', series: 0 });
    expect(body.results).toHaveLength(1);
    expect(body.results[0]![0].distinct_ids.sort()).toEqual(['anon-x', 'user-x']);
    expect(body.results[0]![1]).toBe(2);
  });

  it('reads a cumulative value from the start of the range', async () => {
    const source = trendsQuery({ event: 'purchase', math: 'dau' }, '2025-10-01', '2025-10-02', {
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    });
    const [result] = await trends(source);
    const body = await actors(source, { day: '2025-10-02', series: 0 });
    expect(body.results).toHaveLength(result!.data[1]!);
    expect(
      people(body)
        .map(([name]) => name)
        .sort(),
    ).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('picks the series by its index', async () => {
    const source = {
      ...trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-01'),
      series: [
        { kind: 'EventsNode', event: 'purchase' },
        { kind: 'EventsNode', event: 'pageview' },
      ],
    };
    expect(people(await actors(source, { day: '2025-10-01', series: 1 }))).toEqual([['alice', 1]]);
  });
});

describe('breakdowns', () => {
  const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-02', {
    breakdownFilter: { breakdown: 'plan', breakdown_type: 'event', breakdown_limit: 1 },
  });

  it('lists the persons of a value, of no value, and of the values left out', async () => {
    const results = await trends(source);
    expect(results.map((r) => r.breakdown_value)).toEqual(['pro', BREAKDOWN_OTHER]);
    expect(people(await actors(source, { day: '2025-10-01', series: 0, breakdown: 'pro' }))).toEqual([['alice', 3]]);
    expect(people(await actors(source, { day: '2025-10-01', series: 0, breakdown: BREAKDOWN_OTHER }))).toEqual([
      ['bob', 2],
      ['carol', 1],
    ]);
    const withNull = { ...source, breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' } };
    expect(people(await actors(withNull, { day: '2025-10-01', series: 0, breakdown: BREAKDOWN_NULL }))).toEqual([['carol', 1]]);
    // PostHog's frontend sends a single breakdown's value as a one-item list.
    expect(people(await actors(withNull, { day: '2025-10-02', series: 0, breakdown: ['team'] }))).toEqual([['carol', 1]]);
  });
});

describe('totals and comparisons', () => {
  it("lists a total display's persons over the whole range", async () => {
    const source = trendsQuery({ event: 'purchase', math: 'dau' }, '2025-10-01', '2025-10-02', { trendsFilter: { display: 'BoldNumber' } });
    const [result] = await trends(source);
    const body = await actors(source, { series: 0 });
    expect(body.results).toHaveLength(result!.aggregated_value!);
    expect(people(body)[0]).toEqual(['alice', 3]);
    expect(sorted(body)).toEqual([
      ['alice', 3],
      ['bob', 2],
      ['carol', 2],
      ['dave', 1],
    ]);
  });

  it("lists the previous period's persons for its own days", async () => {
    const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-07', { compareFilter: { compare: true, compare_to: '-1w' } });
    const previous = (await trends(source)).find((r) => r.compare_label === 'previous')!;
    expect(previous.days[0]).toBe('2025-09-24');
    expect(people(await actors(source, { day: '2025-09-24', series: 0, compare: 'previous' }))).toEqual([['erin', 1]]);
    // PostHog's frontend sends the current period's day for the previous period's value at the same place.
    expect(people(await actors(source, { day: '2025-10-01', series: 0, compare: 'previous' }))).toEqual([['erin', 1]]);
  });

  it("reads the bucket's start as an ISO date-time too", async () => {
    const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-02');
    const names = async (day: string) => sorted(await actors(source, { day, series: 0 })).map(([name]) => name);
    expect(await names('2025-10-02T00:00:00Z')).toEqual(['carol', 'dave']);
    expect(await names('2025-10-02 00:00:00')).toEqual(['carol', 'dave']);
    expect(await names('2025-10-01T00:00:00+00:00')).toEqual(['alice', 'bob', 'carol']);
  });
});

describe('the columns', () => {
  it('give the distinct ids the events were sent with and the recorded sessions they fall in', async () => {
    const token = server.bootstrap.team.apiToken;
    const t = Date.parse('2025-07-01T10:00:00Z');
    const snapshots = [
      snapshotEvent(token, 'rec-1', [meta(t, 'https://example.com/'), fullSnapshot(t + 1)], { distinctId: 'anon-r', windowId: 'w-1' }),
    ];
    expect((await postSnapshots(server, JSON.stringify(snapshots), 'application/json')).status).toBe(200);
    await server.ingest([
      ev('anon-r', 'open', '2025-07-01T10:00:01Z', { $session_id: 'rec-1', $window_id: 'w-1' }),
      ev('anon-r', 'open', '2025-07-01T10:00:02Z', { $session_id: 'not-recorded' }),
      ev('user-r', 'open', '2025-07-01T11:00:00Z'),
    ]);
    await server.ingest([ev('user-r', '$identify', '2025-07-01T11:00:01Z', { $anon_distinct_id: 'anon-r' })]);
    await server.settle();
    const body = await actors(trendsQuery({ event: 'open' }, '2025-07-01', '2025-07-01'), { day: '2025-07-01', series: 0 });
    expect(body.results).toHaveLength(1);
    const [actor, count, recordings, distinctIds] = body.results[0]!;
    expect(actor.distinct_ids.sort()).toEqual(['anon-r', 'user-r']);
    expect(count).toBe(3);
    expect(distinctIds.sort()).toEqual(['anon-r', 'user-r']);
    expect(recordings).toEqual([
      { session_id: 'rec-1', events: [expect.objectContaining({ window_id: 'w-1', timestamp: '2025-07-01T10:00:01.000Z' })] },
    ]);
  });
});

describe('paging', () => {
  it('pages through the persons without a gap', async () => {
    const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-01');
    const first = await actors(source, { day: '2025-10-01', series: 0 }, { limit: 2 });
    expect(people(first)).toEqual([
      ['alice', 3],
      ['bob', 2],
    ]);
    expect(first.hasMore).toBe(true);
    const second = await actors(source, { day: '2025-10-01', series: 0 }, { limit: 2, offset: 2 });
    expect(people(second)).toEqual([['carol', 1]]);
    expect(second).toMatchObject({ hasMore: false, limit: 2, offset: 2 });
  });

  it("cuts a limit past the most a page holds, and reads no positive limit as PostHog's default", async () => {
    const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-01');
    expect(await actors(source, { day: '2025-10-01', series: 0 }, { limit: 1_000_000 })).toMatchObject({ limit: 10_000 });
    expect(await actors(source, { day: '2025-10-01', series: 0 }, { limit: 0, offset: -5 })).toMatchObject({ limit: 100, offset: 0 });
  });
});

describe('a query that names no value', () => {
  const source = trendsQuery({ event: 'purchase' }, '2025-10-01', '2025-10-02');
  const refused = async (point: Source, page: Source = {}) => {
    const res = await query({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source, ...point }, ...page });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('validation_error');
    return res.body as { detail: string; attr: string };
  };

  it('is refused with what is wrong', async () => {
    expect(await refused({ series: 0 })).toMatchObject({ attr: 'query__source__day' });
    expect((await refused({ day: '2025-11-01', series: 0 })).detail).toContain('2025-10-01 to 2025-10-02');
    expect(await refused({ day: '2025-10-01', series: 1 })).toMatchObject({ attr: 'query__source__series' });
    expect(await refused({ day: '2025-10-01', series: 0, breakdown: 'pro' })).toMatchObject({ attr: 'query__source__breakdown' });
    expect(await refused({ day: '2025-10-01', series: 0, compare: 'previous' })).toMatchObject({ attr: 'query__source__compare' });
    expect(await refused({ day: '2025-10-01', series: 0 }, { select: ['actor', 'properties.email'] })).toMatchObject({
      attr: 'query__select__1',
    });
    expect(await refused({ day: '2025-10-01', series: 0 }, { limit: '10' })).toMatchObject({ attr: 'query__limit' });
    expect(await refused({ day: '2025-10-01', series: 0 }, { orderBy: ['created_at DESC'] })).toMatchObject({ attr: 'query__orderBy' });
    expect(await refused({ day: '2025-10-01', series: 0 }, { select: ['actor', 'event_count', 'actor'] })).toMatchObject({
      attr: 'query__select__2',
    });
    expect(await refused({ day: '2025-10-01', series: 0 }, { search: 'alice' })).toMatchObject({ attr: 'query__search' });
    const res = await query({ kind: 'ActorsQuery' });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe('query__source');
  });
});
