import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * What a client may hold of a server: a request must arrive whole within REQUEST_TIMEOUT_MS
 * (headers and body), an idle keep-alive connection ends after KEEP_ALIVE_TIMEOUT_MS, and a
 * process holds at most MAX_CONNECTIONS connections. Tested with raw sockets, as a stalled or
 * greedy client behaves.
 */
const MAX_CONNECTIONS = 6;

let server: TestServer;
/** With the default timeouts, which hold a connection long enough to count it. */
let capped: TestServer;
beforeAll(async () => {
  server = await startTestServer({ REQUEST_TIMEOUT_MS: '400', KEEP_ALIVE_TIMEOUT_MS: '400' });
  capped = await startTestServer({ MAX_CONNECTIONS: String(MAX_CONNECTIONS) });
});
afterAll(async () => {
  await server?.close();
  await capped?.close();
});

interface Connection {
  socket: net.Socket;
  /** Everything the server wrote, so far. */
  received(): string;
  /** Resolves with everything the server wrote once it closed the connection. */
  closed: Promise<string>;
}

function connect(to: TestServer = server): Promise<Connection> {
  const { hostname, port } = new URL(to.url);
  const socket = net.connect(Number(port), hostname);
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(data)));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

const batchHead = (length: number) =>
  `POST /batch/ HTTP/1.1\r\nHost: hoglet\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** Checks an answer written before any route: its status line and PostHog's envelope as its body. */
function expectRefusal(answer: string, status: number, code: string, detail: string): void {
  expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
  expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ type: 'invalid_request', code, detail, attr: null });
}

describe('a stalled request', () => {
  it('is answered 408 in the envelope and closed when its body stops coming (the SDK lane)', async () => {
    const connection = await connect();
    connection.socket.write(batchHead(1000) + '{"api_key": "phc_');
    expectRefusal(await connection.closed, 408, 'request_timeout', 'The request did not arrive whole in time.');
  });

  it('is answered 408 and closed when its body stops coming (the management API)', async () => {
    const connection = await connect();
    const head = `PATCH /api/projects/${server.bootstrap.team.id}/ HTTP/1.1\r\nHost: hoglet\r\nAuthorization: Bearer ${server.key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`;
    connection.socket.write(head + '{"name": ');
    expect(await connection.closed).toMatch(/^HTTP\/1\.1 408 /);
    // Nothing of the half-sent request was applied.
    const project = await server.request(`/api/projects/${server.bootstrap.team.id}/`);
    expect(project.body.name).toBe('Default project');
  });

  it('is closed when its headers stop coming', async () => {
    const connection = await connect();
    connection.socket.write('POST /capture/ HTTP/1.1\r\nHost: hog');
    expect(await connection.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('is closed when it trickles in, a byte at a time, for longer than the timeout', async () => {
    const connection = await connect();
    connection.socket.write(batchHead(10_000));
    let open = true;
    void connection.closed.then(() => (open = false));
    const trickle = setInterval(() => open && connection.socket.write(' '), 20);
    try {
      expect(await connection.closed).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  });

  it('does not disturb other clients meanwhile', async () => {
    const stalled = await connect();
    stalled.socket.write(batchHead(1000));
    const health = await fetch(`${server.url}/_health`, { headers: { connection: 'close' } });
    expect(health.status).toBe(200);
    await stalled.closed;
  });
});

describe('a request node refuses before any route', () => {
  it('is answered in the envelope: 431 for headers past their size, 400 for malformed framing', async () => {
    const large = await connect();
    large.socket.write(`GET /api/projects/?search=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: hoglet\r\n\r\n`);
    expectRefusal(await large.closed, 431, 'request_header_fields_too_large', 'The request line and headers are too large.');

    const framing = await connect();
    framing.socket.write('POST /batch/ HTTP/1.1\r\nHost: hoglet\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx');
    expectRefusal(await framing.closed, 400, 'bad_request', 'The request is not valid HTTP/1.1.');
  });
});

describe('an idle keep-alive connection', () => {
  it('is closed by the server after its last answer', async () => {
    const connection = await connect();
    connection.socket.write('GET /_health HTTP/1.1\r\nHost: hoglet\r\n\r\n');
    await waitFor(() => connection.received().includes('\r\n\r\n'), { what: 'the head of the answer' });
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(connection.received().toLowerCase()).toContain('keep-alive');
    const all = await connection.closed;
    // Closed without another answer: nothing after the first.
    expect(all.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });
});

describe('the connection cap', () => {
  it(`holds ${MAX_CONNECTIONS} connections and closes the ones beyond as they arrive`, async () => {
    const held: Connection[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const connection = await connect(capped);
      // Answered, and kept alive: the server has taken the connection and holds it.
      connection.socket.write('GET /_health HTTP/1.1\r\nHost: hoglet\r\n\r\n');
      await waitFor(() => connection.received().includes('\r\n\r\n'), { what: 'the head of the answer' });
      held.push(connection);
    }
    const refused = await connect(capped);
    refused.socket.write('GET /_health HTTP/1.1\r\nHost: hoglet\r\n\r\n');
    expect(await refused.closed).toBe('');
    // One held connection goes: a new one is served (once the server has seen it go).
    held.pop()!.socket.destroy();
    const tryOne = async () => {
      const next = await connect(capped);
      next.socket.write('GET /_health HTTP/1.1\r\nHost: hoglet\r\nConnection: close\r\n\r\n');
      return next.closed;
    };
    await waitFor(tryOne, { what: 'a new connection to be served', until: (answer) => answer.startsWith('HTTP/1.1 200') });
    for (const connection of held) connection.socket.destroy();
  });
});
