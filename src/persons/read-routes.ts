/**
 * The persons API's read-only actions (PostHog's PersonViewSet `values`, `activity`,
 * `all_activity`, `batch_by_distinct_ids`, `batch_by_uuids`, `cohorts`, `deletion_status` and
 * `properties_at_time`), under both /api/projects/:id/ and /api/environments/:id/. Registered
 * before personRoutes; their static segments win over `:person_id` either way.
 */
import type { FastifyPluginAsync } from 'fastify';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import type { AppContext } from '../context.js';
import { listPersonEventDeletions, type DeletionStatusFilter, type PersonEventDeletionRow } from '../deletions/person-event-status.js';
import { paginate, readPage } from '../http/pagination.js';
import { drfDateTime } from '../lib/python-datetime.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { notFound, validationError } from '../http/errors.js';
import { isPlainObject } from '../ingestion/core/types.js';
import { canonicalUuid, queryParam } from '../lib/python-values.js';
import { PERSON_ACTIVITY_SCOPE } from './actions.js';
import { pathPerson } from './lookup.js';
import { personPropertyValues } from './property-values.js';
import { minimalPersonsByDistinctId } from './minimal-persons.js';
import { cohortsOfPerson } from './person-cohorts.js';
import { readPointInTime, propertyUpdatesUntil, rebuildProperties } from './properties-at-time.js';
import { serializeMinimalPerson, serializePerson } from './serialize.js';
import { distinctIdsOf, getPersonByDistinctId, getPersonByRef, getPersonByUuid, getPersonsByUuids } from './store.js';

const DELETION_STATUSES: readonly DeletionStatusFilter[] = ['pending', 'completed', 'all'];

/** PostHog's DeletionStatusQueryParamsSerializer: `status` (default `all`) and `person_uuid`, with DRF's messages. */
function readDeletionStatusParams(query: unknown): { status: DeletionStatusFilter; personUuid: string | undefined } {
  const status = queryParam(query, 'status') ?? 'all';
  if (!DELETION_STATUSES.includes(status as DeletionStatusFilter)) throw validationError(`"${status}" is not a valid choice.`, 'status', 'invalid_choice');
  const uuidText = queryParam(query, 'person_uuid');
  const personUuid = uuidText === undefined ? undefined : canonicalUuid(uuidText);
  if (personUuid === null) throw validationError('Must be a valid UUID.', 'person_uuid');
  return { status: status as DeletionStatusFilter, personUuid };
}

/** PostHog's AsyncDeletionStatusSerializer. */
function serializeDeletionStatus(row: PersonEventDeletionRow) {
  return {
    person_uuid: row.person_uuid,
    created_at: drfDateTime(row.created_at),
    status: row.verified_at === null ? 'pending' : 'completed',
    delete_verified_at: row.verified_at === null ? null : drfDateTime(row.verified_at),
  };
}

/** PostHog's cap on a batch lookup. */
const MAX_BATCH_LOOKUP = 200;

/** A batch lookup's list: its first 200 items; none when it is missing or not a list. */
function batchList(body: unknown, field: string): unknown[] {
  const value = isPlainObject(body) ? body[field] : undefined;
  return Array.isArray(value) ? value.slice(0, MAX_BATCH_LOOKUP) : [];
}

export const personReadRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/persons/values/`, { config: teamAccess('person:read', base) }, async (request, reply) => {
      const results = await personPropertyValues(ctx.database, request.team!.id, queryParam(request.query, 'key'), queryParam(request.query, 'value'));
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
      return { results: Object.fromEntries([...persons.values()].map((person) => [person.uuid, serializeMinimalPerson(team, person, person.distinctIds)])) };
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
      const team = request.team!;
      const refuse = (status: 400 | 404, message: string) =>
        reply.code(status).send({ ...(status === 400 ? validationError(message) : notFound(message)).toEnvelope(), error: message });
      // Python's truthiness: an empty parameter is no parameter.
      const distinctId = queryParam(request.query, 'distinct_id') || undefined;
      const personId = queryParam(request.query, 'person_id') || undefined;
      const timestampText = queryParam(request.query, 'timestamp') || undefined;
      const includeSetOnce = (queryParam(request.query, 'include_set_once') ?? 'false').toLowerCase() === 'true';
      if (distinctId && personId) return refuse(400, 'Cannot provide both distinct_id and person_id - choose one');
      if (!distinctId && !personId) return refuse(400, 'Must provide either distinct_id or person_id parameter');
      if (!timestampText) return refuse(400, 'timestamp parameter is required (ISO format: 2023-06-15T14:30:00Z)');
      const at = readPointInTime(timestampText);
      if (!at) return refuse(400, 'Invalid timestamp format. Use ISO format like 2023-06-15T14:30:00Z');
      const uuid = personId === undefined ? null : canonicalUuid(personId);
      const person = distinctId !== undefined ? await getPersonByDistinctId(db, team.id, distinctId) : uuid ? await getPersonByUuid(db, team.id, uuid) : undefined;
      const distinctIds = person ? ((await distinctIdsOf(db, [person.id])).get(person.id) ?? []) : [];
      if (!person || distinctIds.length === 0) {
        return refuse(404, distinctId !== undefined ? `Person with distinct_id '${distinctId}' not found` : `Person with person_id '${personId}' not found`);
      }
      const updates = await propertyUpdatesUntil(ctx.database, team.id, distinctIds, at, includeSetOnce);
      return {
        ...serializePerson(team, person, distinctIds),
        properties: rebuildProperties(updates, includeSetOnce),
        point_in_time_metadata: {
          queried_timestamp: at.isoformat,
          include_set_once: includeSetOnce,
          distinct_id_used: distinctId ?? null,
          person_id_used: personId ?? null,
          query_mode: distinctId !== undefined ? 'distinct_id' : 'person_id',
          distinct_ids_queried: distinctIds,
          distinct_ids_count: distinctIds.length,
        },
      };
    });

    app.get(`${base.base}/persons/:person_id/activity/`, { config: teamAccess('activity_log:read', base) }, async (request) => {
      const params = readActivityPageParams(request.query);
      const team = request.team!;
      const person = await pathPerson(ctx, request);
      return activityPage(request, db, { scope: PERSON_ACTIVITY_SCOPE, teamId: team.id, itemId: String(person.id) }, params);
    });
  }
};
