import type { FastifyInstance } from 'fastify';
import { DEFAULT_MAX_JSON_DEPTH, jsonDepthExceeds } from '../lib/json-depth.js';
import { parseError, unsupportedMediaType } from '../posthog/errors.js';

/**
 * JSON as DRF reads it: an empty body is an empty object, not an error; prototype-poisoning keys
 * are refused by fastify's own parser. Form bodies are accepted too (PostHog takes
 * `personal_api_key` from a form). DRF parses nothing else: any other body, text/plain included,
 * is its 415, and an empty one is no body at all.
 */
export function installBodyParsers(app: FastifyInstance): void {
  const strictJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    // Readers of bodies recurse (validation, JSON.stringify): bounded as the public endpoints' bodies are.
    if (jsonDepthExceeds(text, DEFAULT_MAX_JSON_DEPTH)) {
      return done(parseError(`JSON parse error - nested deeper than ${DEFAULT_MAX_JSON_DEPTH} levels`), undefined);
    }
    void strictJson(request, text, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    // A path no route answers is a 404 whatever its body.
    if (body.length === 0 || request.is404) return done(null, undefined);
    done(unsupportedMediaType(request.headers['content-type'] ?? ''), undefined);
  });
}
