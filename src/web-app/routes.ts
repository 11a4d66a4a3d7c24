/**
 * Serves the web app (web/, built into web/dist/): its page for `/` and the app's own paths (the
 * first segments in sections.ts, so /api, the SDK paths and every other route stay as they are,
 * and an unknown path keeps its JSON 404), and its hashed assets under `/app-assets/`.
 */
import fs from 'node:fs';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { contentSecurityPolicy } from '../http/content-security-policy.js';
import { ASSETS_DIR, findAsset, readIndexHtml } from './files.js';
import { APP_PATH_ROOTS } from './sections.js';

/** The app's pages run only the app's own scripts, unframed. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy({ frameAncestors: "'none'" });

const NOT_BUILT = "Hoglet's web app is not built: run `npm run build` (npm start builds it when its sources change).\n";

async function sendPage(_request: FastifyRequest, reply: FastifyReply) {
  const html = await readIndexHtml();
  reply
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', 'no-cache')
    .header('referrer-policy', 'same-origin')
    .header('x-frame-options', 'DENY');
  if (!html) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
  return reply.header('content-security-policy', CONTENT_SECURITY_POLICY).type('text/html; charset=utf-8').send(html);
}

export const webAppRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', sendPage);
  for (const root of APP_PATH_ROOTS) {
    app.get(`/${root}`, sendPage);
    app.get(`/${root}/*`, sendPage);
  }

  app.get(`/${ASSETS_DIR}/:file`, async (request, reply) => {
    const asset = findAsset((request.params as { file: string }).file);
    reply.header('x-content-type-options', 'nosniff');
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not found\n');
    // Names carry their content's hash: a file never changes under its name.
    reply.header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'accept-encoding').type(asset.type);
    const gzip = asset.gzipPath && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(fs.createReadStream(gzip ? asset.gzipPath! : asset.path));
  });
};
