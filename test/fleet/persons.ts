import type { Kysely } from 'kysely';
import { fromBool, fromJson } from '../../src/platform/db/values.js';
import type { Schema } from '../../src/platform/db/schema.js';

/** A person as the comparison sees it: its distinct ids (sorted), properties and whether identified. */
export interface PersonGroup {
  distinctIds: string[];
  properties: Record<string, unknown>;
  isIdentified: boolean;
}

/**
 * Properties that name the event that created the person. With the distinct ids of one person in
 * different queue partitions, whichever id's partition came first created it (as in PostHog): not
 * a property of the input.
 */
const ORDER_DEPENDENT = ['$creator_event_uuid'];

/** An environment's persons with their distinct ids, read from the SQL database, sorted by their first id. */
export async function personsByDistinctIds(db: Kysely<Schema>, teamId: number): Promise<PersonGroup[]> {
  const persons = await db.selectFrom('persons').select(['id', 'properties', 'is_identified']).where('team_id', '=', teamId).execute();
  const ids = await db.selectFrom('person_distinct_ids').select(['person_id', 'distinct_id']).where('team_id', '=', teamId).execute();
  const idsOf = new Map<number, string[]>();
  for (const row of ids) {
    const list = idsOf.get(Number(row.person_id)) ?? [];
    list.push(row.distinct_id);
    idsOf.set(Number(row.person_id), list);
  }
  return persons
    .map((p) => {
      const properties = { ...fromJson<Record<string, unknown>>(p.properties) };
      for (const key of ORDER_DEPENDENT) delete properties[key];
      return { distinctIds: (idsOf.get(Number(p.id)) ?? []).sort(), properties, isIdentified: fromBool(p.is_identified) };
    })
    .sort((a, b) => (a.distinctIds[0] ?? '').localeCompare(b.distinctIds[0] ?? ''));
}
