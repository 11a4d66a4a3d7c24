import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { deletePersons, readBulkDeleteBody, resolveBulkDeleteTarget } from './deletion.js';
import { parsePersonListQuery } from './list-params.js';
import { listPersons } from './list-query.js';
import { serializePerson } from './serialize.js';
import { distinctIdsOf, getPersonByRef, parsePersonRef, type Person } from './store.js';

/**
 * The person a path names (`safely_get_object`): something that is neither a uuid nor an integer
 * is a 400 with PostHog's hint, an unknown person a 404.
 */
async function findPerson(ctx: AppContext, teamId: number, ref: string): Promise<Person> {
  const parsed = parsePersonRef(ref);
  if (!parsed) {
    throw validationError(
      `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${ref} instead.`,
    );
  }
  const person = await getPersonByRef(ctx.database.db, teamId, ref);
  if (!person) throw notFound();
  return person;
}

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
      const ids = await distinctIdsOf(db, persons.map((p) => p.id));
      return paginate(request, page, count, persons.map((p) => serializePerson(team, p, ids.get(p.id) ?? [], 'list')));
    });

    app.get(`${base.base}/persons/:person_id/`, { config: teamAccess('person:read', base) }, async (request) => {
      const team = request.team!;
      const person = await findPerson(ctx, team.id, (request.params as { person_id: string }).person_id);
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
      const person = await findPerson(ctx, team.id, (request.params as { person_id: string }).person_id);
      const deletion = {
        deleteEvents: present(request, 'delete_events'),
        deleteRecordings: present(request, 'delete_recordings'),
        keepPerson: present(request, 'keep_person'),
      };
      await deletePersons(db, team.id, [person], deletion);
      request.log.info({ team: team.id, person: person.uuid, ...deletion }, 'person deleted');
      return reply.code(202).send();
    });

    /**
     * PostHog's bulk_delete: up to 1000 persons by uuid (`ids`) or by distinct id, with the same
     * options in the JSON body; 202 with a summary of what was found, deleted and queued.
     */
    app.post(`${base.base}/persons/bulk_delete/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const { target, deletion } = readBulkDeleteBody(request.body);
      const persons = await resolveBulkDeleteTarget(db, team.id, target);
      const deleted = await deletePersons(db, team.id, persons, deletion);
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
