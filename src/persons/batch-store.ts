/**
 * Many persons at once: the reads of a batch's persons by distinct id (the ingestion worker's,
 * plain or locked, and event lists') and the worker's batch writes (inserts, updates, merges),
 * with the version checks and lock order that let several workers' batches run at once.
 */
import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, toJson } from '../platform/db/values.js';
import { InListQuery, MultiRowInsert } from '../platform/db/multi-row-insert.js';
import { ConcurrentWriteConflict } from '../platform/db/write-conflicts.js';
import { chunks } from '../lib/chunks.js';
import type { PersonsTable } from './tables.js';
import { BATCH_ROWS, toPerson, withProperties, type NewPerson, type Person } from './store.js';
import { isPostgres } from '../platform/db/dialect.js';

type Db = Kysely<Schema>;

/** Properties already parsed for a person at a version (the worker's cache; see getPersonsByDistinctIds). */
export type KnownProperties = (personId: number, version: number) => Record<string, unknown> | undefined;

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
 * writing them waits for it instead of making it run again. A distinct id with no row yet has
 * nothing to lock, and two batches would both create its person: so each distinct id is first
 * locked by name (lockDistinctIds), and the batch that waited reads the winner's row. Races
 * remain as deadlocks between two lockers (ids read in several statements, or one loaded late):
 * those batches are still rolled back and run again (conflict-retry.ts).
 */
export async function lockPersonsByDistinctIds(
  db: Db,
  teamId: number,
  distinctIds: string[],
  known?: KnownProperties,
): Promise<Map<string, Person>> {
  if (!isPostgres(db)) return getPersonsByDistinctIds(db, teamId, distinctIds, known);
  await lockDistinctIds(db, teamId, distinctIds);
  const found = new Map<string, Person>();
  if (!known) {
    for (const row of await PERSONS_BY_DISTINCT_ID_LOCKED.execute(db, [teamId], distinctIds)) found.set(row.distinct_id, toPerson(row));
    return found;
  }
  return withKnownProperties(await PERSON_FIELDS_BY_DISTINCT_ID_LOCKED.execute(db, [teamId], distinctIds), db, known);
}

/**
 * Transaction-scoped advisory locks on distinct ids by name (the schema and team in the first
 * key, the id's hash in the second: hash collisions only make batches wait), taken in one
 * statement in key order, so two batches locking overlapping sets cannot deadlock on them.
 */
async function lockDistinctIds(db: Db, teamId: number, distinctIds: readonly string[]): Promise<void> {
  if (distinctIds.length === 0) return;
  await sql`select pg_advisory_xact_lock(k.space, k.id) from (
      select hashtext(current_schema() || ':' || ${String(teamId)}) as space, hashtext(d) as id
      from unnest(${distinctIds}::text[]) as d order by 2
    ) as k`.execute(db);
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
  if (isPostgres(db)) {
    const sorted = [...persons].sort((a, b) => a.id - b.id);
    for (const chunk of chunks(sorted, BATCH_ROWS)) {
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
  for (const chunk of chunks(ids, BATCH_ROWS)) {
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
  for (const chunk of chunks(merges, BATCH_ROWS)) {
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
