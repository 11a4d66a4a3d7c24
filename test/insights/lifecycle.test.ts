/**
 * The lifecycle insight through `query/`, on events sent through /batch/, against counts worked
 * out by hand with PostHog's rules: new, returning, resurrecting and dormant, the bucket before
 * the range deciding the first bucket, a person's creation being their first event ever.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;

const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
  event,
  distinct_id,
  timestamp,
  properties,
});

const lifecycle = (event: string | null, dateFrom: string, dateTo: string, extra: Record<string, unknown> = {}) => ({
  kind: 'LifecycleQuery',
  series: [{ kind: 'EventsNode', event, name: event }],
  dateRange: { date_from: dateFrom, date_to: dateTo },
  ...extra,
});

async function ask(query: Record<string, unknown>) {
  const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Each status's data, keyed by status, in the order of the answer. */
async function statuses(query: Record<string, unknown>): Promise<Record<string, number[]>> {
  const body = await ask(query);
  return Object.fromEntries(body.results.map((r: { status: string; data: number[] }) => [r.status, r.data]));
}

describe('LifecycleQuery', () => {
  it("answers PostHog's worked example, the day before the range deciding the first day", async () => {
    await server.ingest([
      // A is created on 8 Jan; B on 1 Jan by another event, and was active on 7 Jan (before the range).
      ev('A', '$pageview', '2024-01-08T10:00:00Z'),
      ev('A', '$pageview', '2024-01-09T10:00:00Z'),
      ev('B', 'signed up', '2024-01-01T10:00:00Z'),
      ev('B', '$pageview', '2024-01-07T10:00:00Z'),
      ev('B', '$pageview', '2024-01-09T12:00:00Z'),
    ]);
    const body = await ask(lifecycle('$pageview', '2024-01-08', '2024-01-10'));
    const days = ['2024-01-08', '2024-01-09', '2024-01-10'];
    const labels = ['8-Jan-2024', '9-Jan-2024', '10-Jan-2024'];
    const action = { id: '$pageview', type: 'events', order: 0, name: '$pageview', custom_name: null, math: 'total' };
    expect(body.results).toEqual([
      { action, data: [1, 0, 0], count: 1, labels, days, label: '$pageview - new', status: 'new' },
      { action, data: [0, 1, 0], count: 1, labels, days, label: '$pageview - returning', status: 'returning' },
      { action, data: [0, 1, 0], count: 1, labels, days, label: '$pageview - resurrecting', status: 'resurrecting' },
      { action, data: [-1, 0, -2], count: -3, labels, days, label: '$pageview - dormant', status: 'dormant' },
    ]);
    expect(body.timezone).toBe('UTC');
    expect(body.resolved_date_range).toEqual({ date_from: '2024-01-08T00:00:00.000Z', date_to: '2024-01-11T00:00:00.000Z' });
  });

  it('counts a person new only in the bucket of their first event of any kind', async () => {
    await server.ingest([
      ev('N1', 'opened', '2024-01-09T10:00:00Z'),
      // Created earlier that day by another event: still new.
      ev('N2', 'other', '2024-01-09T08:00:00Z'),
      ev('N2', 'opened', '2024-01-09T10:00:00Z'),
      // Created days before the range: resurrecting on its first event in the range.
      ev('N3', 'other', '2024-01-03T08:00:00Z'),
      ev('N3', 'opened', '2024-01-09T10:00:00Z'),
    ]);
    const data = await statuses(lifecycle('opened', '2024-01-08', '2024-01-10'));
    expect(data).toEqual({ new: [0, 2, 0], returning: [0, 0, 0], resurrecting: [0, 1, 0], dormant: [0, 0, -3] });
  });

  it('counts a person merged by $identify once', async () => {
    await server.ingest([ev('m-anon', 'browse', '2024-01-08T09:00:00Z'), ev('m-user', 'browse', '2024-01-09T09:00:00Z')]);
    const query = lifecycle('browse', '2024-01-08', '2024-01-10');
    expect(await statuses(query)).toEqual({ new: [1, 1, 0], returning: [0, 0, 0], resurrecting: [0, 0, 0], dormant: [0, -1, -1] });
    await server.ingest([ev('m-user', '$identify', '2024-01-09T10:00:00Z', { $anon_distinct_id: 'm-anon' })]);
    expect(await statuses(query)).toEqual({ new: [1, 0, 0], returning: [0, 1, 0], resurrecting: [0, 0, 0], dormant: [0, 0, -1] });
  });

  it('counts by week, weeks starting on Sunday, the week before the range deciding the first', async () => {
    await server.ingest([
      ev('W1', 'weekly', '2024-01-30T10:00:00Z'),
      ev('W1', 'weekly', '2024-02-06T10:00:00Z'),
      ev('W1', 'weekly', '2024-02-13T10:00:00Z'),
      ev('W2', 'weekly', '2024-02-05T10:00:00Z'),
      ev('W2', 'weekly', '2024-02-19T10:00:00Z'),
      // Saturday then Sunday: two weeks.
      ev('W3', 'weekly', '2024-02-10T10:00:00Z'),
      ev('W3', 'weekly', '2024-02-11T10:00:00Z'),
    ]);
    const body = await ask(lifecycle('weekly', '2024-02-05', '2024-02-24', { interval: 'week' }));
    expect(body.results[0].days).toEqual(['2024-02-04', '2024-02-11', '2024-02-18']);
    expect(body.results[0].labels).toEqual(['4-Feb-2024', '11-Feb-2024', '18-Feb-2024']);
    expect(Object.fromEntries(body.results.map((r: any) => [r.status, r.data]))).toEqual({
      new: [2, 0, 0],
      returning: [1, 2, 0],
      resurrecting: [0, 0, 1],
      dormant: [0, -1, -2],
    });
  });

  it('counts by hour', async () => {
    await server.ingest([
      ev('H1', 'hourly', '2024-01-20T10:15:00Z'),
      ev('H1', 'hourly', '2024-01-20T11:30:00Z'),
      ev('H1', 'hourly', '2024-01-20T13:05:00Z'),
    ]);
    const body = await ask(lifecycle('hourly', '2024-01-20T10:00:00Z', '2024-01-20T13:59:00Z', { interval: 'hour' }));
    expect(body.results[0].days).toEqual(['2024-01-20 10:00:00', '2024-01-20 11:00:00', '2024-01-20 12:00:00', '2024-01-20 13:00:00']);
    expect(Object.fromEntries(body.results.map((r: any) => [r.status, r.data]))).toEqual({
      new: [1, 0, 0, 0],
      returning: [0, 1, 0, 0],
      resurrecting: [0, 0, 0, 1],
      dormant: [0, 0, -1, 0],
    });
  });

  it("applies the query's and the series' property filters, and leaves out events without a person profile", async () => {
    await server.ingest([
      ev('P1', 'filtered', '2024-01-15T10:00:00Z', { plan: 'pro' }),
      ev('P1', 'filtered', '2024-01-16T10:00:00Z', { plan: 'free' }),
      ev('P2', 'filtered', '2024-01-15T10:00:00Z', { plan: 'free' }),
      ev('ghost', 'filtered', '2024-01-15T10:00:00Z', { plan: 'pro', $process_person_profile: false }),
    ]);
    const query = lifecycle('filtered', '2024-01-15', '2024-01-17');
    expect(await statuses(query)).toEqual({ new: [2, 0, 0], returning: [0, 1, 0], resurrecting: [0, 0, 0], dormant: [0, -1, -1] });
    const pro = [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }];
    expect(await statuses({ ...query, properties: pro })).toEqual({
      new: [1, 0, 0],
      returning: [0, 0, 0],
      resurrecting: [0, 0, 0],
      dormant: [0, -1, 0],
    });
    // P1 was created by its pro event: resurrecting, not new, on its first free one.
    const free = { kind: 'EventsNode', event: 'filtered', properties: [{ key: 'plan', value: ['free'], operator: 'exact' }] };
    expect(await statuses({ ...query, series: [free] })).toEqual({
      new: [1, 0, 0],
      returning: [0, 0, 0],
      resurrecting: [0, 1, 0],
      dormant: [0, -1, -1],
    });
  });

  it('labels all events "All events" and reads every event for a null event', async () => {
    const body = await ask(lifecycle(null, '2024-01-15', '2024-01-17'));
    expect(body.results.map((r: any) => r.label)).toEqual([
      'All events - new',
      'All events - returning',
      'All events - resurrecting',
      'All events - dormant',
    ]);
    expect(body.results[0].action).toMatchObject({ id: null, name: 'All events' });
    // P1 and P2 (the ghost has no profile) on the 15th; P1 again on the 16th.
    expect(body.results.map((r: any) => r.data)).toEqual([
      [2, 0, 0],
      [0, 1, 0],
      [0, 0, 0],
      [0, -1, -1],
    ]);
  });

  it('is a 400 naming the field for what it does not run', async () => {
    const base = lifecycle('$pageview', '2024-01-08', '2024-01-10');
    const node = { kind: 'EventsNode', event: '$pageview' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, series: [] }, 'query__series'],
      [{ ...base, series: [node, node] }, 'query__series'],
      [{ ...base, series: [{ kind: 'ActionsNode', id: 1 }] }, 'query__series__0__kind'],
      [{ ...base, series: [{ kind: 'EventsNode', event: 7 }] }, 'query__series__0__event'],
      [{ ...base, interval: 'year' }, 'query__interval'],
      [{ ...base, dateRange: { date_from: 'soon' } }, 'query__dateRange__date_from'],
    ];
    for (const [query, attr] of cases) {
      const res = await server.request(`${env()}/query/`, { method: 'POST', body: { query } });
      expect({ status: res.status, type: res.body.type, attr: res.body.attr }, JSON.stringify(query)).toEqual({
        status: 400,
        type: 'validation_error',
        attr,
      });
    }
  });
});

describe('LifecycleQuery in the environment’s time zone', () => {
  it('cuts buckets and the creation at local midnight', async () => {
    // 5 Mar 01:00 and 23:00 in Tokyo; 4 and 5 Mar in UTC.
    await server.ingest([ev('T1', 'tz probe', '2024-03-04T16:00:00Z'), ev('T1', 'tz probe', '2024-03-05T14:00:00Z')]);
    const query = lifecycle('tz probe', '2024-03-04', '2024-03-06');
    expect(await statuses(query)).toEqual({ new: [1, 0, 0], returning: [0, 1, 0], resurrecting: [0, 0, 0], dormant: [0, 0, -1] });
    expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
    try {
      const body = await ask(query);
      expect(body.timezone).toBe('Asia/Tokyo');
      expect(body.resolved_date_range.date_from).toBe('2024-03-03T15:00:00.000Z');
      expect(body.results[0].days).toEqual(['2024-03-04', '2024-03-05', '2024-03-06']);
      expect(Object.fromEntries(body.results.map((r: any) => [r.status, r.data]))).toEqual({
        new: [0, 1, 0],
        returning: [0, 0, 0],
        resurrecting: [0, 0, 0],
        dormant: [0, 0, -1],
      });
    } finally {
      expect((await server.request(`${env()}/`, { method: 'PATCH', body: { timezone: 'UTC' } })).status).toBe(200);
    }
  });
});

describe("a lifecycle bar's persons", () => {
  it("answer PostHog's lifecycle actors: the persons of a status on a day, as many as the bar", async () => {
    await server.ingest([
      ev('la', 'tapped', '2024-02-08T10:00:00Z'),
      ev('la', 'tapped', '2024-02-09T10:00:00Z'),
      ev('lb', 'other', '2024-02-01T10:00:00Z'),
      ev('lb', 'tapped', '2024-02-07T10:00:00Z'),
      ev('lb', 'tapped', '2024-02-09T12:00:00Z'),
    ]);
    const source = lifecycle('tapped', '2024-02-08', '2024-02-10');
    const data = await statuses(source);
    const persons = async (day: string, status: string) => {
      const res = await server.request(`${env()}/query/`, {
        method: 'POST',
        body: { query: { kind: 'ActorsQuery', select: ['person'], source: { kind: 'InsightActorsQuery', source, day, status } } },
      });
      expect(res.status, res.text).toBe(200);
      return (res.body.results as Array<[{ distinct_ids: string[] }]>).map(([person]) => person.distinct_ids[0]).sort();
    };
    const days = ['2024-02-08', '2024-02-09', '2024-02-10'];
    for (const status of ['new', 'returning', 'resurrecting', 'dormant']) {
      for (const [i, day] of days.entries())
        expect((await persons(day, status)).length, `${status} ${day}`).toBe(Math.abs(data[status]![i]!));
    }
    expect(await persons('2024-02-09', 'resurrecting')).toEqual(['lb']);
    expect(await persons('2024-02-10', 'dormant')).toEqual(['la', 'lb']);
    const bad = await server.request(`${env()}/query/`, {
      method: 'POST',
      body: { query: { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source, day: '2024-02-09', status: 'lost' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe('query__source__status');
  });
});
