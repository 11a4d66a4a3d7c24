import { queueDeletion } from '../deletions/store.js';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { parsePersonListQuery } from './list-params.js';
import { listPersons } from './list-query.js';
import { serializePerson } from './serialize.js';
import { deletePersonRow, distinctIdsOf, getPersonByRef, parsePersonRef, type Person } from './store.js';

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
     * PostHog's destroy: 202 with no body. `delete_events` queues the person's events for deletion,
     * `keep_person` keeps the person itself (only its events go). `delete_recordings` is not
     * honoured: Hoglet has no background deletion of a person's recordings.
     */
    app.delete(`${base.base}/persons/:person_id/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const person = await findPerson(ctx, team.id, (request.params as { person_id: string }).person_id);
      const deleteEvents = present(request, 'delete_events');
      const keepPerson = present(request, 'keep_person');
      // Its events (not indexed by person: a walk through all of the environment's) are deleted in
      // the background, queued in the same transaction (deletions/runner.ts), as PostHog does.
      await ctx.database.db.transaction().execute(async (trx) => {
        if (deleteEvents) {
          const distinctIds = (await distinctIdsOf(trx, [person.id])).get(person.id) ?? [];
          await queueDeletion(trx, { teamId: team.id, kind: 'person_events', target: person.uuid, distinctIds });
        }
        if (!keepPerson) await deletePersonRow(trx, team.id, person.id);
      });
      request.log.info({ team: team.id, person: person.uuid, deleteEvents, keepPerson }, 'person deleted');
      return reply.code(202).send();
    });
  }
};
