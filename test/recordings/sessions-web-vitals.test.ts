import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let env: string;

async function capture(events: Array<{ event: string; at: number; properties: Record<string, unknown> }>) {
  const batch = events.map((e) => ({
    event: e.event,
    distinct_id: 'visitor',
    timestamp: new Date(e.at).toISOString(),
    properties: { $process_person_profile: false, ...e.properties },
  }));
  const res = await fetch(`${server.url}/batch/`, {
    method: 'POST',
    body: JSON.stringify({ api_key: server.bootstrap.team.apiToken, batch }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(200);
  await server.settle();
}

beforeAll(async () => {
  server = await startTestServer();
  env = `/api/environments/${server.bootstrap.team.id}`;
  const now = Date.now();
  const visit = (session: string, at: number, url: string, extra: Record<string, unknown> = {}) => ({
    event: '$pageview',
    at,
    properties: { $session_id: session, $current_url: url, $pathname: new URL(url).pathname, ...extra },
  });
  await capture([
    visit('s1', now - 60_000, 'https://shop.example/landing', { utm_source: 'news' }),
    visit('s1', now - 50_000, 'https://shop.example/cart'),
    visit('s2', now - 40_000, 'https://shop.example/landing'),
    visit('s3', now - 30_000, 'https://shop.example/pricing', { utm_source: 'newsletter' }),
    { event: 'no session', at: now, properties: { $current_url: 'https://shop.example/ghost' } },
    // Web vitals on /pricing: LCP 100..800 → p90 = 730; an old one and another path are ignored.
    ...[100, 200, 300, 400, 500, 600, 700, 800].map((lcp, i) => ({
      event: '$web_vitals',
      at: now - (i + 1) * 1000,
      properties: {
        $pathname: '/pricing',
        $current_url: 'https://shop.example/pricing',
        $web_vitals_LCP_value: lcp,
        $web_vitals_CLS_value: 0.1,
      },
    })),
    { event: '$web_vitals', at: now - 10 * 86_400_000, properties: { $pathname: '/pricing', $web_vitals_LCP_value: 99_999 } },
    { event: '$web_vitals', at: now - 1000, properties: { $pathname: '/other', $web_vitals_LCP_value: 5 } },
  ]);
});
afterAll(async () => {
  await server?.close();
});

describe('sessions', () => {
  it('lists the session property definitions with their types', async () => {
    const res = await server.request(`${env}/sessions/property_definitions/`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(37);
    expect(res.body.results[0]).toEqual({
      id: '$start_timestamp',
      name: '$start_timestamp',
      is_numerical: false,
      property_type: 'DateTime',
      is_seen_on_filtered_events: null,
      tags: [],
    });
    const duration = await server.request(`/api/projects/${server.bootstrap.team.id}/sessions/property_definitions/?search=duration`);
    expect(duration.body.results.map((d: any) => [d.name, d.property_type, d.is_numerical])).toEqual([
      ['$session_duration', 'Duration', true],
    ]);
  });

  it('returns the most frequent values of a session property', async () => {
    const res = await server.request(`${env}/sessions/values/?key=$entry_current_url`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      results: [{ name: 'https://shop.example/landing' }, { name: 'https://shop.example/pricing' }],
      refreshing: false,
    });
    const search = await server.request(`${env}/sessions/values/?key=$entry_utm_source&value=NEWS`);
    expect(search.body.results).toEqual([{ name: 'news' }, { name: 'newsletter' }]);
    expect((await server.request(`${env}/sessions/values/?key=$end_pathname`)).body.results.map((r: any) => r.name)).toEqual([
      '/cart',
      '/landing',
      '/pricing',
    ]);
    expect((await server.request(`${env}/sessions/values/?key=$channel_type&value=organic`)).body.results[0]).toEqual({
      name: 'Organic Search',
    });
    const missing = await server.request(`${env}/sessions/values/`);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Key not provided', attr: null });
  });

  it('takes personal keys with query:read', async () => {
    const key = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['query:read']);
    expect((await server.request(`${env}/sessions/values/?key=$entry_pathname`, { key })).status).toBe(200);
    const other = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['session_recording:read']);
    expect((await server.request(`${env}/sessions/values/?key=$entry_pathname`, { key: other })).body.detail).toBe(
      "API key missing required scope 'query:read'",
    );
  });
});

describe('web vitals', () => {
  it('gives the p90 of each metric on the path over the last 7 days', async () => {
    const res = await server.request(`${env}/web_vitals/?pathname=/pricing`);
    expect(res.status).toBe(200);
    const byMetric = Object.fromEntries(res.body.results.map((s: any) => [s.action.custom_name, s.data[s.data.length - 1]]));
    expect(byMetric.LCP).toBeCloseTo(730);
    expect(byMetric.CLS).toBeCloseTo(0.1);
    expect(byMetric.INP).toBe(0);
    expect(res.body.results.map((s: any) => s.action.math_property)).toEqual([
      '$web_vitals_INP_value',
      '$web_vitals_LCP_value',
      '$web_vitals_CLS_value',
      '$web_vitals_FCP_value',
    ]);
    expect(res.body).toMatchObject({ is_cached: false, timezone: 'UTC' });
  });

  it('answers 400 without pathname', async () => {
    const res = await server.request(`${env}/web_vitals/`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'This field is required.', attr: 'pathname' });
  });
});
