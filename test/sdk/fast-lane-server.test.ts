import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { storedEvents } from '../helpers/stored-events.js';

/**
 * The fast lane inside a real Hoglet: capture and decide answered in front of fastify, the
 * management API behind it, on one port; what the lane must keep from fastify (limits, CORS,
 * the client address behind a proxy, finishing requests in flight while closing).
 */
let server: TestServer;
let token: string;
beforeAll(async () => {
  // One trusted proxy hop: the client is the last X-Forwarded-For entry.
  server = await startTestServer({ TRUST_PROXY: '1' });
  token = server.bootstrap.team.apiToken;
});
afterAll(async () => {
  await server?.close();
});

const env = () => `/api/environments/${server.bootstrap.team.id}`;
const event = (name: string, distinctId: string) => JSON.stringify({ api_key: token, event: name, distinct_id: distinctId });

describe('one port, two lanes', () => {
  it('takes events through the lane and serves them back through fastify', async () => {
    const res = await fetch(`${server.url}/capture/`, {
      method: 'POST',
      body: event('lane event', 'lane-1'),
      headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.9' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe('{"status":1}');
    await server.settle();
    const stored = await server.request(`${env()}/events/?distinct_id=lane-1`);
    expect(stored.status).toBe(200);
    expect(stored.body.results.map((e: any) => e.event)).toEqual(['lane event']);
    expect(stored.body.results[0].properties.$ip).toBe('203.0.113.9');
  });

  it('answers decide and flags through the lane, and the flag feed through fastify', async () => {
    const decide = await fetch(`${server.url}/decide/?v=3`, {
      method: 'POST',
      body: JSON.stringify({ api_key: token, distinct_id: 'lane-2' }),
    });
    expect(decide.status).toBe(200);
    expect((await decide.json()) as object).toHaveProperty('featureFlags');
    const flags = await fetch(`${server.url}/flags?v=2`, {
      method: 'POST',
      body: JSON.stringify({ api_key: token, distinct_id: 'lane-2' }),
    });
    expect(((await flags.json()) as { flags: object }).flags).toEqual({});
    const feed = await fetch(`${server.url}/flags/definitions`);
    expect(feed.status).toBe(401);
  });

  it('answers other methods on lane paths as fastify did: 404 envelope', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${server.url}/capture/`, { method, body: method === 'DELETE' ? undefined : '{}' });
      expect(res.status, method).toBe(404);
      expect(await res.json()).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
  });

  it('keeps each path its body limit: 413 over 2 MiB on capture, a larger batch accepted', async () => {
    const padding = 'x'.repeat(3 * 1024 * 1024);
    const capture = await fetch(`${server.url}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: token, event: 'big', distinct_id: 'lane-3', properties: { padding } }),
    });
    expect(capture.status).toBe(413);
    expect(await capture.json()).toEqual({
      type: 'invalid_request',
      code: 'payload_too_large',
      detail: 'Request body is too large.',
      attr: null,
    });
    const batch = await fetch(`${server.url}/batch/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: token, batch: [{ event: 'big', properties: { distinct_id: 'lane-3', padding } }] }),
    });
    expect(batch.status).toBe(200);
  });
});

describe('CORS on lane paths', () => {
  it('echoes the origin with credentials on answers, and none without an origin', async () => {
    for (const path of ['/e/', '/decide/?v=3']) {
      const res = await fetch(server.url + path, {
        method: 'POST',
        body: event('cors', 'lane-4'),
        headers: { origin: 'https://shop.example' },
      });
      expect(res.headers.get('access-control-allow-origin'), path).toBe('https://shop.example');
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('vary')).toBe('Origin');
    }
    const plain = await fetch(`${server.url}/e/`, { method: 'POST', body: event('cors', 'lane-4') });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const failed = await fetch(`${server.url}/e/`, { method: 'POST', body: 'nope', headers: { origin: 'https://shop.example' } });
    expect(failed.status).toBe(400);
    expect(failed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });

  it('answers the preflight for lane paths', async () => {
    for (const path of ['/capture/', '/i/v0/e/', '/flags/']) {
      const res = await fetch(server.url + path, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, x-trace',
        },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe('content-type, x-trace');
      expect(res.headers.get('access-control-max-age')).toBe('86400');
    }
  });
});

describe('closing', () => {
  it('finishes a capture in flight, commits it, then stops', async () => {
    const own = await startTestServer();
    const { port, hostname } = new URL(own.url);
    const body = JSON.stringify({ api_key: own.bootstrap.team.apiToken, event: 'in flight', distinct_id: 'lane-5' });
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let response = '';
    socket.on('data', (data) => (response += data.toString()));
    // In flight: the server has the request (its headers) before closing begins.
    const received = once(own.running.app.server, 'request');
    socket.write(
      `POST /capture/ HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.slice(0, 10));
    await received;
    const closed = own.running.app.close();
    // The rest of the body only once closing has begun (past preClose: the server stopped listening).
    await waitFor(() => !own.running.app.server.listening, { what: 'the server to stop listening' });
    socket.write(body.slice(10));
    await new Promise((resolve) => socket.once('close', resolve));
    await closed;
    expect(response).toMatch(/^HTTP\/1.1 200 OK\r\n/);
    expect(response).toMatch(/connection: close/i);
    expect(response.endsWith('{"status":1}')).toBe(true);
    const { db } = own.running.ctx.database;
    const queued = await db.selectFrom('ingestion_queue').select('distinct_id').execute();
    // Queued, processed and on its way to ClickHouse (the outbox), or there.
    const outbox = (await db.selectFrom('analytics_outbox').select('events').execute()).flatMap((r) =>
      r.events
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { distinct_id: string }),
    );
    const events = await storedEvents(own.running.ctx.analytics);
    expect([...queued, ...outbox, ...events].map((r) => r.distinct_id)).toContain('lane-5');
    await own.close();
  });

  it('ends the keep-alive connection of a management request in flight when closing began', async () => {
    // A grace far past the test's timeout: the close must not need it.
    const own = await startTestServer({ SHUTDOWN_GRACE_MS: '600000' });
    const { port, hostname } = new URL(own.url);
    const body = JSON.stringify({ key: 'created-while-closing' });
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let response = '';
    socket.on('data', (data) => (response += data.toString()));
    const received = once(own.running.app.server, 'request');
    socket.write(
      `POST /api/projects/${own.bootstrap.team.projectId}/feature_flags/ HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${own.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await received;
    const closed = own.close();
    await waitFor(() => !own.running.app.server.listening, { what: 'the server to stop listening' });
    socket.write(body.slice(5));
    // The server ends the connection after its answer; the shutdown then completes.
    await new Promise((resolve) => socket.once('close', resolve));
    await closed;
    expect(response).toMatch(/^HTTP\/1.1 201 Created\r\n/);
    expect(response).toMatch(/\r\nconnection: close\r\n/i);
    expect(response).toContain('"key":"created-while-closing"');
  }, 30_000);

  // That the cut waits for the grace period is closeWithGrace's own test (graceful-close.test.ts).
  it('cuts the connections still busy after the grace period, so that closing ends', async () => {
    const own = await startTestServer({ SHUTDOWN_GRACE_MS: '300' });
    const { port, hostname } = new URL(own.url);
    // A client that announced a body and stopped sending it: its request never finishes, so its
    // connection is never idle (as for a client that stops reading a large answer).
    const socket = net.connect(Number(port), hostname);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    const received = once(own.running.app.server, 'request');
    socket.write(`POST /api/projects/ HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a`);
    await received;
    // Without the cut this waited for the client for good: past the test's timeout.
    await own.close();
    await ended;
    expect(socket.destroyed).toBe(true);
  }, 30_000);
});
