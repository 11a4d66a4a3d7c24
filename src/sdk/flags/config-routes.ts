/**
 * The public flag endpoints that stay on fastify: the remote config at `/array/<token>/config[.js]`
 * and the local-evaluation feed `/flags/definitions`. `/decide` and `/flags` are answered by the
 * fast lane (flags-routes.ts). CORS comes from the server's public CORS policy (src/http/cors.ts).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { authorizeFeedRequest, localEvaluationResponse } from '../../flags/local-evaluation.js';
import { notFound, validationError } from '../../posthog/errors.js';
import type { Team } from '../../environments/models.js';
import { hasActiveFlags } from './flags-routes.js';
import { buildRemoteConfig, remoteConfigScript } from './remote-config.js';
import { remoteConfigSurveys } from '../../surveys/public-cache.js';

/** PostHog's check_token: at most 200 characters, letters, digits, `_` and `-` (older tokens are no `phc_…`). */
const REMOTE_CONFIG_TOKEN = /^[a-zA-Z0-9_-]{1,200}$/;

export const flagsConfigRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/flags/definitions', async (request, reply) => {
    const team = await authorizeFeedRequest(ctx, request);
    return localEvaluationResponse(ctx, team, request, reply);
  });

  /**
   * The environment of `/array/<token>/...`, answered as PostHog's RemoteConfig views answer
   * (posthog/api/remote_config.py): a token that cannot be one is a 400 "Invalid token", an
   * unknown one a plain 404, not the 401 of the key-checked endpoints. These views take no
   * credentials: there is nothing to authenticate, only a config to find.
   */
  async function teamOf(request: FastifyRequest): Promise<Team> {
    const token = (request.params as { token: string }).token;
    if (!REMOTE_CONFIG_TOKEN.test(token)) throw validationError('Invalid token');
    const team = await ctx.teams.byApiToken(token);
    if (!team) throw notFound();
    return team;
  }

  // As on /flags: the surveys failing to load leaves them out rather than failing the whole config.
  async function surveysOf(request: FastifyRequest, team: Team) {
    return remoteConfigSurveys(ctx, team).catch((error: unknown) => {
      request.log.warn({ err: error, teamId: team.id }, 'remote config without surveys: they failed to load');
      return { surveys: false as const };
    });
  }

  app.get('/array/:token/config', async (request) => {
    const team = await teamOf(request);
    return buildRemoteConfig(team, await hasActiveFlags(ctx, team), await surveysOf(request, team));
  });

  app.get('/array/:token/config.js', async (request, reply) => {
    const team = await teamOf(request);
    return reply
      .type('application/javascript; charset=utf-8')
      .send(remoteConfigScript(team, await hasActiveFlags(ctx, team), await surveysOf(request, team)));
  });
};
