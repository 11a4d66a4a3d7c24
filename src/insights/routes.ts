import { mapInOrder } from '../lib/map-in-order.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404, validationError } from '../posthog/errors.js';
import { pathId } from '../http/path-id.js';
import { paginate, readPage } from '../http/pagination.js';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { createInsight, editInsight, serializeInsight, serializeInsightBasic, PageLookups } from './service.js';
import { getInsight, listInsights, type Insight, type InsightListFilters } from './store.js';
import { strToBool } from '../posthog/python-values.js';

/**
 * `?basic=`, read by PostHog's str_to_bool on the list and on one insight: InsightBasicSerializer,
 * whose insights carry no result, so none is computed (the dashboard's insight picker lists a
 * hundred at once).
 */
function isBasic(request: FastifyRequest): boolean {
  return strToBool((request.query as Record<string, unknown>).basic);
}

/**
 * The list's filters, as PostHog's InsightViewSet `_filter_request` reads them: `favorited` (any
 * value) keeps favorited insights, `user` (any value) the caller's, `created_by` a user id's,
 * `saved` (str_to_bool) all of Hoglet's insights, which are all saved, or none; `search` looks in
 * the name, the description and the tags.
 */
function readListFilters(query: Record<string, string | undefined>, userId: number): InsightListFilters {
  let createdById: number | undefined;
  if (query.created_by !== undefined) {
    createdById = Number(query.created_by.trim());
    // Past a safe integer the id would reach the database as 1e+21, which a bigint cannot read.
    if (!/^-?\d+$/.test(query.created_by.trim()) || !Number.isSafeInteger(createdById))
      throw validationError('A valid integer is required.', 'created_by');
  }
  if (query.user !== undefined) createdById = userId;
  return {
    includeDeleted: query.deleted === 'true',
    search: query.search,
    // PostHog's `short_id` filter: how the app finds the insight of a `/insights/:shortId` link.
    shortId: query.short_id,
    favoritedOnly: query.favorited !== undefined,
    createdById,
    none: query.saved !== undefined && !strToBool(query.saved),
  };
}

export const insightRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  const load = (request: FastifyRequest): Promise<Insight> => loadOr404(getInsight(db, request.team!.id, pathId(request)));

  for (const base of TEAM_ROUTE_BASES) {
    const url = `${base.base}/insights`;
    const read = { config: teamAccess('insight:read', base) };
    const write = { config: teamAccess('insight:write', base) };
    // PostHog's `activity` actions declare `activity_log:read`, not the insight's own scope.
    const activity = { config: teamAccess('activity_log:read', base) };

    app.get(`${url}/`, read, async (request) => {
      const page = readPage(request.query);
      const query = request.query as Record<string, string | undefined>;
      const { count, insights } = await listInsights(db, request.team!.id, {
        ...readListFilters(query, request.principal!.user.id),
        ...page,
      });
      const users = new PageLookups(db);
      const basic = isBasic(request);
      const serialize = (i: (typeof insights)[number]): Promise<object> =>
        basic ? serializeInsightBasic(ctx, i, users) : serializeInsight(ctx, i, users);
      return paginate(request, page, count, await mapInOrder(insights, serialize));
    });

    app.post(`${url}/`, write, async (request, reply) => {
      const insight = await createInsight(ctx, request.team!, request.principal!.user, request.body);
      reply.code(201);
      return serializeInsight(ctx, insight, new PageLookups(db));
    });

    // The environment's insight history, then one insight's (InsightViewSet's `activity` actions), newest first.
    app.get(`${url}/activity/`, activity, async (request) => {
      const params = readActivityPageParams(request.query);
      return activityPage(request, db, { scope: 'Insight', teamId: request.team!.id }, params);
    });

    app.get(`${url}/:id/activity/`, activity, async (request) => {
      const params = readActivityPageParams(request.query);
      const insight = await load(request);
      return activityPage(request, db, { scope: 'Insight', teamId: request.team!.id, itemId: String(insight.id) }, params);
    });

    app.get(`${url}/:id/`, read, async (request) => {
      const insight = await load(request);
      const users = new PageLookups(db);
      return isBasic(request) ? serializeInsightBasic(ctx, insight, users) : serializeInsight(ctx, insight, users);
    });

    app.patch(`${url}/:id/`, write, async (request) => {
      const updated = await editInsight(ctx, request.team!, request.principal!.user, await load(request), request.body);
      return serializeInsight(ctx, updated, new PageLookups(db));
    });

    // PostHog's ForbidDestroyModel: hard deletes are refused; PATCH `deleted: true` instead.
    app.delete(`${url}/:id/`, write, async (_request, reply) => reply.code(405).send());
  }
};
