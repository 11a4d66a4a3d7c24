/**
 * `GET /api/early_access_features/?token=<project token>[&stage=…]`: what posthog-js's
 * `getEarlyAccessFeatures()` reads (PostHog's `early_access_features` view). No credentials but
 * the project token; any site may call it (CORS as the other public endpoints). Without `stage`
 * only beta features are listed; `stage` may be repeated.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { publicFeatures } from '../../early-access/service.js';
import { publicCorsHeaders } from '../../http/cors.js';
import { errorEnvelope } from '../../posthog/errors.js';

/** At most this many features are answered, and this many `stage` values read. */
export const MAX_PUBLIC_FEATURES = 1000;
const MAX_STAGES = 20;

const MISSING_TOKEN = errorEnvelope(
  'authentication_error',
  'missing_api_key',
  'Project token not provided. You can find your project token in PostHog project settings.',
);
const INVALID_TOKEN = errorEnvelope(
  'authentication_error',
  'invalid_api_key',
  'Project token invalid. You can find your project token in PostHog project settings.',
);

function values(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((v): v is string => typeof v === 'string');
}

export const earlyAccessPublicRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  async function handle(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin;
    if (origin !== undefined) reply.headers(publicCorsHeaders(origin));
    const query = (request.query ?? {}) as Record<string, unknown>;
    // PostHog's get_token: `token`, else `api_key`.
    const token = values(query.token)[0] || values(query.api_key)[0];
    if (!token) return reply.code(401).send(MISSING_TOKEN);
    const team = token.length <= 200 ? await ctx.teams.byApiToken(token) : undefined;
    if (!team) return reply.code(401).send(INVALID_TOKEN);
    const asked = values(query.stage).slice(0, MAX_STAGES);
    return { earlyAccessFeatures: await publicFeatures(ctx, team, asked, MAX_PUBLIC_FEATURES) };
  }

  // Under /api, but answered to anyone: the project token is the only credential.
  const config = { access: { scope: null, public: true } };
  app.get('/api/early_access_features', { config }, handle);
  // The preflight a browser sends before a request with headers of its own (the /api paths get none).
  app.options('/api/early_access_features', { config }, async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined) {
      reply.headers({ ...publicCorsHeaders(origin), 'access-control-allow-methods': 'GET, OPTIONS', 'access-control-max-age': '86400' });
      const asked = request.headers['access-control-request-headers'];
      if (asked) reply.header('access-control-allow-headers', asked);
    }
    return reply.code(204).send();
  });
};
