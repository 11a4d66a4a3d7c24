import { CompiledQuery, PostgresAdapter, sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import { counterValue, nextCounterValue } from '../platform/db/counters.js';
import type { DialectName } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, toJson } from '../platform/db/values.js';
import { InListQuery, MultiRowInsert } from '../platform/db/multi-row-insert.js';
import type { PersonsTable } from './tables.js';
import { pyInt } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import { ConcurrentWriteConflict } from '../platform/db/write-conflicts.js';

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

/** Properties already parsed for a person at a version (the worker's cache; see getPersonsByDistinctIds). */
export type KnownProperties = (personId: number, version: number) => Record<string, unknown> | undefined;

export function toPerson(row: Selectable<PersonsTable>): Person {
  return withProperties(row, fromJson<Record<string, unknown>>(row.properties) ?? {});
}

/** A person from a row's other columns and properties obtained elsewhere. */
function withProperties(row: Omit<Selectable<PersonsTable>, 'properties'>, properties: Record<string, unknown>): Person {
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

/** Rows per statement for the batch helpers: well under both backends' bound-parameter limits. */
const BATCH_ROWS = 500;

/**
 * The persons behind many distinct ids of one team, in one indexed read per 500 ids (the ingestion
 * worker loads a whole batch's persons at once). Ids without a person are absent from the map.
 * `known` supplies properties the caller has already parsed for a person at that version: every
 * write of a person's properties raises its version, so the JSON need not be parsed again.
 * The id list is padded to a few lengths, so the statement is compiled once per length.
 */
export async function getPersonsByDistinctIds(
  db: Db,
  teamId: number,
  distinctIds: string[],
  known?: KnownProperties,
): Promise<Map<string, Person>> {
  const found = new Map<string, Person>();
  if (!known) {
    for (const row of await PERSONS_BY_DISTINCT_ID.execute(db, [teamId], distinctIds)) found.set(row.distinct_id, toPerson(row));
    return found;
  }
  return withKnownProperties(await PERSON_FIELDS_BY_DISTINCT_ID.execute(db, [teamId], distinctIds), db, known);
}

/**
 * With a cache of parsed properties, the properties column (the bulk of a person row) is read
 * only for the persons the cache lacks at their current version, in a second query.
 */
async function withKnownProperties(
  rows: Array<Omit<Selectable<PersonsTable>, 'properties'> & { distinct_id: string }>,
  db: Db,
  known: KnownProperties,
): Promise<Map<string, Person>> {
  const found = new Map<string, Person>();
  const missing = new Map<number, Person[]>();
  for (const row of rows) {
    const id = Number(row.id);
    const properties = known(id, Number(row.version));
    const person = withProperties(row, properties ?? {});
    found.set(row.distinct_id, person);
    if (properties === undefined) {
      const waiting = missing.get(id);
      if (waiting) waiting.push(person);
      else missing.set(id, [person]);
    }
  }
  if (missing.size === 0) return found;
  // The same transaction read the versions above: these are the rows' properties at them.
  for (const row of await PERSON_PROPERTIES.execute(db, [], [...missing.keys()])) {
    const properties = fromJson<Record<string, unknown>>(row.properties) ?? {};
    for (const person of missing.get(Number(row.id)) ?? []) person.properties = properties;
  }
  return found;
}

/**
 * As getPersonsByDistinctIds, on PostgreSQL with the persons' rows locked for the caller's
 * transaction (in ascending id order within each statement of 500 ids) and read as they are once
 * locked: a worker's batch holds the stored persons it will write, so another worker's batch
 * writing them waits for it instead of making it run again. Races remain for what has no row to
 * lock yet (a distinct id both create) and as deadlocks between two lockers (persons read in
 * several statements): those batches are still rolled back and run again (conflict-retry.ts).
 */
export async function lockPersonsByDistinctIds(
  db: Db,
  teamId: number,
  distinctIds: string[],
  known?: KnownProperties,
): Promise<Map<string, Person>> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return getPersonsByDistinctIds(db, teamId, distinctIds, known);
  const found = new Map<string, Person>();
  if (!known) {
    for (const row of await PERSONS_BY_DISTINCT_ID_LOCKED.execute(db, [teamId], distinctIds)) found.set(row.distinct_id, toPerson(row));
    return found;
  }
  return withKnownProperties(await PERSON_FIELDS_BY_DISTINCT_ID_LOCKED.execute(db, [teamId], distinctIds), db, known);
}

/** The persons of these distinct ids of a team, joined: the base of the batch reads below. */
const personsJoined = (db: Db, teamId: number, distinctIds: string[]) =>
  db
    .selectFrom('person_distinct_ids as d')
    .innerJoin('persons as p', 'p.id', 'd.person_id')
    .where('d.team_id', '=', teamId)
    .where('d.distinct_id', 'in', distinctIds);
/** A person row but its properties, and the distinct id it was found by. */
const PERSON_FIELDS = ['p.id', 'p.uuid', 'p.team_id', 'p.is_identified', 'p.created_at', 'p.version', 'd.distinct_id'] as const;

const PERSONS_BY_DISTINCT_ID = new InListQuery(
  (db: Db, [teamId]: [number], distinctIds: string[]) => personsJoined(db, teamId, distinctIds).selectAll('p').select('d.distinct_id'),
  BATCH_ROWS,
);
const PERSON_FIELDS_BY_DISTINCT_ID = new InListQuery(
  (db: Db, [teamId]: [number], distinctIds: string[]) => personsJoined(db, teamId, distinctIds).select(PERSON_FIELDS),
  BATCH_ROWS,
);
// Locked in id order within a statement (lockPersonsByDistinctIds).
const PERSONS_BY_DISTINCT_ID_LOCKED = new InListQuery(
  (db: Db, [teamId]: [number], distinctIds: string[]) =>
    personsJoined(db, teamId, distinctIds).selectAll('p').select('d.distinct_id').orderBy('p.id').forUpdate('p'),
  BATCH_ROWS,
);
const PERSON_FIELDS_BY_DISTINCT_ID_LOCKED = new InListQuery(
  (db: Db, [teamId]: [number], distinctIds: string[]) =>
    personsJoined(db, teamId, distinctIds).select(PERSON_FIELDS).orderBy('p.id').forUpdate('p'),
  BATCH_ROWS,
);
const PERSON_PROPERTIES = new InListQuery(
  (db: Db, _: [], ids: number[]) => db.selectFrom('persons').select(['id', 'properties']).where('id', 'in', ids),
  BATCH_ROWS,
);

const PERSON_INSERT = new MultiRowInsert('persons', ['uuid', 'team_id', 'properties', 'is_identified', 'created_at', 'version'], {
  returning: ['id', 'uuid'],
});
const DISTINCT_ID_INSERT = new MultiRowInsert('person_distinct_ids', ['team_id', 'distinct_id', 'person_id']);

/**
 * Inserts many persons (with their version); returns the new ids by person uuid. The statement
 * is compiled once per row count (MultiRowInsert), not built through the query builder per batch.
 */
export async function insertPersons(db: Db, persons: Array<NewPerson & { version: number }>): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const rows = await PERSON_INSERT.execute(
    db,
    persons.map((p) => [p.uuid, p.teamId, toJson(p.properties), p.isIdentified, p.createdAt, p.version]),
  );
  for (const row of rows) ids.set(row.uuid as string, Number(row.id));
  return ids;
}

/**
 * Inserts distinct ids in the order given: that order is theirs (rowid on SQLite, `seq` on
 * PostgreSQL), and a person's first distinct id is the one PostHog acts as. Two concurrent batches
 * inserting some of the same ids may deadlock or collide on the key; either is a write conflict,
 * and the losing batch is retried (conflict-retry.ts).
 */
export async function insertDistinctIds(db: Db, rows: Array<{ teamId: number; distinctId: string; personId: number }>): Promise<void> {
  await DISTINCT_ID_INSERT.execute(
    db,
    rows.map((r) => [r.teamId, r.distinctId, r.personId]),
  );
}

/**
 * Writes many persons' changed fields (the ingestion worker's write-back at the end of a batch).
 *
 * On PostgreSQL every statement is a network round trip, and a batch of a realistic stream
 * changes a person for every fifth event or so: one UPDATE … FROM (VALUES …) per 500 persons
 * instead of one UPDATE each (dialect-specific because PostgreSQL needs the casts from the VALUES
 * list's text columns and SQLite would misread them). On SQLite a statement is an in-process call,
 * so the portable UPDATE is compiled by Kysely once and executed per person: compiling it for every
 * person was most of the write-back's cost in the worker's CPU profile.
 *
 * On PostgreSQL, where several workers' batches run at once, each row is written only if it still
 * has `storedVersion` (the version the batch read): a person another batch changed or merged away
 * meanwhile is not overwritten, the write throws ConcurrentWriteConflict and the batch is retried
 * from fresh reads. The rows go in ascending id order, as every batch locks persons, so two
 * batches' updates wait for each other rather than deadlock. SQLite has one writer: no check.
 */
export async function updatePersons(
  db: Db,
  persons: Array<Pick<Person, 'id' | 'properties' | 'isIdentified' | 'version' | 'createdAt'> & { storedVersion: number }>,
): Promise<void> {
  if (persons.length === 0) return;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const sorted = [...persons].sort((a, b) => a.id - b.id);
    for (let i = 0; i < sorted.length; i += BATCH_ROWS) {
      const chunk = sorted.slice(i, i + BATCH_ROWS);
      const rows = chunk.map(
        (p) => sql`(${p.id}, ${toJson(p.properties)}, ${p.isIdentified}, ${p.version}, ${p.createdAt}, ${p.storedVersion})`,
      );
      const result = await sql`update persons as p
        set properties = v.properties::jsonb, is_identified = v.is_identified::boolean,
            version = v.version::bigint, created_at = v.created_at::timestamptz
        from (values ${sql.join(rows)}) as v(id, properties, is_identified, version, created_at, stored_version)
        where p.id = v.id::bigint and p.version = v.stored_version::bigint`.execute(db);
      if (Number(result.numAffectedRows ?? 0n) !== chunk.length) throw new ConcurrentWriteConflict('a person the batch updates');
    }
    return;
  }
  // Parameters come out in `set` order, then the `where` value.
  const { sql: text } = db
    .updateTable('persons')
    .set({ properties: '', is_identified: false, version: 0, created_at: '' })
    .where('id', '=', 0)
    .compile();
  for (const p of persons) {
    await db.executeQuery(CompiledQuery.raw(text, [toJson(p.properties), p.isIdentified, p.version, p.createdAt, p.id]));
  }
}

/**
 * Before a batch merges persons or gives distinct ids to stored ones (PostgreSQL, several
 * workers): locks those persons (FOR UPDATE, in ascending id order, as every batch does, so two
 * batches crossing on two persons wait for each other instead of deadlocking) and checks that
 * each still has the version the batch read. A person changed or deleted meanwhile throws
 * ConcurrentWriteConflict: the batch decided on a stale read and is retried. Once locked, no other
 * batch can update them, merge them away or give them distinct ids until this one commits.
 */
export async function lockPersonsAtVersions(db: Db, persons: ReadonlyArray<{ id: number; storedVersion: number }>): Promise<void> {
  const expected = new Map(persons.map((p) => [p.id, p.storedVersion]));
  const ids = [...expected.keys()].sort((a, b) => a - b);
  for (let i = 0; i < ids.length; i += BATCH_ROWS) {
    const chunk = ids.slice(i, i + BATCH_ROWS);
    const rows = await db.selectFrom('persons').select(['id', 'version']).where('id', 'in', chunk).orderBy('id').forUpdate().execute();
    if (rows.length !== chunk.length || rows.some((row) => Number(row.version) !== expected.get(Number(row.id)))) {
      throw new ConcurrentWriteConflict('a person the batch merges or gives a distinct id');
    }
  }
}

/**
 * Many merges at once: the distinct ids of each merged-away person move to the person it was
 * folded into, then the merged-away rows are deleted; two statements per 500 merges instead of
 * three per merge (round trips on PostgreSQL). `else person_id` also gives PostgreSQL the CASE's
 * type, so the same SQL runs on both backends.
 */
export async function foldPersons(db: Db, merges: Array<{ fromPersonId: number; toPersonId: number }>): Promise<void> {
  for (let i = 0; i < merges.length; i += BATCH_ROWS) {
    const chunk = merges.slice(i, i + BATCH_ROWS);
    const sources = chunk.map((m) => m.fromPersonId);
    const whens = sql.join(
      chunk.map((m) => sql`when ${m.fromPersonId} then ${m.toPersonId}`),
      sql` `,
    );
    await db
      .updateTable('person_distinct_ids')
      .set({ person_id: sql<number>`case person_id ${whens} else person_id end` })
      .where('person_id', 'in', sources)
      .execute();
    await db.deleteFrom('persons').where('id', 'in', sources).execute();
  }
}

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
  for (let i = 0; i < uuids.length; i += BATCH_ROWS) {
    const rows = await db
      .selectFrom('persons')
      .select(['id', 'uuid'])
      .where('team_id', '=', teamId)
      .where('uuid', 'in', uuids.slice(i, i + BATCH_ROWS))
      .execute();
    for (const row of rows) ids.set(row.uuid, Number(row.id));
  }
  return ids;
}

/**
 * Moves distinct ids of person `fromPersonId` to other persons (a split), 500 per statement; an
 * id the person no longer has is left where it is. `else person_id` gives PostgreSQL the CASE's
 * type, as in foldPersons.
 */
export async function moveDistinctIds(
  db: Db,
  teamId: number,
  fromPersonId: number,
  moves: Array<{ distinctId: string; toPersonId: number }>,
): Promise<void> {
  for (let i = 0; i < moves.length; i += BATCH_ROWS) {
    const chunk = moves.slice(i, i + BATCH_ROWS);
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
  return sql.raw(db.getExecutor().adapter instanceof PostgresAdapter ? 'seq' : 'rowid');
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
  for (let i = 0; i < personIds.length; i += BATCH_ROWS) {
    const rows = await db
      .selectFrom('person_distinct_ids')
      .select(['person_id', 'distinct_id'])
      .where('person_id', 'in', personIds.slice(i, i + BATCH_ROWS))
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
