import { queueDeletion } from '../deletions/store.js';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import type { Team } from '../tenancy/models.js';
import { deletePersonRow, distinctIdsOf, getPersonByRef, listPersons, type Person } from './store.js';

const DEFAULT_DISPLAY_PROPERTIES = ['email', 'name', 'username'];

/** PostHog's display name: the first of the environment's display properties, else a distinct id. */
export function personDisplayName(team: Team, person: Person, distinctIds: string[]): string {
  const configured = team.settings.person_display_name_properties;
  const keys = Array.isArray(configured) && configured.length > 0 ? (configured as string[]) : DEFAULT_DISPLAY_PROPERTIES;
  for (const key of keys) {
    const value = person.properties[key];
    if (typeof value === 'string' && value) return value;
  }
  return distinctIds[0] ?? person.uuid;
}

export function serializePerson(team: Team, person: Person, distinctIds: string[]) {
  return {
    id: person.id,
    name: personDisplayName(team, person, distinctIds),
    distinct_ids: distinctIds,
    properties: person.properties,
    created_at: person.createdAt,
    uuid: person.uuid,
    is_identified: person.isIdentified,
  };
}

async function findPerson(ctx: AppContext, teamId: number, id: string): Promise<Person> {
  const person = await getPersonByRef(ctx.database.db, teamId, id);
  if (!person) throw notFound();
  return person;
}

export const personRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/persons/`, { config: teamAccess('person:read', base) }, async (request) => {
      const q = request.query as { distinct_id?: string; search?: string };
      const page = readPage(request.query);
      const team = request.team!;
      const { count, persons } = await listPersons(db, team.id, { distinctId: q.distinct_id, search: q.search?.trim() || undefined }, page);
      const ids = await distinctIdsOf(db, persons.map((p) => p.id));
      return paginate(request, page, count, persons.map((p) => serializePerson(team, p, ids.get(p.id) ?? [])));
    });

    app.get(`${base.base}/persons/:person_id/`, { config: teamAccess('person:read', base) }, async (request) => {
      const team = request.team!;
      const person = await findPerson(ctx, team.id, (request.params as { person_id: string }).person_id);
      const ids = await distinctIdsOf(db, [person.id]);
      return serializePerson(team, person, ids.get(person.id) ?? []);
    });

    app.delete(`${base.base}/persons/:person_id/`, { config: teamAccess('person:write', base) }, async (request, reply) => {
      const team = request.team!;
      const person = await findPerson(ctx, team.id, (request.params as { person_id: string }).person_id);
      const deleteEvents = (request.query as { delete_events?: string }).delete_events === 'true';
      // Its events (not indexed by person: a walk through all of the environment's) are deleted in
      // the background, queued in the same transaction (deletions/runner.ts), as PostHog does.
      await ctx.database.db.transaction().execute(async (trx) => {
        if (deleteEvents) {
          const distinctIds = (await distinctIdsOf(trx, [person.id])).get(person.id) ?? [];
          await queueDeletion(trx, { teamId: team.id, kind: 'person_events', target: person.uuid, distinctIds });
        }
        await deletePersonRow(trx, team.id, person.id);
      });
      request.log.info({ team: team.id, person: person.uuid, deleteEvents }, 'person deleted');
      return reply.code(204).send();
    });
  }
};
