import type { FastifyInstance } from 'fastify';

/**
 * Browser SDKs call the public endpoints (capture, decide, config, recordings) from any site, so
 * those answer every origin; the management API is for servers and scripts and gets no CORS
 * headers. A plain hook rather than a plugin: it runs on every capture request, so it must cost
 * next to nothing.
 */
export function installPublicCors(app: FastifyInstance, apiPrefix: string): void {
  const isApi = (url: string) => url.startsWith(apiPrefix + '/');
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !isApi(request.url)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
      reply.header('vary', 'Origin');
    }
    done();
  });
  // Preflight: allow what the browser asks for, for a day.
  app.options('*', (request, reply) => {
    if (!isApi(request.url) && request.headers.origin !== undefined) {
      reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
      const asked = request.headers['access-control-request-headers'];
      if (asked) reply.header('access-control-allow-headers', asked);
      reply.header('access-control-max-age', '86400');
    }
    reply.code(204).send();
  });
}
