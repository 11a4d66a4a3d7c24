import { gzipSync } from 'node:zlib';
import LZString from 'lz-string';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

/** The request shapes posthog-js 1.434.18 sends (docs/posthog-parity.md), built byte for byte. */
const server = useTestServer();

const env = () => `/api/environments/${server.bootstrap.team.id}`;

function webEvent(event: string, distinctId: string, extra: Record<string, unknown> = {}) {
  return {
    uuid: crypto.randomUUID(),
    event,
    properties: { token: server.token, distinct_id: distinctId, $lib: 'web', $lib_version: '1.434.18', $session_id: 's-1', ...extra },
    timestamp: new Date().toISOString(),
  };
}

async function post(path: string, body: string | Buffer, contentType: string) {
  return fetch(server.url + path, { method: 'POST', body, headers: { 'content-type': contentType, origin: 'https://shop.example' } });
}

async function eventsOf(distinctId: string) {
  await server.settle();
  return (await server.request(`${env()}/events/?distinct_id=${encodeURIComponent(distinctId)}`)).body.results as any[];
}

describe('posthog-js request shapes', () => {
  it('newest: gzip envelope with no hint, as text/plain', async () => {
    const body = gzipSync(
      JSON.stringify({
        api_key: server.token,
        batch: [webEvent('$pageview', 'js-1'), webEvent('clicked', 'js-1')],
        sent_at: new Date().toISOString(),
      }),
    );
    const res = await post('/e/', body, 'text/plain');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 1 });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect((await eventsOf('js-1')).map((e) => e.event).sort()).toEqual(['$pageview', 'clicked']);
  });

  it('classic: gzip-js array with offsets instead of timestamps', async () => {
    const now = Date.now();
    const events = [1000, 500].map((offset, i) => {
      const { timestamp: _t, ...e } = webEvent(`offset-${i}`, 'js-2');
      return { ...e, offset };
    });
    const res = await post(`/e/?ip=1&_=${now}&ver=1.249.0&compression=gzip-js`, gzipSync(JSON.stringify(events)), 'text/plain');
    expect(res.status).toBe(200);
    const stored = await eventsOf('js-2');
    const byName = Object.fromEntries(stored.map((e) => [e.event, Date.parse(e.timestamp)]));
    // offset counts back from receipt: the 1000 ms one is about half a second older.
    expect(byName['offset-1']! - byName['offset-0']!).toBeGreaterThanOrEqual(400);
    expect(byName['offset-1']! - byName['offset-0']!).toBeLessThanOrEqual(600);
    expect(Math.abs(byName['offset-1']! - now)).toBeLessThan(60_000);
  });

  it('base64 form body, and lz64', async () => {
    const data = Buffer.from(JSON.stringify([webEvent('b64', 'js-3')])).toString('base64');
    const res = await post('/e/?compression=base64', `data=${encodeURIComponent(data)}`, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(200);
    const lz = LZString.compressToBase64(JSON.stringify([webEvent('lz', 'js-3')]));
    const res2 = await post('/e/?compression=lz64', `data=${encodeURIComponent(lz)}`, 'application/x-www-form-urlencoded');
    expect(res2.status).toBe(200);
    expect((await eventsOf('js-3')).map((e) => e.event).sort()).toEqual(['b64', 'lz']);
  });

  it('sendBeacon with beacon=1 gets 204 and is stored', async () => {
    const data = Buffer.from(JSON.stringify([webEvent('$pageleave', 'js-4')])).toString('base64');
    const res = await post('/e/?beacon=1&compression=base64', `data=${encodeURIComponent(data)}`, 'application/x-www-form-urlencoded');
    expect(res.status).toBe(204);
    expect((await eventsOf('js-4')).map((e) => e.event)).toEqual(['$pageleave']);
  });

  it('GET with ?data= and the legacy paths', async () => {
    const data = Buffer.from(JSON.stringify(webEvent('via-get', 'js-5'))).toString('base64');
    expect((await fetch(`${server.url}/e?data=${encodeURIComponent(data)}`)).status).toBe(200);
    for (const path of ['/capture/', '/track', '/i/v0/e/', '/capture']) {
      const res = await post(
        path,
        JSON.stringify({ api_key: server.token, event: `path ${path}`, distinct_id: 'js-5' }),
        'application/json',
      );
      expect(res.status, path).toBe(200);
    }
    const engage = await post(
      '/engage/',
      JSON.stringify({ token: server.token, $distinct_id: 'js-5', $set: { plan: 'team' } }),
      'application/json',
    );
    expect(engage.status).toBe(200);
    const stored = await eventsOf('js-5');
    expect(stored.map((e) => e.event)).toContain('via-get');
    expect(stored.map((e) => e.event)).toContain('path /i/v0/e/');
    const person = (await server.request(`${env()}/persons/?distinct_id=js-5`)).body.results[0];
    expect(person.properties.plan).toBe('team');
  });

  it('answers CORS preflight', async () => {
    const res = await fetch(`${server.url}/e/`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });

  it('drops only the bad events of a batch, with ingestion warnings', async () => {
    const res = await post(
      '/batch/',
      JSON.stringify({
        api_key: server.token,
        batch: [
          { event: 'kept', properties: { distinct_id: 'js-6' } },
          { event: 'no id' },
          { properties: { distinct_id: 'js-6' } },
          { event: 'empty', distinct_id: '' },
        ],
      }),
      'application/json',
    );
    expect(res.status).toBe(200);
    expect((await eventsOf('js-6')).map((e) => e.event)).toEqual(['kept']);
    const warnings = await server.request(`${env()}/ingestion_warnings/`);
    const types = warnings.body.results.map((w: any) => w.type);
    expect(types).toEqual(expect.arrayContaining(['missing_distinct_id', 'missing_event_name', 'empty_distinct_id']));
  });

  it('deduplicates a resent event with the same uuid', async () => {
    const event = webEvent('once', 'js-7');
    for (let i = 0; i < 3; i++) await post('/e/', JSON.stringify([event]), 'application/json');
    expect(await eventsOf('js-7')).toHaveLength(1);
  });

  it('processes $process_person_profile: false events without a person', async () => {
    await post(
      '/e/',
      JSON.stringify([webEvent('anon view', 'js-8', { $process_person_profile: false, $set: { x: 1 } })]),
      'application/json',
    );
    const stored = await eventsOf('js-8');
    expect(stored).toHaveLength(1);
    expect(stored[0].person).toBeNull();
    expect(stored[0].properties.$set).toBeUndefined();
    expect((await server.request(`${env()}/persons/?distinct_id=js-8`)).body.count).toBe(0);
  });

  it('rejects unknown and malformed tokens with 401', async () => {
    const res = await post(
      '/e/',
      JSON.stringify([{ ...webEvent('x', 'y'), properties: { token: 'phc_unknown', distinct_id: 'y' } }]),
      'application/json',
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      type: 'authentication_error',
      code: 'invalid_api_key',
      detail: 'Project API key invalid. You can find your project API key in your project settings.',
      attr: null,
    });
  });
});
