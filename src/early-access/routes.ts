import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { loadOr404 } from '../posthog/errors.js';
import { createFeature, editFeature, removeFeature, serializeFeature } from './service.js';
import { getFeature, listFeatures, type EarlyAccessFeature } from './store.js';

/** PostHog's EarlyAccessFeatureViewSet, under both the project and the environment base. */
export const earlyAccessRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  const load = (request: FastifyRequest): Promise<EarlyAccessFeature> =>
    loadOr404(getFeature(db, request.team!.projectId, (request.params as { id: string }).id));

  for (const base of TEAM_ROUTE_BASES) {
    const url = `${base.base}/early_access_feature`;
    const read = { config: teamAccess('early_access_feature:read', base) };
    const write = { config: teamAccess('early_access_feature:write', base) };

    app.get(`${url}/`, read, async (request) => {
      const page = readPage(request.query);
      const { count, features } = await listFeatures(db, request.team!.projectId, page);
      return paginate(request, page, count, await Promise.all(features.map((f) => serializeFeature(ctx, f))));
    });

    app.post(`${url}/`, write, async (request, reply) => {
      const feature = await createFeature(ctx, request.team!, request.principal!.user, request.body);
      reply.code(201);
      return serializeFeature(ctx, feature);
    });

    app.get(`${url}/:id/`, read, async (request) => serializeFeature(ctx, await load(request)));

    for (const method of ['PATCH', 'PUT'] as const) {
      app.route({
        method,
        url: `${url}/:id/`,
        ...write,
        handler: async (request) => {
          const feature = await load(request);
          return serializeFeature(ctx, await editFeature(ctx, request.team!, request.principal!.user, feature, request.body, method));
        },
      });
    }

    app.delete(`${url}/:id/`, write, async (request, reply) => {
      await removeFeature(ctx, request.team!, request.principal!.user, await load(request));
      return reply.code(204).send();
    });
  }
};
