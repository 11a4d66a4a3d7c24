/**
 * Survey results over HTTP: `GET …/surveys/:id/results/` (the survey page's summary),
 * `GET …/surveys/:id/stats/` and `GET …/surveys/responses_count/` in PostHog's shapes, all with
 * scope `survey:read`, under `/api/projects/:id/` and `/api/environments/:id/`. The survey is the
 * project's; its events are the environment's of the URL.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../../http/team-routes.js';
import { effectiveTimezone } from '../../lib/zoned-time.js';
import { loadOr404, validationError } from '../../posthog/errors.js';
import { queryParam } from '../../posthog/python-values.js';
import { loadSurveyDefinition, surveyStartDates } from './surveys-store.js';
import { SurveyResultsError, surveyResponseCountsAnswer, surveyResultsAnswer, surveyStatsAnswer } from './service.js';

function asApiError(error: unknown): unknown {
  return error instanceof SurveyResultsError ? validationError(error.message, error.attr) : error;
}

export const surveyResultsRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const load = (request: FastifyRequest) => loadOr404(loadSurveyDefinition(ctx, request.team!, (request.params as { id: string }).id));

  for (const base of TEAM_ROUTE_BASES) {
    const read = { config: teamAccess('survey:read', base) };

    app.get(`${base.base}/surveys/responses_count/`, read, async (request) => {
      const starts = await surveyStartDates(ctx, request.team!);
      return surveyResponseCountsAnswer(ctx.analytics, request.team!.id, starts);
    });

    app.get(`${base.base}/surveys/:id/results/`, read, async (request) => {
      const survey = await load(request);
      const dates = { date_from: queryParam(request.query, 'date_from'), date_to: queryParam(request.query, 'date_to') };
      const timezone = effectiveTimezone(request.team!.settings.timezone);
      return surveyResultsAnswer(ctx.analytics, request.team!.id, survey, dates, new Date(), timezone).catch((error: unknown) => {
        throw asApiError(error);
      });
    });

    app.get(`${base.base}/surveys/:id/stats/`, read, async (request) => {
      const survey = await load(request);
      const dates = { date_from: queryParam(request.query, 'date_from'), date_to: queryParam(request.query, 'date_to') };
      return surveyStatsAnswer(ctx.analytics, request.team!.id, survey, dates, new Date()).catch((error: unknown) => {
        throw asApiError(error);
      });
    });
  }
};
