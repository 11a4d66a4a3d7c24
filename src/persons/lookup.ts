import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound, validationError } from '../posthog/errors.js';
import { getPersonByRef, parsePersonRef, type Person } from './store.js';

/**
 * The person a path names (`safely_get_object`): a uuid or an integer id of the team's; something
 * that is neither is a 400 with PostHog's hint, an unknown person a 404.
 */
async function findPerson(ctx: AppContext, teamId: number, ref: string): Promise<Person> {
  if (!parsePersonRef(ref)) {
    throw validationError(
      `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${ref} instead.`,
    );
  }
  const person = await getPersonByRef(ctx.database.db, teamId, ref);
  if (!person) throw notFound();
  return person;
}

/** The person of a `…/persons/:person_id/…` route, in the request's environment (findPerson). */
export function pathPerson(ctx: AppContext, request: FastifyRequest): Promise<Person> {
  return findPerson(ctx, request.team!.id, (request.params as { person_id: string }).person_id);
}
