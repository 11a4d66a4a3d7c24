import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { clientAddressResolver, trustProxyOption } from '../../src/http/client-address.js';
import { notFound } from '../../src/posthog/errors.js';
import { FastLane } from '../../src/sdk/router.js';
import type { PublicHandler } from '../../src/sdk/public-endpoint.js';
import { parseQuery, readRequestTarget } from '../../src/sdk/request-target.js';

/**
 * The fast lane on its own, in front of a small fastify app through fastify's serverFactory, over
 * real HTTP: what reaches which side, the answers the lane writes itself, and the client address
 * under every TRUST_PROXY form, checked against fastify's own `request.ip`.
 */
const opened: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

async function laneInFront(
  options: { handle?: PublicHandler; trustProxy?: boolean | number | string; log?: pino.Logger; gatherAnswers?: boolean } = {},
) {
  const trustProxy = options.trustProxy ?? false;
  const lane = new FastLane({
    routes: [
      {
        path: '/lane',
        maxBodyBytes: 64,
        handle:
          options.handle ??
          (async (request) => ({ status: 200, body: { ip: request.ip, query: request.query, body: request.body.toString() } })),
        gatherAnswers: options.gatherAnswers ?? false,
      },
    ],
    clientAddress: clientAddressResolver(trustProxy),
    log: options.log ?? pino({ level: 'silent' }),
  });
  const app = Fastify({ serverFactory: lane.serverFactory, trustProxy: trustProxyOption(trustProxy) });
  app.addHook('preClose', (done) => {
    lane.markClosing();
    done();
  });
  app.get('/fastify-ip', async (request) => ({ ip: request.ip }));
  app.post('/lane-twin', async () => ({ from: 'fastify' }));
  opened.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as net.AddressInfo;
  return { app, lane, url: `http://127.0.0.1:${port}`, port };
}

describe('request targets', () => {
  it('reads paths and queries as fastify does', () => {
    expect(readRequestTarget('/capture/?a=1')).toEqual({ path: '/capture', query: 'a=1' });
    expect(readRequestTarget('/capture')).toEqual({ path: '/capture', query: '' });
    expect(readRequestTarget('/capture//')?.path).toBe('/capture/');
    expect(readRequestTarget('/%63apture/#x')?.path).toBe('/capture');
    expect(readRequestTarget('/i%2Fv0/e')?.path).toBe('/i%2Fv0/e');
    expect(readRequestTarget('http://example.com/e/?x=1')).toEqual({ path: '/e', query: 'x=1' });
    expect(readRequestTarget('/')?.path).toBe('/');
    expect(readRequestTarget('/%E0%A4%A')).toBeUndefined();
    expect(readRequestTarget('*')).toBeUndefined();
  });

  it('parses repeated keys, plus signs, escapes and bare keys', () => {
    expect({ ...parseQuery('a=1&a=2&b=x+y&c=%7B%22k%22%3A1%7D&flag&bad=%E0%A4%A&&=v') }).toEqual({
      a: ['1', '2'],
      b: 'x y',
      c: '{"k":1}',
      flag: '',
      bad: '%E0%A4%A',
      '': 'v',
    });
  });
});

describe('the fast lane in front of fastify', () => {
  it('answers its paths, with or without the trailing slash, and leaves the rest to fastify', async () => {
    const { url } = await laneInFront();
    const viaLane = await fetch(`${url}/lane/?x=1&x=2`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(viaLane.status).toBe(200);
    expect(viaLane.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await viaLane.json()).toEqual({ ip: '127.0.0.1', query: { x: ['1', '2'] }, body: 'hello' });
    expect((await fetch(`${url}/lane`, { method: 'POST', body: 'x' })).status).toBe(200);
    expect(await (await fetch(`${url}/lane-twin`, { method: 'POST' })).json()).toEqual({ from: 'fastify' });
    // Methods other than GET, POST and HEAD are fastify's, which has no such route.
    expect((await fetch(`${url}/lane`, { method: 'PUT', body: 'x' })).status).toBe(404);
  });

  for (const gatherAnswers of [false, true]) {
    it(`answers HEAD as GET without a body${gatherAnswers ? ', also when answers are gathered' : ''}`, async () => {
      const { port } = await laneInFront({ gatherAnswers });
      const head = await rawRequest(port, 'HEAD /lane?a=b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1.1 200 OK\r\n/);
      expect(head).toMatch(/content-length: \d+\r\n/i);
      expect(head.endsWith('\r\n\r\n')).toBe(true);
    });
  }

  it('refuses a body over the limit with 413 and closes the connection, declared or chunked', async () => {
    const { port } = await laneInFront();
    const big = 'x'.repeat(65);
    const declared = await rawRequest(port, `POST /lane HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n${big}`);
    expect(declared).toMatch(/^HTTP\/1.1 413 /);
    expect(declared).toMatch(/connection: close/i);
    expect(bodyOf(declared)).toEqual({
      type: 'invalid_request',
      code: 'payload_too_large',
      detail: 'Request body is too large.',
      attr: null,
    });
    const chunked = await rawRequest(port, `POST /lane HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n${big}\r\n0\r\n\r\n`);
    expect(chunked).toMatch(/^HTTP\/1.1 413 /);
  });

  it('refuses a malformed content type with 415, as fastify did', async () => {
    const { url } = await laneInFront();
    const res = await fetch(`${url}/lane`, { method: 'POST', body: '{}', headers: { 'content-type': 'garbage' } });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      type: 'invalid_request',
      code: 'unsupported_media_type',
      detail: 'Unsupported media type "garbage" in request.',
      attr: null,
    });
  });

  it('does not hang on an upload the client abandons, and keeps serving', async () => {
    let calls = 0;
    const { app, port, url } = await laneInFront({ handle: async () => ({ status: 200, body: { calls: ++calls } }) });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const received = once(app.server, 'request') as Promise<[IncomingMessage]>;
    socket.write('POST /lane HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\nonly a part');
    const [request] = await received;
    // The server has seen the upload end unfinished before the next request.
    // (once() would reject on the request's 'aborted' error: listen for the close alone.)
    const abandoned = new Promise((resolve) => request.once('close', resolve));
    socket.destroy();
    await abandoned;
    expect(await (await fetch(`${url}/lane`, { method: 'POST', body: 'x' })).json()).toEqual({ calls: 1 });
  });

  it('writes answers finished together, each to its own client, though one client left meanwhile', async () => {
    // Three requests held until all have arrived, then finished in one turn of the event loop:
    // their answers are written together at its end (FastLane.finished). The client of the first
    // is gone by then; the others still get their own answers, and the lane goes on serving.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrive!: () => void;
    let arrived = 0;
    const allArrived = new Promise<void>((resolve) => (arrive = () => void (++arrived === 3 && resolve())));
    const { app, port, url } = await laneInFront({
      gatherAnswers: true,
      handle: async (request) => {
        arrive();
        await gate;
        return { status: 200, body: { echo: request.body.toString() } };
      },
    });
    const connections: net.Socket[] = [];
    app.server.on('connection', (socket: net.Socket) => connections.push(socket));
    const leaving = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => leaving.once('connect', resolve));
    leaving.write('POST /lane HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\ngone');
    const answers = Promise.all(['one', 'two'].map(async (body) => (await fetch(`${url}/lane`, { method: 'POST', body })).json()));
    await allArrived;
    // The answers are released only once the server has seen the first client go.
    const serverSide = connections.find((socket) => socket.remotePort === leaving.localPort);
    expect(serverSide).toBeDefined();
    const gone = once(serverSide!, 'close');
    leaving.destroy();
    await gone;
    release();
    expect(await answers).toEqual([{ echo: 'one' }, { echo: 'two' }]);
    expect(await (await fetch(`${url}/lane`, { method: 'POST', body: 'after' })).json()).toEqual({ echo: 'after' });
  });

  it('closes a keep-alive connection whose gathered answer waited while the server began to close', async () => {
    // The handler starts the shutdown in the very turn its answer is finished: the answer is
    // written at the turn's end, after `markClosing`, so it must say `connection: close` and the
    // server must end the socket. Otherwise the keep-alive client would hold the closing server
    // open until its keep-alive timeout (72 s), longer than this test may run.
    let closed: Promise<void> | undefined;
    const { app } = await laneInFront({
      gatherAnswers: true,
      handle: async () => {
        queueMicrotask(() => {
          closed = app.close();
        });
        return { status: 200, body: { ok: 1 } };
      },
    });
    const { port } = app.server.address() as net.AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (data) => (received += data.toString('latin1')));
    const ended = new Promise<void>((resolve) => socket.on('end', resolve));
    socket.write('GET /lane HTTP/1.1\r\nHost: x\r\n\r\n');
    await ended;
    await closed;
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1.1 200 OK\r\n/);
    expect(received).toMatch(/connection: close/i);
    expect(bodyOf(received)).toEqual({ ok: 1 });
  });

  it('turns a thrown error into the envelope: an ApiError its own, anything else a 500 logged once', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    let error: Error = notFound('Gone fishing.');
    const { url } = await laneInFront({ log, handle: async () => Promise.reject(error) });
    const known = await fetch(`${url}/lane`);
    expect(known.status).toBe(404);
    expect(await known.json()).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Gone fishing.', attr: null });
    error = new Error('secret internals at /srv/hoglet/file.ts:12');
    const res = await fetch(`${url}/lane`);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
    expect(text).not.toContain('secret');
    expect(lines.filter((l) => l.includes('unhandled error'))).toHaveLength(1);
  });

  it('answers 503 and closes the connection once the server is closing', async () => {
    const { lane, port } = await laneInFront();
    lane.markClosing();
    const res = await rawRequest(port, 'GET /lane HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1.1 503 /);
    expect(res).toMatch(/connection: close/i);
    expect(bodyOf(res)).toEqual({ error: 'Service Unavailable', message: 'Service Unavailable', statusCode: 503 });
  });
});

describe('client address', () => {
  const forwarded = [
    undefined,
    '203.0.113.7',
    '203.0.113.7, 10.0.0.1',
    '203.0.113.7,10.0.0.1, 10.0.0.2',
    'not-an-ip, 10.0.0.1',
    ' , 198.51.100.4 ,',
    '::ffff:10.0.0.9, 10.1.1.1',
    '2001:db8::1, fd00::5',
    '192.168.1.1, 172.16.0.1',
  ];
  const settings: Array<boolean | number | string> = [
    false,
    true,
    0,
    1,
    2,
    '127.0.0.1',
    '127.0.0.1, 10.0.0.0/8',
    'loopback',
    'loopback, uniquelocal',
    '127.0.0.0/255.0.0.0,10.0.0.1',
    '::ffff:127.0.0.1',
    '::ffff:127.0.0.0/104, ::ffff:10.0.0.0/104',
    '::1, fd00::/8, 127.0.0.1',
  ];
  for (const setting of settings) {
    it(`is fastify's request.ip with TRUST_PROXY=${JSON.stringify(setting)}`, async () => {
      const { url } = await laneInFront({ trustProxy: setting });
      for (const xff of forwarded) {
        const headers: Record<string, string> = xff === undefined ? {} : { 'x-forwarded-for': xff };
        const fromFastify = (await (await fetch(`${url}/fastify-ip`, { headers })).json()) as { ip: string };
        const fromLane = (await (await fetch(`${url}/lane`, { headers })).json()) as { ip: string };
        expect(fromLane.ip, `X-Forwarded-For: ${xff}`).toBe(fromFastify.ip);
      }
    });
  }

  it('refuses a malformed trust list at start-up', () => {
    expect(() => clientAddressResolver('10.0.0.0/33')).toThrow('invalid range on address: 10.0.0.0/33');
    expect(() => clientAddressResolver('proxy.example')).toThrow('invalid IP address: proxy.example');
  });
});

/**
 * Sends raw bytes on a fresh connection and returns everything the server wrote until it closed
 * the connection (every caller expects it to: `Connection: close`, a 413, a 503 while closing).
 */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const done = () => {
      socket.destroy();
      resolve(received);
    };
    socket.on('data', (data) => {
      received += data.toString('latin1');
    });
    socket.on('close', done);
    socket.on('error', (error) => (received ? done() : reject(error)));
    socket.write(text);
  });
}

function bodyOf(response: string): unknown {
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
}
