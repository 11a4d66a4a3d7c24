import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404 } from '../posthog/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { drfBoolean } from '../posthog/drf-fields.js';
import { createSurvey, editSurvey, removeSurvey } from './service.js';
import { serializeSurvey, serializeWrittenSurvey, SurveyLookups } from './serializers.js';
import { getSurvey, listSurveys, type Survey } from './store.js';

type Query = Record<string, string | string[] | undefined>;

/** Django's `request.GET.get`: the last of a repeated parameter. */
function param(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** DRF SearchFilter's terms: split on whitespace and commas, NULs removed. */
function searchTerms(query: Query): string[] {
  const search = param(query, 'search');
  return search
    ? search
        .replaceAll('\u0000', '')
        .split(/[\s,]+/)
        .filter(Boolean)
    : [];
}

export const surveyRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  const load = (request: FastifyRequest): Promise<Survey> =>
    loadOr404(getSurvey(db, request.team!.projectId, (request.params as { id: string }).id));

  for (const base of TEAM_ROUTE_BASES) {
    const url = `${base.base}/surveys`;
    const read = { config: teamAccess('survey:read', base) };
    const write = { config: teamAccess('survey:write', base) };
    const activity = { config: teamAccess('activity_log:read', base) };

    app.get(`${url}/`, read, async (request) => {
      const query = request.query as Query;
      const page = readPage(query);
      const archivedParam = param(query, 'archived');
      const archived = archivedParam === undefined ? undefined : drfBoolean(archivedParam);
      const { count, surveys } = await listSurveys(db, ctx.database.dialect, request.team!.projectId, {
        ...page,
        search: searchTerms(query),
        ...(archived === undefined ? {} : { archived }),
      });
      const lookups = new SurveyLookups(db, request.team!.projectId);
      return paginate(request, page, count, await Promise.all(surveys.map((s) => serializeSurvey(s, lookups))));
    });

    app.post(`${url}/`, write, async (request, reply) => {
      const survey = await createSurvey(ctx, request.team!, request.principal!.user, request.body);
      reply.code(201);
      return serializeWrittenSurvey(survey, new SurveyLookups(db, survey.projectId));
    });

    // The surveys' history and one survey's (SurveyViewSet's `activity` actions).
    app.get(`${url}/activity/`, activity, async (request) => {
      const params = readActivityPageParams(request.query);
      return activityPage(request, db, { scope: 'Survey', teamId: request.team!.id }, params);
    });

    app.get(`${url}/:id/activity/`, activity, async (request) => {
      const params = readActivityPageParams(request.query);
      const survey = await load(request);
      return activityPage(request, db, { scope: 'Survey', teamId: request.team!.id, itemId: survey.id }, params);
    });

    app.get(`${url}/:id/`, read, async (request) => serializeSurvey(await load(request), new SurveyLookups(db, request.team!.projectId)));

    // PostHog's SurveyViewSet uses the create/update serializer for PATCH; PUT goes through the same rules.
    for (const method of ['PATCH', 'PUT'] as const) {
      app.route({
        method,
        url: `${url}/:id/`,
        ...write,
        handler: async (request) => {
          const updated = await editSurvey(ctx, request.team!, request.principal!.user, await load(request), request.body);
          return serializeWrittenSurvey(updated, new SurveyLookups(db, updated.projectId));
        },
      });
    }

    app.delete(`${url}/:id/`, write, async (request, reply) => {
      await removeSurvey(ctx, request.team!, request.principal!.user, await load(request));
      return reply.code(204).send();
    });
  }
};
