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
 */
import type { IncomingMessage } from 'node:http';
import { payloadTooLarge, unsupportedMediaType, type ApiError } from '../posthog/errors.js';

export type BodyRead =
  | { ok: true; body: Buffer }
  /** Answered with `error`; the connection is closed after it, as the rest of the body may still come. */
  | { ok: false; error: ApiError }
  /** The client went away before the body was complete: there is no one to answer. */
  | { ok: false; aborted: true };

const EMPTY: BodyRead = { ok: true, body: Buffer.alloc(0) };
const ABORTED: BodyRead = { ok: false, aborted: true };

/** fastify's media-type grammar (token `/` token, then optional parameters). */
const TYPE_NAME = /^[\w!#$%&'*+.^`|~-]+$/;
const SUBTYPE_NAME = /^[\w!#$%&'*+.^`|~-]+\s*$/;

/** The last header checked and its verdict: SDKs send the same few content types over and over. */
let lastContentType = '';
let lastVerdict = false;

export function isWellFormedContentType(header: string): boolean {
  if (header !== lastContentType) {
    lastVerdict = checkContentType(header);
    lastContentType = header;
  }
  return lastVerdict;
}

function checkContentType(header: string): boolean {
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
  return new Promise((resolve) => new BodyCollector(request, limit, resolve));
}

/**
 * Gathers one body from the stream's events. The listeners are small anonymous arrows that call
 * its methods: named functions made per request cost a property definition each under tsx (it
 * keeps function names), which showed in the capture profile. After the body settles the
 * listeners stay on, doing nothing: the stream keeps flowing, so the rest of an oversized upload
 * is dropped as it arrives.
 */
class BodyCollector {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;

  constructor(
    request: IncomingMessage,
    private readonly limit: number,
    private readonly resolve: (result: BodyRead) => void,
  ) {
    request.on('data', (chunk: Buffer) => this.add(chunk));
    request.on('end', () => this.settle({ ok: true, body: this.body() }));
    request.on('error', () => this.settle(ABORTED));
    request.on('close', () => this.settle(ABORTED));
  }

  private add(chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.size > this.limit) this.settle({ ok: false, error: payloadTooLarge() });
    else this.chunks.push(chunk);
  }

  private body(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
  }

  private settle(result: BodyRead): void {
    if (this.settled) return;
    this.settled = true;
    this.resolve(result);
  }
}
