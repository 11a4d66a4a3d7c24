/**
 * The public flag endpoints that stay on fastify: the remote config at `/array/<token>/config[.js]`
 * and the local-evaluation feed `/flags/definitions`. `/decide` and `/flags` are answered by the
 * fast lane (answer.ts). CORS comes from the server's public CORS policy (src/http/cors.ts).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { authorizeFeedRequest, invalidProjectApiKey, localEvaluationResponse } from '../flags/local-evaluation.js';
import type { Team } from '../tenancy/models.js';
import { hasActiveFlags } from './answer.js';
import { buildRemoteConfig, remoteConfigScript } from './remote-config.js';

export const decideRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/flags/definitions', async (request, reply) => {
    const team = await authorizeFeedRequest(ctx, request);
    return localEvaluationResponse(ctx, team, request, reply);
  });

  async function teamOf(request: FastifyRequest): Promise<Team> {
    const team = await ctx.teams.byApiToken((request.params as { token: string }).token);
    if (!team) throw invalidProjectApiKey();
    return team;
  }

  app.get('/array/:token/config', async (request) => {
    const team = await teamOf(request);
    return buildRemoteConfig(team, await hasActiveFlags(ctx, team));
  });

  app.get('/array/:token/config.js', async (request, reply) => {
    const team = await teamOf(request);
    return reply.type('application/javascript; charset=utf-8').send(remoteConfigScript(team, await hasActiveFlags(ctx, team)));
  });
};
