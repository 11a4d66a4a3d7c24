import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeBody, type DecodeBodyLimits, type DecodeBodyResult, type QueryParams } from './decode-body.js';
import { errorEnvelope } from '../posthog/errors.js';

/**
 * What the public SDK endpoints (capture, recordings, decide) share: the 401 bodies for project
 * API keys (docs/decisions/0003-capture-checks-project-key.md), reading a raw header, and (for
 * recordings, still on fastify) taking and decoding raw bodies.
 */
export const INVALID_PROJECT_TOKEN = errorEnvelope(
  'authentication_error',
  'invalid_api_key',
  'Project API key invalid. You can find your project API key in your project settings.',
);

export const MISSING_PROJECT_TOKEN = errorEnvelope(
  'authentication_error',
  'missing_api_key',
  'API key not provided. You can find your project API key in your project settings.',
);

/** A header's first value (Node gives repeated headers as arrays). */
export function firstHeaderValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function firstHeader(request: FastifyRequest, name: string): string | undefined {
  return firstHeaderValue(request.headers, name);
}

/** The public SDK endpoints take their bodies as raw bytes: posthog-js sends gzip with no hint. */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

/** The headers that say how a public endpoint's body is encoded, as decodeBody takes them. */
export function bodyEncoding(headers: IncomingHttpHeaders): { contentType: string | undefined; contentEncoding: string | undefined } {
  return { contentType: firstHeaderValue(headers, 'content-type'), contentEncoding: firstHeaderValue(headers, 'content-encoding') };
}

/** A public endpoint's body, decoded as capture decodes it (JSON, gzip, base64, form, lz64). */
export function decodePublicBody(
  request: { body: Buffer; headers: IncomingHttpHeaders; query: QueryParams },
  limits: DecodeBodyLimits,
): DecodeBodyResult {
  return decodeBody({ body: request.body, ...bodyEncoding(request.headers), query: request.query, limits });
}

/** `decodePublicBody` for a fastify request whose body was taken raw (`acceptRawBodies`). */
export function decodeRequestBody(request: FastifyRequest, limits: DecodeBodyLimits): DecodeBodyResult {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  return decodePublicBody({ body, headers: request.headers, query: (request.query ?? {}) as QueryParams }, limits);
}
