import type { FastifyInstance } from 'fastify';

/**
 * Browser SDKs call the public endpoints (capture, decide, config, recordings) from any site, so
 * those answer every origin; the management API is for servers and scripts and gets no CORS
 * headers. The fast lane (sdk/router.ts) answers capture and decide itself and adds the same
 * headers through `publicCorsHeaders`; fastify adds them to everything else with a plain hook
 * (not a plugin: the plugin's per-request delegator cost capture measurably; docs/benchmarks.md).
 */

/** The headers a public answer to a request from `origin` carries: the origin is echoed, with credentials. */
export function publicCorsHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

export function installPublicCors(app: FastifyInstance, apiPrefix: string): void {
  const isApi = (url: string) => url.startsWith(apiPrefix + '/');
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !isApi(request.url)) reply.headers(publicCorsHeaders(origin));
    done();
  });
  // Preflight, for every public path (the fast lane leaves OPTIONS to fastify): allow what the
  // browser asks for, for a day.
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
