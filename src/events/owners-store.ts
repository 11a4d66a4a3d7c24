/**
 * The persons events are shown with (`include_person`) and filtered by (`person_id`, person
 * properties): the person each distinct id belongs to now, as PostHog's
 * `get_persons_mapped_by_distinct_id`, read here so the events API depends only on the tables.
 * Persons live in the SQL database, events in ClickHouse: filters become distinct ids.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { fromJson } from '../platform/db/values.js';
import type { Condition } from '../posthog/property-conditions.js';
import { chunks } from '../lib/chunks.js';

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
  for (const chunk of chunks(wanted, BATCH)) {
    const rows = await db
      .selectFrom('person_distinct_ids as pd')
      .innerJoin('persons as p', 'p.id', 'pd.person_id')
      .select(['pd.distinct_id', 'p.id', 'p.is_identified', 'p.properties'])
      .where('pd.team_id', '=', teamId)
      .where('p.team_id', '=', teamId)
      .where('pd.distinct_id', 'in', chunk)
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
  for (const chunk of chunks(ids, BATCH)) {
    const rows = await db.selectFrom('person_distinct_ids').select(['person_id', 'distinct_id']).where('person_id', 'in', chunk).execute();
    for (const row of rows) byId.get(Number(row.person_id))?.distinctIds.push(row.distinct_id);
  }
  return owners;
}

/** A person's distinct ids, by uuid or numeric id (`person_id`): the events the list filters to. */
export async function distinctIdsOfPerson(
  database: Database,
  teamId: number,
  person: { uuid: string } | { id: number },
): Promise<string[]> {
  const owned = (database.db as Kysely<Schema>)
    .selectFrom('person_distinct_ids as owned')
    .innerJoin('persons as owner', 'owner.id', 'owned.person_id')
    .select('owned.distinct_id')
    .where('owner.team_id', '=', teamId);
  const rows = await ('uuid' in person ? owned.where('owner.uuid', '=', person.uuid) : owned.where('owner.id', '=', person.id)).execute();
  return rows.map((r) => r.distinct_id);
}

/**
 * A person property filter (a condition on `persons.properties`) as the distinct ids it decides
 * events by. An event is its distinct id's person's now; one whose distinct id has no person is
 * read as a person without properties. So when the condition holds for no properties, `excluded`
 * lists the owned ids whose person fails it; otherwise `included` lists those whose person passes.
 */
export async function personFilterIds(
  database: Database,
  teamId: number,
  condition: Condition,
): Promise<{ included: string[] } | { excluded: string[] }> {
  const db = database.db as Kysely<Schema>;
  // The condition on a person that is not there (the left join's NULL properties).
  const nobody = await db
    .selectFrom(sql`(select 1 as one)`.as('nobody'))
    .leftJoin('persons', (join) => join.on(sql<boolean>`1 = 0`))
    .select(sql<boolean | number | null>`(${condition}) is true`.as('holds'))
    .executeTakeFirstOrThrow();
  const holdsForNobody = nobody.holds === true || Number(nobody.holds) === 1;
  const rows = await db
    .selectFrom('person_distinct_ids as pd')
    .innerJoin('persons', (join) => join.onRef('persons.id', '=', 'pd.person_id').on('persons.team_id', '=', teamId))
    .select('pd.distinct_id')
    .where('pd.team_id', '=', teamId)
    .where(holdsForNobody ? sql<boolean>`(${condition}) is not true` : condition)
    .execute();
  const ids = rows.map((r) => r.distinct_id);
  return holdsForNobody ? { excluded: ids } : { included: ids };
}
