import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubServer {
  url: string;
  /** The body of every request answered, in the order they ended. */
  arrivals: string[];
  close(): Promise<void>;
}

/**
 * An HTTP server on a free local port for the bench's load clients: it answers `{"ok":1}`, 404 on
 * `/missing`, and records each request's body.
 */
export async function startStubServer(): Promise<StubServer> {
  const arrivals: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      arrivals.push(body);
      if (request.url === '/missing') response.statusCode = 404;
      response.end('{"ok":1}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
