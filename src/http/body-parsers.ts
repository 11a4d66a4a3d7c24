import type { FastifyInstance } from 'fastify';
import { unsupportedMediaType } from './errors.js';

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
    strictJson(request, text, done);
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    done(unsupportedMediaType(request.headers['content-type'] ?? ''), undefined);
  });
}
