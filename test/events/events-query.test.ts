import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { readColumn } from '../../src/events/events-query.js';

const server = useTestServer();
const env = () => `/api/environments/${server.bootstrap.team.id}`;
const query = (body: Record<string, unknown>) =>
  server.request(`${env()}/query/`, { method: 'POST', body: { query: { kind: 'EventsQuery', ...body } } });

beforeAll(async () => {
  await server.ingest([
    {
      event: '$pageview',
      distinct_id: 'anon-1',
      timestamp: '2026-11-20T10:00:00Z',
      properties: { $current_url: 'https://x.example/a', $lib: 'web', plan: 'free' },
    },
    { event: '$pageview', distinct_id: 'anon-1', timestamp: '2026-11-20T10:01:00Z', properties: { $screen_name: 'Home', $lib: 'ios' } },
    {
      event: '$identify',
      distinct_id: 'user-1',
      timestamp: '2026-11-20T10:02:00Z',
      properties: { $anon_distinct_id: 'anon-1', $set: { email: 'u1@example.com' } },
    },
    { event: 'clicked', distinct_id: 'user-1', timestamp: '2026-11-20T10:03:00Z', properties: { plan: 'pro' } },
    { event: 'clicked', distinct_id: 'user-2', timestamp: '2026-11-20T10:04:00Z', properties: { plan: 'pro' } },
  ]);
});

describe('EventsQuery through query/', () => {
  it("answers PostHog's activity columns, newest first", async () => {
    const res = await query({
      select: [
        '*',
        'event',
        'person',
        'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen',
        'properties.$lib',
        'timestamp',
      ],
      after: '2026-11-01',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.columns).toEqual([
      '*',
      'event',
      'person',
      'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen',
      'properties.$lib',
      'timestamp',
    ]);
    expect(res.body.hasMore).toBe(false);
    expect(res.body.results.map((r: any[]) => [r[1], r[3], r[4], r[5]])).toEqual([
      ['clicked', null, null, '2026-11-20T10:04:00.000Z'],
      ['clicked', null, null, '2026-11-20T10:03:00.000Z'],
      ['$identify', null, null, '2026-11-20T10:02:00.000Z'],
      ['$pageview', 'Home', 'ios', '2026-11-20T10:01:00.000Z'],
      ['$pageview', 'https://x.example/a', 'web', '2026-11-20T10:00:00.000Z'],
    ]);
    const first = res.body.results[4];
    expect(first[0]).toMatchObject({
      event: '$pageview',
      distinct_id: 'anon-1',
      team_id: server.bootstrap.team.id,
      properties: { plan: 'free' },
    });
    // The anonymous id's person now is the identified one.
    expect(first[2]).toMatchObject({ distinct_id: 'anon-1', properties: { email: 'u1@example.com' } });
  });

  it('filters by event, properties, person and time, and pages', async () => {
    const clicked = await query({ select: ['distinct_id'], event: 'clicked', properties: [{ key: 'plan', value: 'pro', type: 'event' }] });
    expect(clicked.body.results).toEqual([['user-2'], ['user-1']]);
    const person = await server.request(`${env()}/persons/?distinct_id=user-1`);
    const mine = await query({
      select: ['event', 'distinct_id'],
      personId: person.body.results[0].uuid,
      orderBy: ['timestamp ASC'],
      limit: 2,
    });
    expect(mine.body.results).toEqual([
      ['$pageview', 'anon-1'],
      ['$pageview', 'anon-1'],
    ]);
    expect(mine.body.hasMore).toBe(true);
    const next = await query({
      select: ['event', 'timestamp'],
      personId: person.body.results[0].uuid,
      orderBy: ['timestamp ASC'],
      limit: 2,
      offset: 2,
    });
    expect(next.body.results.map((r: any[]) => r[0])).toEqual(['$identify', 'clicked']);
    const window = await query({ select: ['event'], after: '2026-11-20T10:01:30Z', before: '2026-11-20T10:03:30Z' });
    expect(window.body.results).toEqual([['clicked'], ['$identify']]);
  });

  it("filters by the event's own distinct id and name (event_metadata), with the property operators", async () => {
    const byId = await query({
      select: ['event', 'distinct_id'],
      properties: [{ type: 'event_metadata', key: 'distinct_id', operator: 'exact', value: 'anon-1' }],
      orderBy: ['timestamp ASC'],
    });
    expect(byId.status, byId.text).toBe(200);
    expect(byId.body.results).toEqual([
      ['$pageview', 'anon-1'],
      ['$pageview', 'anon-1'],
    ]);
    // Not the person: user-1's person also has anon-1, but the filter is on the event's own id.
    const users = await query({
      select: ['distinct_id'],
      properties: [
        { type: 'event_metadata', key: 'distinct_id', operator: 'icontains', value: 'USER' },
        { type: 'event_metadata', key: 'event', operator: 'is_not', value: '$identify' },
        { type: 'event', key: 'plan', operator: 'exact', value: 'pro' },
      ],
    });
    expect(users.body.results).toEqual([['user-2'], ['user-1']]);
    const unknown = await query({ select: ['event'], properties: [{ type: 'event_metadata', key: 'person_mode', value: 'x' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: 'validation_error', attr: 'query__properties__0' });
    const person = await query({ select: ['event'], properties: [{ type: 'person', key: 'email', value: 'x' }] });
    expect(person.body).toMatchObject({ type: 'validation_error', attr: 'query__properties__0' });
  });

  it('counts by a column', async () => {
    const res = await query({ select: ['event', 'count()'], after: '2026-11-01' });
    // The largest count first; ties by the other columns.
    expect(res.body.results).toEqual([
      ['$pageview', 2],
      ['clicked', 2],
      ['$identify', 1],
    ]);
  });

  it('refuses what it cannot run with a 400 naming the field', async () => {
    const hogql = await query({ select: ['toStartOfDay(timestamp)'] });
    expect(hogql.status).toBe(400);
    expect(hogql.body).toMatchObject({ type: 'validation_error', attr: 'query__select__0' });
    expect((await query({ select: ['event'], where: ["event = 'x'"] })).body).toMatchObject({ attr: 'query__where' });
    // A where clause in any other form is refused too, not dropped (which would answer every event).
    for (const where of ["event = 'x'", {}, 1, true]) {
      const res = await query({ select: ['event'], where });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ attr: 'query__where' });
    }
    expect((await query({ select: ['event'], where: [] })).status).toBe(200);
    expect((await query({ select: ['event'], limit: 0 })).body).toMatchObject({ attr: 'query__limit' });
    expect((await query({ select: ['event'], orderBy: ['properties.plan'] })).body).toMatchObject({ attr: 'query__orderBy__0' });
  });

  it('answers 400, not 500, to a query too large for ClickHouse to parse, and runs a large one within its limits', async () => {
    const columns = (count: number) => Array.from({ length: count }, (_, i) => `properties.column_${i}`);
    const huge = await query({ select: columns(6000), after: '2026-11-01' });
    expect(huge.status).toBe(400);
    expect(huge.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'This query is too large for the analytics engine to run: select fewer columns or use fewer filters.',
      attr: 'query',
    });
    const wide = await query({ select: ['event', ...columns(500)], after: '2026-11-01' });
    expect(wide.status, wide.text).toBe(200);
    expect(wide.body.results).toHaveLength(5);
    expect(wide.body.results[0]).toHaveLength(501);
  });
});

describe('EventsQuery select items', () => {
  it('reads the fields, properties and labels PostHog sends', () => {
    expect(readColumn('properties.$browser -- Browser', 'a')).toEqual({ kind: 'properties', keys: ['$browser'] });
    expect(readColumn('properties.`odd key`', 'a')).toEqual({ kind: 'properties', keys: ['odd key'] });
    expect(readColumn('count()', 'a')).toEqual({ kind: 'count' });
    expect(readColumn('timestamp', 'a')).toEqual({ kind: 'field', field: 'timestamp' });
    expect(() => readColumn("properties.x'); DROP TABLE events --", 'a')).toThrow(/Unsupported/);
  });
});
