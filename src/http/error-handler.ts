import { isQueryTooLarge } from '../platform/analytics/engine.js';
import { isDatabaseUnavailable } from '../platform/db/availability.js';
import { isNulCharacterError } from '../platform/db/database.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  notFound,
  parseError,
  payloadTooLarge,
  serverError,
  serviceUnavailable,
  unsupportedMediaType,
  validationError,
} from '../posthog/errors.js';
import { InvalidPropertyFilter } from '../posthog/property-conditions.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Follows an ajv instancePath (`/filters/0/key`) into the request data. */
function valueAt(data: unknown, pointer: string): unknown {
  let current = data;
  for (const part of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}

const TYPE_MESSAGES: Record<string, string> = {
  boolean: 'Must be a valid boolean.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  string: 'Not a valid string.',
};

/**
 * Turns the first schema violation into DRF's wording: the attr is the field path joined with
 * `__`, the code and text are DRF's for that kind of problem.
 */
export function schemaErrorToApiError(error: AjvError, data: unknown): ApiError {
  const path = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') {
    path.push(String(error.params.missingProperty));
    return validationError('This field is required.', path.join('__'), 'required');
  }
  const attr = path.length ? path.join('__') : null;
  const value = valueAt(data, error.instancePath);
  switch (error.keyword) {
    case 'type': {
      const expected = String(error.params.type).split(',')[0]!;
      if (attr === null && expected === 'object') {
        return validationError(DRF_MESSAGES.notADict(value), null);
      }
      if (value === null) return validationError('This field may not be null.', attr, 'null');
      if (expected === 'array') {
        return validationError(DRF_MESSAGES.notAList(value), attr, 'not_a_list');
      }
      if (expected === 'object') {
        return validationError(DRF_MESSAGES.notADictOfItems(value), attr, 'not_a_dict');
      }
      return validationError(TYPE_MESSAGES[expected] ?? `Invalid value.`, attr);
    }
    case 'enum':
    case 'const':
      return validationError(`"${String(value)}" is not a valid choice.`, attr, 'invalid_choice');
    case 'maximum':
      return validationError(`Ensure this value is less than or equal to ${error.params.limit}.`, attr, 'max_value');
    case 'minimum':
      return validationError(`Ensure this value is greater than or equal to ${error.params.limit}.`, attr, 'min_value');
    case 'maxLength':
      return validationError(`Ensure this field has no more than ${error.params.limit} characters.`, attr, 'max_length');
    case 'minLength':
      return validationError('This field may not be blank.', attr, 'blank');
    case 'maxItems':
      return validationError(`Ensure this field has no more than ${error.params.limit} elements.`, attr, 'max_length');
    case 'format':
      if (error.params.format === 'date-time') {
        return validationError(
          'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
          attr,
        );
      }
      return validationError(`Enter a valid ${String(error.params.format)}.`, attr);
    default:
      return validationError(error.message ? `Invalid value: ${error.message}.` : 'Invalid value.', attr);
  }
}

function toApiError(error: FastifyError & { validation?: AjvError[] }, request: FastifyRequest): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof InvalidPropertyFilter) return validationError(error.detail, error.attr);
  if (error.validation?.length) {
    const context = (error as { validationContext?: string }).validationContext;
    const data = context === 'querystring' ? request.query : context === 'params' ? request.params : request.body;
    return schemaErrorToApiError(error.validation[0]!, data);
  }
  if (isNulCharacterError(error)) return validationError('Text may not contain NUL (\\u0000) characters.');
  if (isQueryTooLarge(error)) {
    return validationError('This query is too large for the analytics engine to run: select fewer columns or use fewer filters.', 'query');
  }
  // Logged once for the outage (DatabaseAvailability), not per request.
  if (isDatabaseUnavailable(error)) return serviceUnavailable();
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return parseError(`JSON parse error - ${error.message}`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request.headers['content-type'] ?? '');
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, 'invalid_request', (error.code ?? 'invalid_request').toLowerCase(), error.message);
  }
  return undefined;
}

function send(reply: FastifyReply, error: ApiError) {
  reply.code(error.statusCode).headers(error.headers).type('application/json; charset=utf-8').send(error.toEnvelope());
}

/**
 * Every error leaves as PostHog's envelope. An unexpected one is logged once, with its stack, and
 * answered with a 500 that says nothing about the server's insides; one of an unreachable
 * database is a 503, which clients retry.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request);
    if (apiError) return send(reply, apiError);
    request.log.error({ err: error, method: request.method, url: request.url }, 'unhandled error');
    return send(reply, serverError());
  });
  app.setNotFoundHandler((_request, reply) => send(reply, notFound()));
}
