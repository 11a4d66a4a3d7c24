import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { actorOf } from '../environments/service.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { deletePersons, readBulkDeleteBody, resolveBulkDeleteTarget } from './deletion.js';
import { parsePersonListQuery } from './list-params.js';
import { listPersons } from './list-store.js';
import { personListResults } from './list-results.js';
import { serializePerson } from './serialize.js';
import { ApiError, validationError } from '../posthog/errors.js';

import {
  deletePersonProperty,
  readDeletePropertyBody,
  readPersonUpdateBody,
  readSplitBody,
  readUpdatePropertyBody,
  setPersonProperties,
  splitPerson,
  updatePersonProperty,
} from './actions.js';
import { pathPerson } from './lookup.js';
import { distinctIdsOf } from './store.js';
import { isJsonObject } from '../lib/json-object.js';

/** PostHog tests the DELETE flags for presence (`"delete_events" in request.GET`): any value counts. */
const present = (request: FastifyRequest, name: string) => Object.hasOwn((request.query ?? {}) as object, name);

export const personRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/persons/`, { config: teamAccess('person:read', base) }, async (request) => {
      const query = parsePersonListQuery(request.query);
      const page = readPage(request.query);
      const team = request.team!;
      const { count, persons } = await listPersons(ctx.database, team, query, page);
      return paginate(request, page, count, await personListResults(db, team, persons));
    });

    app.get(`${base.base}/persons/:person_id/`, { config: teamAccess('person:read', base) }, async (request) => {
      const team = request.team!;
      const person = await pathPerson(ctx, request);
      const ids = await distinctIdsOf(db, [person.id]);
      return serializePerson(team, person, ids.get(person.id) ?? []);
    });

    /**
     * PostHog's destroy: 202 with no body. `delete_events` and `delete_recordings` queue the
     * person's events and recordings for deletion in the background, `keep_person` keeps the person
     * itself (only what was asked for goes); see deletion.ts.
     */
    app.delete(`${base.base}/persons/:person_id/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const person = await pathPerson(ctx, request);
      const deletion = {
        deleteEvents: present(request, 'delete_events'),
        deleteRecordings: present(request, 'delete_recordings'),
        keepPerson: present(request, 'keep_person'),
      };
      await deletePersons(db, team, actorOf(request.principal!), [person], deletion);
      request.log.info({ team: team.id, person: person.uuid, ...deletion }, 'person deleted');
      return reply.code(202).send();
    });

    /** PostHog's create: persons come from events only. */
    app.post(`${base.base}/persons/`, { config: teamAccess('person:write', base) }, async () => {
      throw new ApiError(
        405,
        'invalid_request',
        'method_not_allowed',
        'Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.',
      );
    });

    /** PostHog's update (PATCH and PUT alike): `properties` set over the person's through a `$set` event; 202. */
    for (const method of ['PATCH', 'PUT'] as const) {
      app.route({
        method,
        url: `${base.base}/persons/:person_id/`,
        config: teamAccess('person:write', base),
        handler: async (request, reply) => {
          const team = request.team!;
          const properties = readPersonUpdateBody(request.body);
          const person = await pathPerson(ctx, request);
          await setPersonProperties(ctx, request.principal!, team, person, properties);
          return reply.code(202).send();
        },
      });
    }

    /** PostHog's delete_events and delete_recordings (deprecated there, still served): the person stays; 202. */
    for (const [action, deletion] of [
      ['delete_events', { deleteEvents: true, deleteRecordings: false, keepPerson: true }],
      ['delete_recordings', { deleteEvents: false, deleteRecordings: true, keepPerson: true }],
    ] as const) {
      app.post(`${base.base}/persons/:person_id/${action}/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
        const team = request.team!;
        const person = await pathPerson(ctx, request);
        await deletePersons(db, team, actorOf(request.principal!), [person], deletion);
        request.log.info({ team: team.id, person: person.uuid, ...deletion }, `person ${action}`);
        return reply.code(202).send();
      });
    }

    /**
     * PostHog's reset_person_distinct_id lets a deleted person's distinct id be used again. Hoglet
     * frees a deleted person's ids at once, so there is nothing to reset: the body is checked, 202.
     */
    app.post(`${base.base}/persons/reset_person_distinct_id/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const distinctId = (isJsonObject(request.body) ? request.body : {}).distinct_id;
      if (typeof distinctId !== 'string' || distinctId === '') throw validationError('distinct_id is required');
      return reply.code(202).send();
    });

    /** PostHog's update_property: `{key, value}` set through a `$set` event; 202 with no body. */
    app.post(`${base.base}/persons/:person_id/update_property/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const update = readUpdatePropertyBody(request.body);
      const person = await pathPerson(ctx, request);
      await updatePersonProperty(ctx, request.principal!, team, person, update);
      return reply.code(202).send();
    });

    /** PostHog's delete_property: `{"$unset": key}` removed through a `$delete_person_property` event; 201. */
    app.post(`${base.base}/persons/:person_id/delete_property/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const person = await pathPerson(ctx, request);
      await deletePersonProperty(ctx, request.principal!, team, person, readDeletePropertyBody(request.body));
      return reply.code(201).send({ success: true });
    });

    /** PostHog's split: ids leave the person, each for a new person of its own; 201. */
    app.post(`${base.base}/persons/:person_id/split/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const person = await pathPerson(ctx, request);
      await splitPerson(ctx, request.principal!, team, person.id, readSplitBody(request.body));
      request.log.info({ team: team.id, person: person.uuid }, 'person split');
      return reply.code(201).send({ success: true });
    });

    /**
     * PostHog's bulk_delete: up to 1000 persons by uuid (`ids`) or by distinct id, with the same
     * options in the JSON body; 202 with a summary of what was found, deleted and queued.
     */
    app.post(`${base.base}/persons/bulk_delete/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const { target, deletion } = readBulkDeleteBody(request.body);
      const persons = await resolveBulkDeleteTarget(db, team.id, target);
      const deleted = await deletePersons(db, team, actorOf(request.principal!), persons, deletion);
      request.log.info({ team: team.id, persons: persons.length, ...deletion }, 'persons bulk deleted');
      return reply.code(202).send({
        persons_found: persons.length,
        persons_deleted: deleted,
        events_queued_for_deletion: deletion.deleteEvents && persons.length > 0,
        recordings_queued_for_deletion: deletion.deleteRecordings && persons.length > 0,
        deletion_errors: [],
      });
    });
  }
};
