/**
 * The insights API as the app uses it: funnel insights saved (checked as the query endpoint reads
 * them), and one insight found by its short id (`?short_id=`, how `insights/:shortId` opens).
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();
const url = () => `/api/environments/${server.bootstrap.team.id}/insights/`;

const funnel = (series: unknown[]) => ({
  kind: 'InsightVizNode',
  source: { kind: 'FunnelsQuery', series, funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' } },
});
const step = (event: string) => ({ kind: 'EventsNode', event, name: event });

describe('insights API', () => {
  it('saves a funnel insight and refuses a funnel it could not run', async () => {
    const query = funnel([step('$pageview'), step('signed_up')]);
    const created = await server.request(url(), { method: 'POST', body: { name: 'Signups', query } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.query).toEqual(query);

    const broken = await server.request(url(), { method: 'POST', body: { query: funnel([step('$pageview')]) } });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ type: 'validation_error', attr: 'query__source__series' });
  });

  it('finds one insight by its short id', async () => {
    const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [step('$pageview')] } };
    const a = await server.request(url(), { method: 'POST', body: { name: 'A', query: trends } });
    const b = await server.request(url(), { method: 'POST', body: { name: 'B', query: trends } });
    expect([a.status, b.status]).toEqual([201, 201]);
    const found = await server.request(`${url()}?short_id=${b.body.short_id}`);
    expect(found.status).toBe(200);
    expect(found.body.results.map((i: any) => i.id)).toEqual([b.body.id]);
    expect(found.body.count).toBe(1);
    const none = await server.request(`${url()}?short_id=nothing1`);
    expect(none.body.results).toEqual([]);
  });

  it('lists insights without their results with basic=true, as PostHog does', async () => {
    const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [step('$pageview')] } };
    const made = await server.request(url(), { method: 'POST', body: { name: 'Basic one', query: trends } });
    expect(made.status).toBe(201);
    const full = await server.request(`${url()}?short_id=${made.body.short_id}`);
    expect(full.body.results[0]).toHaveProperty('result');
    const basic = await server.request(`${url()}?short_id=${made.body.short_id}&basic=true`);
    expect(basic.status).toBe(200);
    const [insight] = basic.body.results;
    // InsightBasicSerializer's fields, and nothing computed.
    expect(Object.keys(insight).sort()).toEqual(
      [
        'id',
        'short_id',
        'name',
        'derived_name',
        'filters',
        'query',
        'dashboards',
        'dashboard_tiles',
        'description',
        'last_refresh',
        'refreshing',
        'saved',
        'tags',
        'updated_at',
        'created_by',
        'created_at',
        'last_modified_at',
        'favorited',
      ].sort(),
    );
    expect(insight).toMatchObject({ id: made.body.id, name: 'Basic one', query: trends, last_refresh: null, saved: true });
    expect(insight.created_by.email).toBe(server.bootstrap.user.email);
    // One insight too, with any of str_to_bool's spellings.
    const one = await server.request(`${url()}${made.body.id}/?basic=Yes`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(insight);
  });

  it('computes no result for a basic listing, and one per insight otherwise', async () => {
    const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [step('$pageview')] } };
    const made = await server.request(url(), { method: 'POST', body: { name: 'Counted', query: trends } });
    expect(made.status).toBe(201);
    // The statements that read events, seen on their way to the real engine.
    const engine = server.running.ctx.analytics;
    const events = engine.table('events');
    const query = engine.query;
    const read: string[] = [];
    engine.query = ((sql: string, params?: Record<string, unknown>) => {
      if (sql.includes(events)) read.push(sql);
      return query.call(engine, sql, params);
    }) as typeof engine.query;
    try {
      const basic = await server.request(`${url()}?basic=true&limit=100`);
      expect(basic.status).toBe(200);
      expect(basic.body.results.length).toBeGreaterThan(1);
      expect((await server.request(`${url()}${made.body.id}/?basic=1`)).status).toBe(200);
      expect(read).toEqual([]);
      const full = await server.request(`${url()}?short_id=${made.body.short_id}`);
      expect(full.body.results[0].result).toHaveLength(1);
      expect(read.length).toBeGreaterThan(0);
    } finally {
      engine.query = query;
    }
  });
  it('searches names for the text as typed, % and _ included', async () => {
    const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [step('$pageview')] } };
    for (const name of ['Growth 100% done', 'qx sign_up rate', 'Qx signups weekly']) {
      expect((await server.request(url(), { method: 'POST', body: { name, query: trends } })).status).toBe(201);
    }
    const names = async (search: string) => {
      const found = await server.request(`${url()}?basic=true&limit=100&search=${encodeURIComponent(search)}`);
      expect(found.status).toBe(200);
      return found.body.results.map((i: any) => i.name).sort();
    };
    expect(await names('%')).toEqual(['Growth 100% done']);
    expect(await names('0% d')).toEqual(['Growth 100% done']);
    expect(await names('n_u')).toEqual(['qx sign_up rate']);
    expect(await names('QX SIGN')).toEqual(['Qx signups weekly', 'qx sign_up rate'].sort());
    expect(await names('%%')).toEqual([]);
  });

  it('filters the list as PostHog does: favorited, saved, the caller’s, a creator’s, and search in descriptions and tags', async () => {
    const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [step('$pageview')] } };
    const make = async (body: Record<string, unknown>) => {
      const res = await server.request(url(), { method: 'POST', body: { query: trends, ...body } });
      expect(res.status, res.text).toBe(201);
      return res.body as { id: number; saved: boolean };
    };
    const starred = await make({ name: 'zz starred', favorited: true });
    const described = await make({ name: 'zz described', description: 'Hello World of zz' });
    const tagged = await make({ name: 'zz tagged', tags: ['Hello-tag'] });
    expect(starred.saved).toBe(true);
    const ids = async (params: string) => {
      const res = await server.request(`${url()}?basic=true&limit=100&${params}`);
      expect(res.status, res.text).toBe(200);
      return (res.body.results as Array<{ id: number }>).map((i) => i.id).sort((a, b) => a - b);
    };
    const all = await ids('search=zz');
    expect(all).toEqual([starred.id, described.id, tagged.id]);
    expect(await ids('search=zz&favorited=true')).toEqual([starred.id]);
    expect(await ids('search=hello')).toEqual([described.id, tagged.id]);
    expect(await ids('search=HELLO-T')).toEqual([tagged.id]);
    expect(await ids('search=zz&saved=true')).toEqual(all);
    expect(await ids('search=zz&saved=false')).toEqual([]);
    expect(await ids('search=zz&user=true')).toEqual(all);
    expect(await ids(`search=zz&created_by=${server.bootstrap.user.id}`)).toEqual(all);
    expect(await ids(`search=zz&created_by=${server.bootstrap.user.id + 1000}`)).toEqual([]);
    for (const id of ['me', '999999999999999999999']) {
      const bad = await server.request(`${url()}?created_by=${id}`);
      expect(bad.status, id).toBe(400);
      expect(bad.body).toMatchObject({ attr: 'created_by' });
    }
  });
});
