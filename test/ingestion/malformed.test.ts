import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

async function post(path: string, body: string | Buffer, contentType = 'application/json') {
  const res = await fetch(server.url + path, { method: 'POST', body, headers: { 'content-type': contentType } });
  return { status: res.status, body: await res.text() };
}

/** A gzip stream that inflates to `size` zero bytes, built from one small member repeated. */
function gzipBomb(totalMiB: number): Buffer {
  const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: totalMiB }, () => member));
}

describe('malformed input gets 4xx and the server keeps serving', () => {
  const valid = () => JSON.stringify({ api_key: server.token, event: 'ok', distinct_id: 'still-serving' });

  const cases: Array<[string, () => [string, string | Buffer, string?]]> = [
    ['truncated gzip', () => ['/batch/', gzipSync(valid()).subarray(0, 20), 'text/plain']],
    ['invalid UTF-8', () => ['/capture/', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])]],
    ['not JSON at all', () => ['/capture/', 'this is not json {']],
    ['batch is an object', () => ['/batch/', JSON.stringify({ api_key: server.token, batch: { a: 1 } })]],
    [
      'properties is a string',
      () => ['/capture/', JSON.stringify({ api_key: server.token, event: 'e', distinct_id: 'x', properties: 'nope' })],
    ],
    ['api_key is a number', () => ['/capture/', JSON.stringify({ api_key: 12, event: 'e', distinct_id: 'x' })]],
    ['uuid is malformed', () => ['/capture/', JSON.stringify({ api_key: server.token, event: 'e', distinct_id: 'x', uuid: 'not-a-uuid' })]],
    ['deep nesting', () => ['/capture/', '['.repeat(200_000) + ']'.repeat(200_000)]],
    ['empty body', () => ['/capture/', '']],
    ['gzip bomb', () => ['/batch/', gzipBomb(300), 'text/plain']],
    [
      'over the single-event limit',
      () => [
        '/capture/',
        JSON.stringify({ api_key: server.token, event: 'e', distinct_id: 'x', properties: { s: 'x'.repeat(3 * 1024 * 1024) } }),
      ],
    ],
  ];

  for (const [name, build] of cases) {
    it(name, async () => {
      const [path, body, type] = build();
      const res = await post(path, body, type);
      expect(res.status, `${name}: ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, name).toBeLessThan(500);
      const envelope = JSON.parse(res.body);
      expect(Object.keys(envelope).sort()).toEqual(['attr', 'code', 'detail', 'type']);
      expect(res.body).not.toMatch(/at .*\.ts:\d+/);
      expect((await post('/capture/', valid())).status).toBe(200);
    });
  }

  it('stores an event whose name is not a string under its JSON text, as PostHog sanitizes it', async () => {
    const res = await post('/capture/', JSON.stringify({ api_key: server.token, event: 42, distinct_id: 'typed-1' }));
    expect(res.status).toBe(200);
    await server.settle();
    const events = await server.request(`/api/environments/${server.bootstrap.team.id}/events/?distinct_id=typed-1`);
    expect(events.body.results.map((e: any) => e.event)).toEqual(['42']);
  });

  it('reads a 10 MB string on the batch endpoint, and drops its event (over 1 MB) with a warning', async () => {
    const batch = [
      { event: 'big', properties: { distinct_id: 'big-1', blob: 'y'.repeat(10 * 1024 * 1024) } },
      { event: 'big', properties: { distinct_id: 'big-1', blob: 'y'.repeat(900 * 1024) } },
    ];
    const res = await post('/batch/', JSON.stringify({ api_key: server.token, batch }));
    expect(res.status).toBe(200);
    await server.settle();
    const events = await server.request(`/api/environments/${server.bootstrap.team.id}/events/?event=big`);
    expect(events.body.results.map((e: any) => e.properties.blob.length)).toEqual([900 * 1024]);
    const warnings = await server.request(`/api/environments/${server.bootstrap.team.id}/ingestion_warnings/`);
    expect(warnings.body.results.map((w: any) => w.type)).toContain('message_size_too_large');
  });

  it('answers a gzip bomb with 413, stopped at the cap', async () => {
    // Inflated whole it would be 300 MB of zeros, not JSON: a 400, not the cap's 413.
    const res = await post('/batch/', gzipBomb(300), 'text/plain');
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'payload_too_large' });
  });
});
