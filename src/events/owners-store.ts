/**
 * The persons events are shown with (`include_person`): the person each distinct id belongs to
 * now, as PostHog's `get_persons_mapped_by_distinct_id`, read here so the events API depends only
 * on the tables.
 */
import type { Database } from '../platform/db/database.js';
import { fromJson } from '../platform/db/values.js';

export interface EventPerson {
  id: number;
  isIdentified: boolean;
  properties: Record<string, unknown>;
  /** In the order the persons API lists them (PostHog: creation order); the first is shown. */
  distinctIds: string[];
}

/** Ids per query: well under both databases' bound-parameter limits. */
const BATCH = 500;

export async function ownersOf(database: Database, teamId: number, distinctIds: string[]): Promise<Map<string, EventPerson>> {
  const { db } = database;
  const wanted = [...new Set(distinctIds)];
  const byId = new Map<number, EventPerson>();
  const owners = new Map<string, EventPerson>();
  for (let i = 0; i < wanted.length; i += BATCH) {
    const rows = await db
      .selectFrom('person_distinct_ids as pd')
      .innerJoin('persons as p', 'p.id', 'pd.person_id')
      .select(['pd.distinct_id', 'p.id', 'p.is_identified', 'p.properties'])
      .where('pd.team_id', '=', teamId)
      .where('p.team_id', '=', teamId)
      .where('pd.distinct_id', 'in', wanted.slice(i, i + BATCH))
      .execute();
    for (const row of rows) {
      const id = Number(row.id);
      let person = byId.get(id);
      if (!person) {
        person = {
          id,
          isIdentified: Boolean(row.is_identified),
          properties: fromJson<Record<string, unknown>>(row.properties) ?? {},
          distinctIds: [],
        };
        byId.set(id, person);
      }
      owners.set(row.distinct_id, person);
    }
  }
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db
      .selectFrom('person_distinct_ids')
      .select(['person_id', 'distinct_id'])
      .where('person_id', 'in', ids.slice(i, i + BATCH))
      .execute();
    for (const row of rows) byId.get(Number(row.person_id))?.distinctIds.push(row.distinct_id);
  }
  return owners;
}
