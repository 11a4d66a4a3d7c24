/**
 * The persons behind a funnel step (funnelActors, PostHog's FunnelsActorsQuery), on events sent
 * through /batch/: a step's persons are exactly those the funnel counts there (reached, dropped off
 * before it), within the conversion window, merged persons once, per breakdown value as the
 * result labels it (the missing value, values past the limit), a page at a time.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActorRow, FunnelsActorsSource } from '../../src/insights/actors-query.js';
import { funnelActors } from '../../src/insights/funnel-actors-store.js';
import { countFunnel } from '../../src/insights/funnels-store.js';
import { funnelResults, readFunnelsQuery, type FunnelStepResult, type FunnelsQuery } from '../../src/insights/funnels.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}) => ({
  event,
  distinct_id,
  timestamp,
  properties,
});
const pv = (distinctId: string, time: string, properties: Record<string, unknown> = {}) =>
  ev(distinctId, '$pageview', time, { $pathname: '/', ...properties });

/**
 * With a one-day window: p1, p4 and u8 (merged with its anonymous a8) purchase (level 3), p2 and
 * p6 sign up (2), p3, p5, p7 (its sign-up two days late) and p9 only view (1); p10 never views.
 * Browsers: Chrome p1, p2, p7; Firefox p3, p4; Safari a8; none p5, p6; '' p9.
 */
beforeAll(() =>
  server.ingest([
    pv('p1', '2026-03-10T05:00:00Z', { $browser: 'Chrome', $session_id: 's1', $window_id: 'w1' }),
    ev('p1', 'signed up', '2026-03-10T05:10:00.250Z', { $session_id: 's1' }),
    ev('p1', 'purchased', '2026-03-10T06:00:00Z'),
    ev('p1', 'other', '2026-03-10T06:30:00Z'),
    pv('p2', '2026-03-10T05:00:00Z', { $browser: 'Chrome' }),
    ev('p2', 'signed up', '2026-03-10T07:00:00Z'),
    pv('p3', '2026-03-11T05:00:00Z', { $browser: 'Firefox' }),
    pv('p4', '2026-03-11T05:00:00Z', { $browser: 'Firefox' }),
    ev('p4', 'signed up', '2026-03-11T06:00:00Z'),
    ev('p4', 'purchased', '2026-03-11T07:00:00Z'),
    pv('p5', '2026-03-10T08:00:00Z'),
    pv('p6', '2026-03-10T08:00:00Z'),
    ev('p6', 'signed up', '2026-03-10T09:00:00Z'),
    pv('p7', '2026-03-10T05:00:00Z', { $browser: 'Chrome' }),
    ev('p7', 'signed up', '2026-03-12T05:00:00Z'),
    pv('a8', '2026-03-10T10:00:00Z', { $browser: 'Safari' }),
    ev('u8', '$identify', '2026-03-10T10:05:00Z', { $anon_distinct_id: 'a8' }),
    ev('u8', 'signed up', '2026-03-10T10:10:00Z'),
    ev('u8', 'purchased', '2026-03-10T10:20:00Z'),
    pv('p9', '2026-03-10T11:00:00Z', { $browser: '' }),
    ev('p10', 'signed up', '2026-03-10T11:00:00Z'),
  ]),
);

const range = { from: new Date('2026-03-10T00:00:00Z'), to: new Date('2026-03-13T00:00:00Z') };

const funnel = (extra: Record<string, unknown> = {}): FunnelsQuery =>
  readFunnelsQuery({
    kind: 'FunnelsQuery',
    series: [
      { kind: 'EventsNode', event: '$pageview', properties: [{ key: '$pathname', value: '/', operator: 'exact', type: 'event' }] },
      { kind: 'EventsNode', event: 'signed up' },
      { kind: 'EventsNode', event: 'purchased' },
    ],
    dateRange: { date_from: '2026-03-10', date_to: '2026-03-12' },
    funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
    ...extra,
  });
const byBrowser = (limit?: number) =>
  funnel({ breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', ...(limit ? { breakdown_limit: limit } : {}) } });

const ctx = () => ({ analytics: server.running.ctx.analytics, team: server.bootstrap.team.id });

async function actors(query: FunnelsQuery, step: number, breakdown: string | null = null, page = { limit: 100, offset: 0 }) {
  const source: FunnelsActorsSource = { kind: 'funnels', query, step, breakdown };
  return funnelActors(ctx().analytics, ctx().team, query, range, source, page);
}

/** Each row's person by their distinct ids, in the order answered. */
const who = (rows: ActorRow[]) => rows.map((row) => [...row.distinctIds].sort().join('+'));
const names = (rows: ActorRow[]) => who(rows).sort();

/** The funnel's result over the same range, as the query API shapes it. */
async function result(query: FunnelsQuery) {
  return funnelResults(query, await countFunnel(ctx().analytics, ctx().team, query, range));
}

describe('funnelActors', () => {
  it('lists as many persons per step as the funnel counts, reached and dropped off, each once', async () => {
    const query = funnel();
    const steps = (await result(query)) as FunnelStepResult[];
    expect(steps.map((s) => s.count)).toEqual([9, 5, 3]);
    // The query API over the same days counts the same (the test environment is in UTC).
    const api = await server.request(`/api/environments/${ctx().team}/query/`, {
      method: 'POST',
      body: {
        query: {
          kind: 'FunnelsQuery',
          series: [
            { kind: 'EventsNode', event: '$pageview' },
            { kind: 'EventsNode', event: 'signed up' },
            { kind: 'EventsNode', event: 'purchased' },
          ],
          dateRange: { date_from: '2026-03-10', date_to: '2026-03-12' },
          funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
        },
      },
    });
    expect(api.body.results.map((s: FunnelStepResult) => s.count)).toEqual([9, 5, 3]);

    const reached = await Promise.all([1, 2, 3].map((step) => actors(query, step)));
    const dropped = await Promise.all([2, 3].map((step) => actors(query, -step)));
    expect(reached.map((rows) => rows.length)).toEqual(steps.map((s) => s.count));
    expect(dropped.map((rows) => rows.length)).toEqual([steps[0]!.count - steps[1]!.count, steps[1]!.count - steps[2]!.count]);
    expect(names(reached[0]!)).toEqual(['a8+u8', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p9']);
    expect(names(reached[1]!)).toEqual(['a8+u8', 'p1', 'p2', 'p4', 'p6']);
    expect(names(reached[2]!)).toEqual(['a8+u8', 'p1', 'p4']);
    expect(names(dropped[0]!)).toEqual(['p3', 'p5', 'p7', 'p9']);
    expect(names(dropped[1]!)).toEqual(['p2', 'p6']);
    for (const [i, rows] of reached.entries()) expect(new Set(rows.map((r) => r.person)).size, `step ${i + 1}`).toBe(rows.length);
  });

  it('answers each person with their events of the steps in the range: count, distinct ids, sessions and windows', async () => {
    const [p1] = (await actors(funnel(), 3)).filter((row) => row.distinctIds.includes('p1'));
    expect(p1).toMatchObject({ eventCount: 3, distinctIds: ['p1'] });
    expect(p1!.events.map(({ uuid, ...rest }) => (expect(uuid).toMatch(/^[0-9a-f-]{36}$/), rest))).toEqual([
      { timestamp: '2026-03-10T05:00:00.000Z', sessionId: 's1', windowId: 'w1' },
      { timestamp: '2026-03-10T05:10:00.250Z', sessionId: 's1', windowId: '' },
      { timestamp: '2026-03-10T06:00:00.000Z', sessionId: '', windowId: '' },
    ]);
    // The merged person once, with both distinct ids; the $identify between is no step.
    const [merged] = (await actors(funnel(), 1)).filter((row) => row.distinctIds.includes('u8'));
    expect(merged).toMatchObject({ eventCount: 3 });
    expect([...merged!.distinctIds].sort()).toEqual(['a8', 'u8']);
  });

  it('leaves a step done after the conversion window out, and counts it within a wider one', async () => {
    expect(names(await actors(funnel(), 2))).not.toContain('p7');
    expect(names(await actors(funnel(), -2))).toContain('p7');
    const wide = funnel({ funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' } });
    expect(((await result(wide)) as FunnelStepResult[]).map((s) => s.count)).toEqual([9, 6, 3]);
    expect(names(await actors(wide, 2))).toEqual(['a8+u8', 'p1', 'p2', 'p4', 'p6', 'p7']);
  });

  it("lists a breakdown value's persons as the result labels them: '' for a missing or empty value", async () => {
    const query = byBrowser();
    const results = (await result(query)) as FunnelStepResult[][];
    const labels = results.map((steps) => steps[0]!.breakdown_value![0]!);
    // Missing and empty values are counted apart but both labelled ''.
    expect(results.map((steps) => [steps[0]!.breakdown_value, steps.map((s) => s.count)])).toEqual([
      [['Chrome'], [3, 2, 1]],
      [['Firefox'], [2, 1, 1]],
      [[''], [2, 1, 0]],
      [[''], [1, 0, 0]],
      [['Safari'], [1, 1, 1]],
    ]);
    for (const label of new Set(labels)) {
      const counts = results.filter((steps) => steps[0]!.breakdown_value![0] === label).map((steps) => steps.map((s) => s.count));
      for (const step of [1, 2, 3]) {
        const expected = counts.reduce((sum, c) => sum + c[step - 1]!, 0);
        expect((await actors(query, step, label)).length, `${label} step ${step}`).toBe(expected);
      }
    }
    expect(names(await actors(query, 1, ''))).toEqual(['p5', 'p6', 'p9']);
    expect(names(await actors(query, -2, 'Chrome'))).toEqual(['p7']);
    expect(names(await actors(query, -3, 'Chrome'))).toEqual(['p2']);
    expect(names(await actors(query, 3, 'Firefox'))).toEqual(['p4']);
    expect(await actors(query, 1, 'Opera')).toEqual([]);
  });

  it('answers a value past breakdown_limit (left out of the result, not gathered as "other") with its own persons', async () => {
    const query = byBrowser(2);
    const results = (await result(query)) as FunnelStepResult[][];
    expect(results.map((steps) => steps[0]!.breakdown_value)).toEqual([['Chrome'], ['Firefox']]);
    expect(names(await actors(query, 1, 'Safari'))).toEqual(['a8+u8']);
    expect(names(await actors(query, 2, ''))).toEqual(['p6']);
    // No value asked: every person, those of the values left out too.
    expect(await actors(query, 1)).toHaveLength(9);
  });

  it('pages by uuid ascending, limit + 1 rows from the offset', async () => {
    const all = await actors(funnel(), 1);
    expect(all.map((row) => row.person)).toEqual(all.map((row) => row.person).sort());
    const first = await actors(funnel(), 1, null, { limit: 2, offset: 0 });
    const second = await actors(funnel(), 1, null, { limit: 2, offset: 2 });
    expect(first.map((row) => row.person)).toEqual(all.slice(0, 3).map((row) => row.person));
    expect(second.map((row) => row.person)).toEqual(all.slice(2, 5).map((row) => row.person));
    expect(await actors(funnel(), 1, null, { limit: 2, offset: 8 })).toHaveLength(1);
    expect(await actors(funnel(), 1, null, { limit: 2, offset: 9 })).toEqual([]);
  });
});

describe("a funnel step's persons through the query API", () => {
  const source = {
    kind: 'FunnelsQuery',
    series: [
      { kind: 'EventsNode', event: '$pageview' },
      { kind: 'EventsNode', event: 'signed up' },
      { kind: 'EventsNode', event: 'purchased' },
    ],
    dateRange: { date_from: '2026-03-10', date_to: '2026-03-12' },
    funnelsFilter: { funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' },
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
  };
  const ask = (actorsSource: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    server.request(`/api/environments/${ctx().team}/query/`, {
      method: 'POST',
      body: {
        query: {
          kind: 'ActorsQuery',
          source: { kind: 'FunnelsActorsQuery', source, includeRecordings: true, ...actorsSource },
          select: ['actor', 'matched_recordings'],
          orderBy: [],
          ...extra,
        },
      },
    });

  it("answers PostHog's persons modal: reached and dropped off, of a breakdown value as the result labels it", async () => {
    const reached = await ask({ funnelStep: 2, funnelStepBreakdown: ['Chrome'] });
    expect(reached.status, reached.text).toBe(200);
    expect(reached.body.columns).toEqual(['actor', 'matched_recordings']);
    expect(reached.body.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0]).sort()).toEqual(['p1', 'p2']);
    const p1 = reached.body.results.find((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0] === 'p1');
    expect(p1[0]).toMatchObject({ id: expect.any(String), is_identified: false, properties: expect.any(Object) });
    const dropped = await ask({ funnelStep: -2, funnelStepBreakdown: ['Chrome'] });
    expect(dropped.body.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0])).toEqual(['p7']);
  });

  it('refuses a step the funnel has not, and columns a funnel step has not', async () => {
    for (const funnelStep of [0, -1, 4, -4, '2', undefined]) {
      const res = await ask({ funnelStep });
      expect(res.status, String(funnelStep)).toBe(400);
      expect(res.body.attr).toBe('query__source__funnelStep');
    }
    const counted = await ask({ funnelStep: 1 }, { select: ['actor', 'event_count'] });
    expect(counted.status).toBe(400);
    expect(counted.body.attr).toBe('query__select__1');
    const trendsView = await server.request(`/api/environments/${ctx().team}/query/`, {
      method: 'POST',
      body: {
        query: {
          kind: 'ActorsQuery',
          source: { kind: 'FunnelsActorsQuery', source: { ...source, funnelsFilter: { funnelVizType: 'trends' } }, funnelStep: 1 },
        },
      },
    });
    expect(trendsView.status).toBe(400);
    expect(trendsView.body.attr).toBe('query__source__source__funnelsFilter__funnelVizType');
  });
});
