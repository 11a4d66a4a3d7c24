import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

/**
 * Every query runs in the environment of its URL: another environment's events never show,
 * whatever the body says or smuggles into names, keys and values.
 */
const server = useTestServer();
let other: { id: number; token: string };
const envA = () => `/api/environments/${server.bootstrap.team.id}`;

const events = (who: string, plan: string) =>
  ['secret', 'after'].flatMap((event, i) =>
    [1, 2, 3].map((n) => ({
      event,
      distinct_id: `${who}-${n}`,
      timestamp: new Date(Date.now() - 3_600_000 + i * 60_000).toISOString(),
      properties: { plan, $browser: 'Chrome', $session_id: `${who}-s${n}`, $current_url: `https://${who}.example/` },
    })),
  );

beforeAll(async () => {
  const created = await server.request(`/api/projects/${server.bootstrap.team.id}/environments/`, {
    method: 'POST',
    body: { name: 'Other' },
  });
  expect(created.status, created.text).toBe(201);
  other = { id: created.body.id, token: created.body.api_token };
  await server.ingest(events('a', 'a').slice(0, 4));
  const batch = await server.request('/batch/', { method: 'POST', key: null, body: { api_key: other.token, batch: events('b', 'b') } });
  expect(batch.status).toBe(200);
  await server.settle();
});

const funnel = (steps: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
  query: { kind: 'FunnelsQuery', series: steps.map((s) => ({ kind: 'EventsNode', ...s })), dateRange: { date_from: '-1d' }, ...extra },
});

const trends = (series: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => ({
  query: {
    kind: 'TrendsQuery',
    series: series.map((s) => ({ kind: 'EventsNode', ...s })),
    dateRange: { date_from: '-1d' },
    interval: 'day',
    ...extra,
  },
});
const total = (body: any) => body.results.reduce((n: number, r: any) => n + r.count, 0);

describe('queries are confined to their environment', () => {
  it('counts trends of the environment of the URL only', async () => {
    const res = await server.request(`${envA()}/query/`, {
      method: 'POST',
      body: { ...trends([{ event: 'secret' }, { event: null, math: 'dau' }]), team_id: other.id },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: any) => r.count)).toEqual([3, 3]);
    const theirs = await server.request(`/api/environments/${other.id}/query/`, { method: 'POST', body: trends([{ event: 'secret' }]) });
    expect(total(theirs.body)).toBe(3);
  });

  it('counts only the environment of the URL, whatever team the body names', async () => {
    const res = await server.request(`${envA()}/query/`, {
      method: 'POST',
      body: { ...funnel([{ event: 'secret' }, { event: 'after' }]), team_id: other.id, query_team_id: other.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((s: any) => s.count)).toEqual([3, 1]);
    const theirs = await server.request(`/api/environments/${other.id}/query/`, {
      method: 'POST',
      body: funnel([{ event: 'secret' }, { event: 'after' }]),
    });
    expect(theirs.body.results.map((s: any) => s.count)).toEqual([3, 3]);
  });

  it('takes names, keys and values as data, never as SQL', async () => {
    const hostile = ["secret' OR 1=1 OR '", 'secret") OR (1=1', "x' UNION ALL SELECT * FROM events --", '{p0:String}', '`team_id`'];
    for (const text of hostile) {
      const asEvent = await server.request(`${envA()}/query/`, { method: 'POST', body: funnel([{ event: text }, { event: 'after' }]) });
      expect(asEvent.status, text).toBe(200);
      expect(asEvent.body.results.map((s: any) => s.count)).toEqual([0, 0]);
      const asKey = await server.request(`${envA()}/query/`, {
        method: 'POST',
        body: funnel([{ event: 'secret', properties: [{ key: text, value: 'b', operator: 'exact', type: 'event' }] }, { event: 'after' }]),
      });
      expect(asKey.status, text).toBe(200);
      expect(asKey.body.results[0].count).toBe(0);
      const asValue = await server.request(`${envA()}/query/`, {
        method: 'POST',
        body: funnel([
          { event: 'secret', properties: [{ key: 'plan', value: text, operator: 'icontains', type: 'event' }] },
          { event: 'after' },
        ]),
      });
      expect(asValue.status, text).toBe(200);
      expect(asValue.body.results[0].count).toBe(0);
      const trendsOf = await server.request(`${envA()}/query/`, {
        method: 'POST',
        body: trends([{ event: text }, { event: 'secret', properties: [{ key: text, value: text, operator: 'regex', type: 'event' }] }], {
          breakdownFilter: { breakdown: text, breakdown_type: 'event' },
        }),
      });
      expect(trendsOf.status, text).toBe(200);
      expect(total(trendsOf.body)).toBe(0);
      const asBreakdown = await server.request(`${envA()}/query/`, {
        method: 'POST',
        body: funnel([{ event: 'secret' }, { event: 'after' }], { breakdownFilter: { breakdown: text, breakdown_type: 'event' } }),
      });
      expect(asBreakdown.status, text).toBe(200);
      expect(
        asBreakdown.body.results
          .flat()
          .filter((s: any) => s.order === 0)
          .reduce((n: number, s: any) => n + s.count, 0),
      ).toBe(3);
    }
  });

  it("never lists another environment's events or sessions", async () => {
    const list = await server.request(`${envA()}/events/?limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.results.length).toBeGreaterThan(0);
    expect(list.body.results.every((e: any) => e.distinct_id.startsWith('a-'))).toBe(true);
    const sessions = await server.request(`${envA()}/sessions/values/?key=$entry_current_url`);
    expect(sessions.status).toBe(200);
    expect(sessions.body.results.map((r: any) => r.name)).toEqual(['https://a.example/']);
  });
});
