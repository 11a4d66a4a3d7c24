import type { FastifyRequest } from 'fastify';

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
