import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404 } from '../posthog/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { pathId } from '../http/path-id.js';
import { PageLookups } from '../insights/service.js';
import { createDashboard, editDashboard, serializeDashboard, serializeDashboardBasic } from './service.js';
import { getDashboard, listDashboards, type Dashboard } from './store.js';

export const dashboardRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  const load = (request: FastifyRequest): Promise<Dashboard> => loadOr404(getDashboard(db, request.team!.id, pathId(request)));

  for (const base of TEAM_ROUTE_BASES) {
    const url = `${base.base}/dashboards`;
    const read = { config: teamAccess('dashboard:read', base) };
    const write = { config: teamAccess('dashboard:write', base) };
    const activity = { config: teamAccess('activity_log:read', base) };

    app.get(`${url}/`, read, async (request) => {
      const page = readPage(request.query);
      const includeDeleted = (request.query as Record<string, string | undefined>).deleted === 'true';
      const { count, dashboards } = await listDashboards(db, request.team!.id, { includeDeleted, ...page });
      const users = new PageLookups(db);
      return paginate(request, page, count, await Promise.all(dashboards.map((d) => serializeDashboardBasic(d, users))));
    });

    app.post(`${url}/`, write, async (request, reply) => {
      const dashboard = await createDashboard(ctx, request.team!, request.principal!.user, request.body);
      reply.code(201);
      return serializeDashboard(ctx, dashboard, new PageLookups(db));
    });

    // The dashboards' history and one dashboard's, in the shape of the insights' and flags' `activity` actions.
    app.get(`${url}/activity/`, activity, async (request) => {
      const params = readActivityPageParams(request.query);
      return activityPage(request, db, { scope: 'Dashboard', teamId: request.team!.id }, params);
    });

    app.get(`${url}/:id/activity/`, activity, async (request) => {
      const params = readActivityPageParams(request.query);
      const dashboard = await load(request);
      return activityPage(request, db, { scope: 'Dashboard', teamId: request.team!.id, itemId: String(dashboard.id) }, params);
    });

    app.get(`${url}/:id/`, read, async (request) => serializeDashboard(ctx, await load(request), new PageLookups(db)));

    app.patch(`${url}/:id/`, write, async (request) => {
      const updated = await editDashboard(ctx, request.team!, request.principal!.user, await load(request), request.body);
      return serializeDashboard(ctx, updated, new PageLookups(db));
    });

    // PostHog's ForbidDestroyModel: hard deletes are refused; PATCH `deleted: true` instead.
    app.delete(`${url}/:id/`, write, async (_request, reply) => reply.code(405).send());
  }
};
