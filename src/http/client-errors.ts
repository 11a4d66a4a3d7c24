import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../posthog/errors.js';

/** A request node's parser refused before any route saw it, as PostHog's envelope. */
function refusal(code: string | undefined): ApiError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'invalid_request', 'request_timeout', 'The request did not arrive whole in time.');
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', 'request_header_fields_too_large', 'The request line and headers are too large.');
  }
  return new ApiError(400, 'invalid_request', 'bad_request', 'The request is not valid HTTP/1.1.');
}

/**
 * fastify's `clientErrorHandler`: what node's HTTP parser refuses (headers past their size, a
 * request that stalls, malformed framing) is answered in the envelope every other error uses,
 * instead of fastify's own body, and the connection is closed, as node does.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = refusal(error.code);
  this.log.trace({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify(answer.toEnvelope());
    socket.write(
      `HTTP/1.1 ${answer.statusCode} ${http.STATUS_CODES[answer.statusCode]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
