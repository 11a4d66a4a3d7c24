import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { notFound, serverError } from '../posthog/errors.js';

/**
 * fastify's `frameworkErrors`: what its router refuses before any route or error handler runs,
 * answered in PostHog's envelope instead of fastify's own body. A path that is not valid
 * percent-encoded UTF-8, or with a segment longer than the router takes (maxParamLength), names
 * nothing that exists: 404, as Django answers a path no object has.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const known = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const answer = known ? notFound() : serverError();
  reply.code(answer.statusCode).type('application/json; charset=utf-8').send(answer.toEnvelope());
}
