import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeBody, type DecodeBodyLimits, type DecodeBodyResult, type QueryParams } from '../ingestion/core/decode-body.js';

/**
 * What the public SDK endpoints (capture, recordings, decide) share: the 401 bodies for project
 * API keys (spec README decision 2) and reading a raw header.
 */
export const INVALID_PROJECT_TOKEN = {
  type: 'authentication_error',
  code: 'invalid_api_key',
  detail: 'Project API key invalid. You can find your project API key in your project settings.',
  attr: null,
} as const;

export const MISSING_PROJECT_TOKEN = {
  type: 'authentication_error',
  code: 'missing_api_key',
  detail: 'API key not provided. You can find your project API key in your project settings.',
  attr: null,
} as const;

/** A header's first value (Node gives repeated headers as arrays). */
export function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The public SDK endpoints take their bodies as raw bytes: posthog-js sends gzip with no hint. */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

/** A public endpoint's body, decoded as capture decodes it (JSON, gzip, base64, form, lz64). */
export function decodeRequestBody(request: FastifyRequest, limits: DecodeBodyLimits): DecodeBodyResult {
  return decodeBody({
    body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    contentType: firstHeader(request, 'content-type'),
    contentEncoding: firstHeader(request, 'content-encoding'),
    query: (request.query ?? {}) as QueryParams,
    limits,
  });
}
