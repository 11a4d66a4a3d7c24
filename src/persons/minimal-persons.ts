import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { Team } from '../environments/models.js';
import { serializeMinimalPerson } from './serialize.js';
import { getPersonsByDistinctIds } from './batch-store.js';
import { distinctIdsOf } from './store.js';

/** A person as PostHog's MinimalPersonSerializer prints it (batch lookups, recordings). */
export type MinimalPerson = ReturnType<typeof serializeMinimalPerson>;

/**
 * The persons behind these distinct ids, keyed by the distinct id, printed minimal: one query for
 * the persons, one for their distinct ids. Ids without a person are absent.
 */
export async function minimalPersonsByDistinctId(
  db: Kysely<Schema>,
  team: Team,
  distinctIds: string[],
): Promise<Map<string, MinimalPerson>> {
  const out = new Map<string, MinimalPerson>();
  const unique = [...new Set(distinctIds)];
  if (unique.length === 0) return out;
  const persons = await getPersonsByDistinctIds(db, team.id, unique);
  const ids = await distinctIdsOf(db, [...new Set([...persons.values()].map((p) => p.id))]);
  for (const [distinctId, person] of persons) out.set(distinctId, serializeMinimalPerson(team, person, ids.get(person.id) ?? [distinctId]));
  return out;
}
