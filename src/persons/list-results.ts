import type { Kysely } from 'kysely';
import type { Team } from '../environments/models.js';
import type { Schema } from '../platform/db/schema.js';
import { serializePerson } from './serialize.js';
import { distinctIdsOf, type Person } from './store.js';

/** Persons as a list shows them (the persons list, a cohort's members): each with its distinct ids, read in one go. */
export async function personListResults(db: Kysely<Schema>, team: Team, persons: readonly Person[]) {
  const ids = await distinctIdsOf(
    db,
    persons.map((p) => p.id),
  );
  return persons.map((p) => serializePerson(team, p, ids.get(p.id) ?? [], 'list'));
}
