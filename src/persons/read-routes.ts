/**
 * The persons API's read-only actions (PostHog's PersonViewSet `values`, `activity` and
 * `all_activity`), under both /api/projects/:id/ and /api/environments/:id/. Registered before
 * personRoutes; their static segments (`values`, `activity`) win over `:person_id` either way.
 */
import type { FastifyPluginAsync } from 'fastify';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import type { AppContext } from '../context.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { queryParam } from '../lib/python-values.js';
import { personPropertyValues } from './property-values.js';
import { findPerson } from './lookup.js';

/** The scope name PostHog's person activity is logged under. */
export const PERSON_ACTIVITY_SCOPE = 'Person';

export const personReadRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/persons/values/`, { config: teamAccess('person:read', base) }, async (request, reply) => {
      const results = await personPropertyValues(ctx.database, request.team!.id, queryParam(request.query, 'key'), queryParam(request.query, 'value'));
      // PostHog lets clients reuse the answer for 10 seconds: the UI asks on every keystroke.
      reply.header('Cache-Control', 'max-age=10');
      return { results, refreshing: false };
    });

    app.get(`${base.base}/persons/activity/`, { config: teamAccess('activity_log:read', base) }, async (request) => {
      const params = readActivityPageParams(request.query);
      return activityPage(request, db, { scope: PERSON_ACTIVITY_SCOPE, teamId: request.team!.id }, params);
    });

    app.get(`${base.base}/persons/:person_id/activity/`, { config: teamAccess('activity_log:read', base) }, async (request) => {
      const params = readActivityPageParams(request.query);
      const team = request.team!;
      const person = await findPerson(ctx, team.id, (request.params as { person_id: string }).person_id);
      return activityPage(request, db, { scope: PERSON_ACTIVITY_SCOPE, teamId: team.id, itemId: String(person.id) }, params);
    });
  }
};
