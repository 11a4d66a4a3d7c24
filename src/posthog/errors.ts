/**
 * PostHog's error envelope (drf-exceptions-hog): `{type, code, detail, attr}`, with PostHog's
 * exact texts. Anything that answers an /api request with an error throws one of these.
 */
export type ErrorType = 'validation_error' | 'invalid_request' | 'authentication_error' | 'throttled_error' | 'server_error';

export interface ErrorEnvelope {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: ErrorType,
    readonly code: string,
    readonly detail: string,
    readonly attr: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toEnvelope(): ErrorEnvelope {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

/**
 * An envelope that is answered rather than thrown (the SDK edge, pure cores that return their
 * failures); its keys in PostHog's order.
 */
export function errorEnvelope(type: ErrorType, code: string, detail: string, attr: string | null = null): ErrorEnvelope {
  return { type, code, detail, attr };
}

/** DRF rewrites the generic `invalid` code to `invalid_input`. */
const drfCode = (code: string) => (code === 'invalid' ? 'invalid_input' : code);

/** A validation_error envelope, as validationError's would be. */
export const validationEnvelope = (detail: string, attr: string | null = null, code = 'invalid_input') =>
  errorEnvelope('validation_error', drfCode(code), detail, attr);

export type KeySource = 'Authorization header' | 'body' | 'query string';

export const notAuthenticated = () =>
  new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.', null, {
    'WWW-Authenticate': 'Bearer',
  });

export const invalidPersonalApiKey = (source: KeySource) =>
  new ApiError(401, 'authentication_error', 'authentication_failed', `Personal API key found in request ${source} is invalid.`, null, {
    'WWW-Authenticate': 'Bearer',
  });

export const permissionDenied = (detail = 'You do not have permission to perform this action.') =>
  new ApiError(403, 'authentication_error', 'permission_denied', detail);

export const missingScope = (scope: string) => permissionDenied(`API key missing required scope '${scope}'`);

export const notFound = (detail = 'Not found.') => new ApiError(404, 'invalid_request', 'not_found', detail);

export const projectNotFound = () => notFound('Project not found.');

/** What a lookup found, or the 404 when it found nothing (a route's `load(request)`). */
export async function loadOr404<T>(lookup: Promise<T | undefined>, detail?: string): Promise<T> {
  const found = await lookup;
  if (!found) throw notFound(detail);
  return found;
}

export const methodNotAllowed = (method: string) =>
  new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`);

export const validationError = (detail: string, attr: string | null = null, code = 'invalid_input') =>
  new ApiError(400, 'validation_error', drfCode(code), detail, attr);

export const parseError = (detail: string) => new ApiError(400, 'invalid_request', 'parse_error', detail);

export const conflict = (detail: string) => new ApiError(409, 'server_error', 'conflict', detail);

/** A body over the route's limit (fastify's and the fast lane's wording). */
export const payloadTooLarge = () => new ApiError(413, 'invalid_request', 'payload_too_large', 'Request body is too large.');

export const unsupportedMediaType = (contentType: string) =>
  new ApiError(415, 'invalid_request', 'unsupported_media_type', `Unsupported media type "${contentType}" in request.`);

export const serverError = () => new ApiError(500, 'server_error', 'error', 'A server error occurred.');

/** The database cannot be reached (restarting, down, a connection lost): the client may try again. */
export const serviceUnavailable = () =>
  new ApiError(503, 'server_error', 'service_unavailable', 'The database is unavailable. Please try again shortly.');

/** DRF's Throttled (429), with its Retry-After header. */
export const throttled = (waitSeconds: number) =>
  new ApiError(
    429,
    'throttled_error',
    'throttled',
    `Request was throttled. Expected available in ${Math.max(1, Math.ceil(waitSeconds))} second${Math.ceil(waitSeconds) === 1 ? '' : 's'}.`,
    null,
    { 'Retry-After': String(Math.max(1, Math.ceil(waitSeconds))) },
  );
