import type { FastifyInstance } from 'fastify';

/**
 * JSON as DRF reads it: an empty body is an empty object, not an error; prototype-poisoning keys
 * are refused by fastify's own parser. Form bodies are accepted too (PostHog takes
 * `personal_api_key` from a form).
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
}
