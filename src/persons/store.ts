import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { counterValue, nextCounterValue } from '../platform/db/counters.js';
import type { DialectName } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, toJson } from '../platform/db/values.js';
import type { PersonsTable } from './tables.js';
import { pyInt } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import { chunks } from '../lib/chunks.js';
import { isPostgres } from '../platform/db/dialect.js';

type Db = Kysely<Schema>;

export interface Person {
  id: number;
  uuid: string;
  teamId: number;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: string;
  version: number;
}

export function toPerson(row: Selectable<PersonsTable>): Person {
  return withProperties(row, fromJson<Record<string, unknown>>(row.properties) ?? {});
}

/** A person from a row's other columns and properties obtained elsewhere. */
export function withProperties(row: Omit<Selectable<PersonsTable>, 'properties'>, properties: Record<string, unknown>): Person {
  return {
    id: Number(row.id),
    uuid: row.uuid,
    teamId: Number(row.team_id),
    properties,
    isIdentified: fromBool(row.is_identified),
    createdAt: row.created_at,
    version: Number(row.version),
  };
}

/** The person behind a distinct id: one indexed read (the distinct-id primary key, then the person's). */
export async function getPersonByDistinctId(db: Db, teamId: number, distinctId: string): Promise<Person | undefined> {
  const row = await db
    .selectFrom('person_distinct_ids as d')
    .innerJoin('persons as p', 'p.id', 'd.person_id')
    .selectAll('p')
    .where('d.team_id', '=', teamId)
    .where('d.distinct_id', '=', distinctId)
    .executeTakeFirst();
  return row && toPerson(row);
}

export async function getPersonById(db: Db, teamId: number, id: number): Promise<Person | undefined> {
  const row = await db.selectFrom('persons').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
  return row && toPerson(row);
}

export async function getPersonByUuid(db: Db, teamId: number, uuid: string): Promise<Person | undefined> {
  const row = await db.selectFrom('persons').selectAll().where('team_id', '=', teamId).where('uuid', '=', uuid).executeTakeFirst();
  return row && toPerson(row);
}

/** How the persons API names a person: by uuid, or by numeric id (undefined: names no person). */
export type PersonRef = { uuid: string } | { id: number | undefined };

/**
 * A path's person id as PostHog reads it (`safely_get_object`): a uuid as Python's `uuid.UUID`
 * takes one (any case, hyphens optional, braces or a `urn:uuid:` prefix), else an integer as
 * `int()` takes one (surrounding spaces, a sign, underscores between digits); undefined when it is
 * neither, which PostHog answers with a 400. An integer no person can have (not a positive safe
 * integer) names no one rather than reaching the database.
 */
export function parsePersonRef(ref: string): PersonRef | undefined {
  const uuid = canonicalUuid(ref);
  if (uuid !== null) return { uuid };
  const id = pyInt(ref);
  if (id === null) return undefined;
  return { id: Number.isSafeInteger(id) && id > 0 ? id : undefined };
}

/** A person as the API names one (parsePersonRef); undefined when there is none, or no such ref. */
export async function getPersonByRef(db: Db, teamId: number, ref: string): Promise<Person | undefined> {
  const parsed = parsePersonRef(ref);
  if (!parsed) return undefined;
  if ('uuid' in parsed) return getPersonByUuid(db, teamId, parsed.uuid);
  return parsed.id === undefined ? undefined : getPersonById(db, teamId, parsed.id);
}

export interface NewPerson {
  uuid: string;
  teamId: number;
  properties: Record<string, unknown>;
  isIdentified: boolean;
  createdAt: string;
}

export async function insertPerson(db: Db, person: NewPerson, distinctIds: string[]): Promise<Person> {
  const row = await db
    .insertInto('persons')
    .values({
      uuid: person.uuid,
      team_id: person.teamId,
      properties: toJson(person.properties),
      is_identified: person.isIdentified,
      created_at: person.createdAt,
      version: 0,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const created = toPerson(row);
  if (distinctIds.length > 0) {
    await db
      .insertInto('person_distinct_ids')
      .values(distinctIds.map((d) => ({ team_id: person.teamId, distinct_id: d, person_id: created.id })))
      .execute();
  }
  return created;
}

/** Rows per statement for the batch helpers (here and batch-store.ts): well under both backends' bound-parameter limits. */
export const BATCH_ROWS = 500;

/**
 * The person, read in the caller's transaction and locked until it ends (PostgreSQL: FOR UPDATE;
 * SQLite's write transactions hold the database already): its ids cannot move under a split.
 */
export async function lockPerson(db: Db, dialect: DialectName, teamId: number, personId: number): Promise<Person | undefined> {
  const query = db.selectFrom('persons').selectAll().where('team_id', '=', teamId).where('id', '=', personId);
  const row = await (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
  return row && toPerson(row);
}

/** The team's persons with these uuids: uuid → id. */
export async function personIdsByUuid(db: Db, teamId: number, uuids: string[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const chunk of chunks(uuids, BATCH_ROWS)) {
    const rows = await db.selectFrom('persons').select(['id', 'uuid']).where('team_id', '=', teamId).where('uuid', 'in', chunk).execute();
    for (const row of rows) ids.set(row.uuid, Number(row.id));
  }
  return ids;
}

/**
 * Moves distinct ids of person `fromPersonId` to other persons (a split), 500 per statement; an
 * id the person no longer has is left where it is. `else person_id` gives PostgreSQL the CASE's
 * type, as in foldPersons (batch-store.ts).
 */
export async function moveDistinctIds(
  db: Db,
  teamId: number,
  fromPersonId: number,
  moves: Array<{ distinctId: string; toPersonId: number }>,
): Promise<void> {
  for (const chunk of chunks(moves, BATCH_ROWS)) {
    const whens = sql.join(
      chunk.map((m) => sql`when ${m.distinctId} then ${m.toPersonId}`),
      sql` `,
    );
    await db
      .updateTable('person_distinct_ids')
      .set({ person_id: sql<number>`case distinct_id ${whens} else person_id end` })
      .where('team_id', '=', teamId)
      .where('person_id', '=', fromPersonId)
      .where(
        'distinct_id',
        'in',
        chunk.map((m) => m.distinctId),
      )
      .execute();
  }
}

export async function addDistinctId(db: Db, teamId: number, distinctId: string, personId: number): Promise<void> {
  await db.insertInto('person_distinct_ids').values({ team_id: teamId, distinct_id: distinctId, person_id: personId }).execute();
}

/**
 * Deletes a person and its distinct ids, and counts the deletion (`person_deletions`) in the same
 * transaction: the ingestion worker keeps persons between batches and drops them when it sees
 * the count change (ingestion/worker/person-cache.ts).
 */
export async function deletePersonRow(db: Db, teamId: number, personId: number): Promise<void> {
  const run = async (trx: Db) => {
    await trx.deleteFrom('person_distinct_ids').where('team_id', '=', teamId).where('person_id', '=', personId).execute();
    await trx.deleteFrom('persons').where('team_id', '=', teamId).where('id', '=', personId).execute();
    await notePersonsChangedOutsideWorker(trx);
  };
  if (db.isTransaction) await run(db);
  else await db.transaction().execute(run);
}

/** The counter of changes to persons made outside the worker (notePersonsChangedOutsideWorker). */
export const PERSON_DELETIONS = 'person_deletions';

/**
 * Counts a change to persons made outside the ingestion worker (a deletion, a split), in the
 * caller's transaction: the worker drops the persons it keeps when the count moves. (The counter
 * kept its first name, `person_deletions`, so running workers of an older version see it too.)
 */
export async function notePersonsChangedOutsideWorker(db: Db): Promise<void> {
  await nextCounterValue(db, PERSON_DELETIONS);
}

/** How many persons were deleted by `deletePersonRow` so far (0 before the first). */
export function countPersonDeletions(db: Db): Promise<number> {
  return counterValue(db, PERSON_DELETIONS);
}

/**
 * The order distinct ids were given to their persons (migration 014): SQLite's rowid, PostgreSQL's
 * `seq` column. Neither is in the schema's types: SQLite's is implicit, PostgreSQL's is only read here.
 */
function distinctIdOrder(db: Db): RawBuilder<unknown> {
  return sql.raw(isPostgres(db) ? 'seq' : 'rowid');
}

/** A person's first distinct id (the oldest mapping), one row read however many it has. */
export async function firstDistinctIdOf(db: Db, personId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('person_distinct_ids')
    .select('distinct_id')
    .where('person_id', '=', personId)
    .orderBy(distinctIdOrder(db))
    .limit(1)
    .executeTakeFirst();
  return row?.distinct_id;
}

/**
 * Distinct ids per person, oldest first; persons asked for BATCH_ROWS at a time, so a page of any
 * size (list endpoints have no maximum `limit`) stays under both backends' parameter limits.
 */
export async function distinctIdsOf(db: Db, personIds: number[]): Promise<Map<number, string[]>> {
  const map = new Map<number, string[]>();
  const order = distinctIdOrder(db);
  for (const chunk of chunks(personIds, BATCH_ROWS)) {
    const rows = await db
      .selectFrom('person_distinct_ids')
      .select(['person_id', 'distinct_id'])
      .where('person_id', 'in', chunk)
      .orderBy(order)
      .execute();
    for (const row of rows) {
      const list = map.get(Number(row.person_id)) ?? [];
      list.push(row.distinct_id);
      map.set(Number(row.person_id), list);
    }
  }
  return map;
}

/** Persons by uuid with their distinct ids, for embedding in event lists. */
export async function getPersonsByUuids(db: Db, teamId: number, uuids: string[]): Promise<Map<string, Person & { distinctIds: string[] }>> {
  const result = new Map<string, Person & { distinctIds: string[] }>();
  if (uuids.length === 0) return result;
  const rows = await db.selectFrom('persons').selectAll().where('team_id', '=', teamId).where('uuid', 'in', uuids).execute();
  const persons = rows.map(toPerson);
  const ids = await distinctIdsOf(
    db,
    persons.map((p) => p.id),
  );
  for (const p of persons) result.set(p.uuid, { ...p, distinctIds: ids.get(p.id) ?? [] });
  return result;
}
