/**
 * The persons API's read-only actions (PostHog's PersonViewSet `values`, `activity`,
 * `all_activity`, `batch_by_distinct_ids`, `batch_by_uuids`, `cohorts`, `deletion_status` and
 * `properties_at_time`), under both /api/projects/:id/ and /api/environments/:id/. Registered
 * before personRoutes; their static segments win over `:person_id` either way.
 */
import type { FastifyPluginAsync } from 'fastify';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import type { AppContext } from '../context.js';
import { listPersonEventDeletions } from '../deletions/person-event-status-store.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { notFound, validationError } from '../posthog/errors.js';

import { queryParam } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import { PERSON_ACTIVITY_SCOPE } from './actions.js';
import { readDeletionStatusParams, serializeDeletionStatus } from './deletion.js';
import { pathPerson } from './lookup.js';
import { personPropertyValues } from './property-values-store.js';
import { minimalPersonsByDistinctId } from './minimal-persons.js';
import { cohortsOfPerson } from './person-cohorts.js';
import { propertiesAtTime } from './properties-at-time.js';
import { serializeMinimalPerson } from './serialize.js';
import { getPersonByRef, getPersonsByUuids } from './store.js';
import { isJsonObject } from '../lib/json-object.js';

/** PostHog's cap on a batch lookup. */
const MAX_BATCH_LOOKUP = 200;

/** A batch lookup's list: its first 200 items; none when it is missing or not a list. */
function batchList(body: unknown, field: string): unknown[] {
  const value = isJsonObject(body) ? body[field] : undefined;
  return Array.isArray(value) ? value.slice(0, MAX_BATCH_LOOKUP) : [];
}

export const personReadRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/persons/values/`, { config: teamAccess('person:read', base) }, async (request, reply) => {
      const results = await personPropertyValues(
        ctx.database,
        request.team!.id,
        queryParam(request.query, 'key'),
        queryParam(request.query, 'value'),
      );
      // PostHog lets clients reuse the answer for 10 seconds: the UI asks on every keystroke.
      reply.header('Cache-Control', 'max-age=10');
      return { results, refreshing: false };
    });

    /**
     * PostHog's batch_by_distinct_ids and batch_by_uuids: up to 200 persons (the rest of a longer
     * list is not read) as `{results: {key: minimal person}}`, keyed by the distinct id asked for or
     * the person's uuid; keys without a person are absent, and an empty or odd list answers none.
     */
    app.post(`${base.base}/persons/batch_by_distinct_ids/`, { config: teamAccess('person:read', base) }, async (request) => {
      const team = request.team!;
      const asked = batchList(request.body, 'distinct_ids').filter((id): id is string => typeof id === 'string');
      return { results: Object.fromEntries(await minimalPersonsByDistinctId(db, team, asked)) };
    });

    app.post(`${base.base}/persons/batch_by_uuids/`, { config: teamAccess('person:read', base) }, async (request) => {
      const team = request.team!;
      const uuids = batchList(request.body, 'uuids').map((value) => (typeof value === 'string' ? canonicalUuid(value) : null));
      if (uuids.some((uuid) => uuid === null)) throw validationError('One or more UUIDs are invalid.');
      // Read with their distinct ids already.
      const persons = await getPersonsByUuids(db, team.id, uuids as string[]);
      return {
        results: Object.fromEntries(
          [...persons.values()].map((person) => [person.uuid, serializeMinimalPerson(team, person, person.distinctIds)]),
        ),
      };
    });

    app.get(`${base.base}/persons/activity/`, { config: teamAccess('activity_log:read', base) }, async (request) => {
      const params = readActivityPageParams(request.query);
      return activityPage(request, db, { scope: PERSON_ACTIVITY_SCOPE, teamId: request.team!.id }, params);
    });

    /**
     * PostHog's cohorts action: the live cohorts the person `person_id` (id or uuid) is in, as
     * `{results: [{id, name, count}]}` (person-cohorts.ts); it needs both scopes, as PostHog's.
     */
    app.get(`${base.base}/persons/cohorts/`, { config: teamAccess(['person:read', 'cohort:read'], base) }, async (request) => {
      const team = request.team!;
      const ref = queryParam(request.query, 'person_id');
      // PostHog fails on a missing parameter with a server error (a KeyError); here it is said.
      if (ref === undefined) throw validationError('This field is required.', 'person_id', 'required');
      const person = await getPersonByRef(db, team.id, ref.trim());
      if (!person) throw notFound();
      return { results: await cohortsOfPerson(db, team, person) };
    });

    /**
     * PostHog's deletion_status: the environment's persons' event deletions (queued by a person's
     * deletion with `delete_events`), newest first, paged as DRF's LimitOffsetPagination.
     */
    app.get(`${base.base}/persons/deletion_status/`, { config: teamAccess('person:read', base) }, async (request) => {
      const filter = readDeletionStatusParams(request.query);
      const page = readPage(request.query);
      const { count, rows } = await listPersonEventDeletions(db, request.team!.id, filter, page);
      return paginate(request, page, count, rows.map(serializeDeletionStatus));
    });

    /**
     * PostHog's properties_at_time: the person (by `distinct_id`, or by `person_id`, a uuid) with
     * the properties its events had set by `timestamp` (properties-at-time.ts), and what was asked.
     * PostHog answers a refusal as `{error}`; here that key stands beside the usual envelope.
     */
    app.get(`${base.base}/persons/properties_at_time/`, { config: teamAccess('person:read', base) }, async (request, reply) => {
      const answer = await propertiesAtTime(ctx, request.team!, request.query);
      if (answer.status === 200) return answer.body;
      const refusal = answer.status === 400 ? validationError(answer.error) : notFound(answer.error);
      return reply.code(answer.status).send({ ...refusal.toEnvelope(), error: answer.error });
    });

    app.get(`${base.base}/persons/:person_id/activity/`, { config: teamAccess('activity_log:read', base) }, async (request) => {
      const params = readActivityPageParams(request.query);
      const team = request.team!;
      const person = await pathPerson(ctx, request);
      return activityPage(request, db, { scope: PERSON_ACTIVITY_SCOPE, teamId: team.id, itemId: String(person.id) }, params);
    });
  }
};
