import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { loadWebRecording, WEB_RECORDING_EXPECTED } from './fixtures/load.js';
import { click, consoleLine, fullSnapshot, meta, newSessionId, postSnapshots, snapshotEvent } from './helpers.js';

let server: TestServer;
let token: string;
let env: string;

beforeAll(async () => {
  server = await startTestServer();
  token = server.bootstrap.team.apiToken;
  env = `/api/environments/${server.bootstrap.team.id}`;
});
afterAll(async () => {
  await server?.close();
});

/** Every JSON line of a recording's snapshots, through the two-step protocol. */
async function snapshotLines(sessionId: string): Promise<[string, any][]> {
  const sources = await server.request(`${env}/session_recordings/${sessionId}/snapshots`);
  expect(sources.status).toBe(200);
  const lines: [string, any][] = [];
  const keys = sources.body.sources.map((s: any) => Number(s.blob_key));
  for (let start = 0; start < keys.length; start += 20) {
    const end = Math.min(start + 19, keys.length - 1);
    const res = await server.request(
      `${env}/session_recordings/${sessionId}/snapshots?source=blob_v2&start_blob_key=${start}&end_blob_key=${end}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/jsonl');
    for (const line of res.text.split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  }
  return lines;
}

describe('POST /s/', () => {
  it('stores the posthog-js fixture (gzip sniffed) with its metadata, in order', async () => {
    const fixture = loadWebRecording();
    for (const body of fixture.requests) {
      const ours = body.map((ev: any) => ({ ...ev, properties: { ...ev.properties, token } }));
      const res = await postSnapshots(server, gzipSync(JSON.stringify(ours)));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 1 });
    }
    const res = await server.request(`${env}/session_recordings/${fixture.sessionId}/`);
    expect(res.status).toBe(200);
    const e = WEB_RECORDING_EXPECTED;
    expect(res.body).toMatchObject({
      id: fixture.sessionId,
      distinct_id: expect.any(String),
      viewed: false,
      recording_duration: e.durationSeconds,
      // PostHog's model keeps whole seconds: 21.701 and 48.299 are 21 and 48.
      active_seconds: Math.trunc(e.activeMs / 1000),
      inactive_seconds: 48,
      start_time: '2025-11-21T05:00:00.000Z',
      end_time: '2025-11-21T05:01:10.000Z',
      click_count: e.clickCount,
      keypress_count: e.keypressCount,
      mouse_activity_count: e.mouseActivityCount,
      console_log_count: e.consoleLogCount,
      console_warn_count: e.consoleWarnCount,
      console_error_count: e.consoleErrorCount,
      start_url: e.firstUrl,
      storage: 'object_storage',
      snapshot_source: 'web',
      ongoing: true,
      activity_score: 35.29,
    });
    expect(res.body.person).toMatchObject({ id: null, distinct_ids: [res.body.distinct_id], properties: {} });

    const lines = await snapshotLines(fixture.sessionId);
    const sent = fixture.requests.flatMap((body) => body.flatMap((ev: any) => ev.properties.$snapshot_data));
    expect(lines.map(([, ev]) => ev)).toEqual(sent);
    expect(lines.every(([w]) => w === fixture.windowId)).toBe(true);
  });

  it('takes plain JSON and base64 form bodies, one event or an array', async () => {
    const s1 = newSessionId();
    const t = Date.now() - 10_000;
    const one = snapshotEvent(token, s1, [meta(t, 'https://a.example/x'), fullSnapshot(t + 1)]);
    expect((await postSnapshots(server, JSON.stringify(one), 'application/json')).status).toBe(200);
    const b64 = Buffer.from(JSON.stringify([snapshotEvent(token, s1, [click(t + 2000)])])).toString('base64');
    const form = await postSnapshots(server, `data=${encodeURIComponent(b64)}`, 'application/x-www-form-urlencoded', '?compression=base64');
    expect(form.status).toBe(200);
    const rec = (await server.request(`${env}/session_recordings/${s1}/`)).body;
    expect(rec.click_count).toBe(1);
    expect(rec.recording_duration).toBe(2);
    expect((await snapshotLines(s1)).map(([, e]) => e.timestamp)).toEqual([t, t + 1, t + 2000]);
  });

  it('keeps windows apart and files each event under its own session', async () => {
    const [sa, sb] = [newSessionId(), newSessionId()];
    const t = Date.now() - 5000;
    const body = [
      snapshotEvent(token, sa, [consoleLine(t, 'log')], { windowId: 'w1' }),
      snapshotEvent(token, sa, [consoleLine(t + 1, 'error')], { windowId: 'w2' }),
      snapshotEvent(token, sb, [consoleLine(t + 2, 'warn')], { distinctId: 'other' }),
    ];
    expect((await postSnapshots(server, JSON.stringify(body))).status).toBe(200);
    const a = (await server.request(`${env}/session_recordings/${sa}/`)).body;
    expect([a.console_log_count, a.console_error_count, a.console_warn_count]).toEqual([1, 1, 0]);
    expect((await snapshotLines(sa)).map(([w]) => w).sort()).toEqual(['w1', 'w2']);
    const b = (await server.request(`${env}/session_recordings/${sb}/`)).body;
    expect(b.distinct_id).toBe('other');
    expect(b.console_warn_count).toBe(1);
  });

  it('files a recording sent with an upper-case UUID session id under the id its events are stored with', async () => {
    const upper = newSessionId().toUpperCase();
    const t = Date.parse('2025-11-21T06:00:00Z');
    const res = await postSnapshots(
      server,
      JSON.stringify([snapshotEvent(token, upper, [meta(t, 'https://a.example/'), fullSnapshot(t + 1)])]),
    );
    expect(res.status).toBe(200);
    const capture = await server.request('/capture/', {
      method: 'POST',
      key: null,
      body: {
        api_key: token,
        event: '$pageview',
        distinct_id: 'user-1',
        timestamp: '2025-11-21T06:00:01Z',
        properties: { $session_id: upper },
      },
    });
    expect(capture.status).toBe(200);
    await server.settle();
    const events = await server.request(`${env}/events/?event=%24pageview&distinct_id=user-1&after=2025-11-21T05:59:00Z`);
    const stored = events.body.results[0].properties.$session_id;
    expect(stored).toBe(upper.toLowerCase());
    expect((await server.request(`${env}/session_recordings/${stored}/`)).status).toBe(200);
  });

  it('answers 400 without a valid $session_id or $snapshot_data', async () => {
    const t = Date.now();
    const cases: Array<[unknown, string]> = [
      [{ event: '$snapshot', properties: { token, distinct_id: 'u', $snapshot_data: [click(t)] } }, '$session_id'],
      [snapshotEvent(token, 'bad id!', [click(t)]), '$session_id'],
      [snapshotEvent(token, 'x'.repeat(71), [click(t)]), '$session_id'],
      [{ event: '$snapshot', properties: { token, distinct_id: 'u', $session_id: newSessionId() } }, '$snapshot_data'],
    ];
    for (const [body, attr] of cases) {
      const res = await postSnapshots(server, JSON.stringify([body]), 'application/json');
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', code: 'invalid_payload', attr });
    }
    expect((await postSnapshots(server, 'not json', 'application/json')).status).toBe(400);
    expect((await postSnapshots(server, '', 'application/json')).status).toBe(400);
  });

  it('leaves out snapshot events whose timestamps no date can hold, and stores the rest', async () => {
    const sessionId = newSessionId();
    const t = Date.parse('2025-11-21T06:00:00Z');
    const beyond = [8.64e15 + 1, 1e300, 2 ** 63].map((timestamp) => ({ ...click(t), timestamp }));
    const res = await postSnapshots(
      server,
      JSON.stringify([snapshotEvent(token, sessionId, [meta(t, 'https://a.example/'), ...beyond, click(t + 3000)])]),
    );
    expect(res.status).toBe(200);
    const rec = (await server.request(`${env}/session_recordings/${sessionId}/`)).body;
    expect([rec.start_time, rec.end_time, rec.click_count]).toEqual(['2025-11-21T06:00:00.000Z', '2025-11-21T06:00:03.000Z', 1]);
    expect((await snapshotLines(sessionId)).map(([, e]) => e.timestamp)).toEqual([t, t + 3000]);
  });

  it('answers 401 to a missing or unknown token', async () => {
    const body = snapshotEvent('phc_unknown', newSessionId(), [click(Date.now())]);
    const unknown = await postSnapshots(server, JSON.stringify(body), 'application/json');
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('invalid_api_key');
    const { token: _t, ...props } = body.properties;
    const missing = await postSnapshots(server, JSON.stringify({ ...body, properties: props }), 'application/json');
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('missing_api_key');
  });

  it('answers CORS preflights for browsers', async () => {
    const res = await fetch(`${server.url}/s/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});
