/**
 * Reads a request body as raw bytes for the fast lane, with the rules fastify applied to the same
 * routes (a `*` parser with `parseAs: 'buffer'` and a per-route body limit):
 *
 * - GET and HEAD bodies are not read (node discards them after the answer);
 * - a POST with no Content-Type and no body is empty without waiting for anything;
 * - a Content-Type that is not `type/subtype` is refused with 415;
 * - a declared Content-Length over the limit is refused with 413 before reading, and a body that
 *   grows past it (chunked uploads) as soon as it does: the client is not held, and the rest of
 *   the upload is dropped as it arrives;
 * - an upload the client abandons settles as `aborted`, so nothing waits on it.
 *
 * Call it once the parser has finished the data that carried the headers (a microtask after the
 * `request` event): a body that arrived with them is then read at once from the stream's buffer.
 */
import type { IncomingMessage } from 'node:http';
import { payloadTooLarge, unsupportedMediaType, type ApiError } from './errors.js';

export type BodyRead =
  | { ok: true; body: Buffer }
  /** Answered with `error`; the connection is closed after it, as the rest of the body may still come. */
  | { ok: false; error: ApiError }
  /** The client went away before the body was complete: there is no one to answer. */
  | { ok: false; aborted: true };

const EMPTY_BUFFER = Buffer.alloc(0);
const EMPTY: BodyRead = { ok: true, body: EMPTY_BUFFER };

/** fastify's media-type grammar (token `/` token, then optional parameters). */
const TYPE_NAME = /^[\w!#$%&'*+.^`|~-]+$/;
const SUBTYPE_NAME = /^[\w!#$%&'*+.^`|~-]+\s*$/;

export function isWellFormedContentType(header: string): boolean {
  const semicolon = header.indexOf(';');
  const mediaType = semicolon === -1 ? header : header.slice(0, semicolon);
  const slash = mediaType.indexOf('/');
  if (slash === -1) return false;
  return TYPE_NAME.test(mediaType.slice(0, slash).trimStart()) && SUBTYPE_NAME.test(mediaType.slice(slash + 1).trimEnd());
}

export function readRequestBody(request: IncomingMessage, limit: number): BodyRead | Promise<BodyRead> {
  if (request.method === 'GET' || request.method === 'HEAD') return EMPTY;
  const { headers } = request;
  const contentType = headers['content-type'];
  const declaredLength = headers['content-length'];
  if (contentType === undefined) {
    if (headers['transfer-encoding'] === undefined && (declaredLength === undefined || declaredLength === '0')) return EMPTY;
  } else if (!isWellFormedContentType(contentType)) {
    return { ok: false, error: unsupportedMediaType(contentType) };
  }
  if (Number(declaredLength) > limit) return { ok: false, error: payloadTooLarge() };
  if (request.complete && request.readableFlowing === null) {
    // The whole body came with the headers (the usual SDK request) and waits in the stream's
    // buffer: take it in one read instead of through the flowing-mode events.
    const body = (request.read() as Buffer | null) ?? EMPTY_BUFFER;
    return body.length > limit ? { ok: false, error: payloadTooLarge() } : { ok: true, body };
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: BodyRead) => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onAborted);
      request.off('close', onAborted);
      resolve(result);
    };
    function onData(chunk: Buffer) {
      size += chunk.length;
      // The stream keeps flowing with no listener, so what is still on its way is discarded.
      if (size > limit) settle({ ok: false, error: payloadTooLarge() });
      else chunks.push(chunk);
    }
    function onEnd() {
      settle({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    }
    function onAborted() {
      settle({ ok: false, aborted: true });
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onAborted);
    request.on('close', onAborted);
  });
}
