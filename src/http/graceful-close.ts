import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * Closes the server gracefully, within a bound. fastify's close stops accepting connections, ends
 * the idle ones and waits for every request in flight. But a client that stops reading a response
 * (a large file: the socket's buffers fill and the write never completes) keeps its connection
 * busy for as long as TCP lets it, which held a shutdown for over a minute (seen: 73 s with a
 * fetch whose body was never read), and so does a request whose body never finishes arriving.
 * Requests get `graceMs` to finish; the connections still open then are cut, so the HTTP part of
 * a shutdown takes bounded time (the worker's batch and the database still finish their work).
 * A handler still running when its connection is cut goes on; its answer is lost (a capture
 * still commits, and an SDK that retries may then send its events twice).
 */
export async function closeWithGrace(app: FastifyInstance, graceMs: number, log: Logger): Promise<void> {
  const closing = app.close();
  const timer = setTimeout(() => {
    log.warn({ graceMs }, 'connections still open after the shutdown grace period; closing them');
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await closing;
  } finally {
    clearTimeout(timer);
  }
}
