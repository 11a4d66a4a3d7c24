import type { Kysely, Selectable } from 'kysely';
import type { DialectName } from '../platform/db/database.js';
import { jsonText } from '../platform/db/json-path.js';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import { wellFormedText } from '../lib/well-formed.js';
import { chunks } from '../lib/chunks.js';
import type { CohortsTable } from './tables.js';
import { toPerson, type Person } from '../persons/store.js';

type Db = Kysely<Schema>;

/** Rows per insert, and values per `IN (…)` list. */
const PER_STATEMENT = 500;

export interface Cohort {
  id: number;
  projectId: number;
  teamId: number;
  name: string;
  description: string;
  /** `{properties: {type, values}}`, or null (static cohorts). */
  filters: Record<string, unknown> | null;
  isStatic: boolean;
  deleted: boolean;
  count: number | null;
  version: number | null;
  createdById: number | null;
  createdAt: string;
  lastCalculation: string | null;
}

function toCohort(row: Selectable<CohortsTable>): Cohort {
  return {
    id: Number(row.id),
    projectId: Number(row.project_id),
    teamId: Number(row.team_id),
    name: row.name,
    description: row.description,
    filters: fromJson<Record<string, unknown> | null>(row.filters) ?? null,
    isStatic: fromBool(row.is_static),
    deleted: fromBool(row.deleted),
    count: row.count === null ? null : Number(row.count),
    version: row.version === null ? null : Number(row.version),
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    createdAt: row.created_at,
    lastCalculation: row.last_calculation,
  };
}

/** Every cohort of a project (deleted ones included: flags may still point at them). */
export async function listProjectCohorts(db: Db, projectId: number): Promise<Cohort[]> {
  const rows = await db.selectFrom('cohorts').selectAll().where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map(toCohort);
}

export async function listLiveCohorts(
  db: Db,
  projectId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; cohorts: Cohort[] }> {
  const query = db.selectFrom('cohorts').where('project_id', '=', projectId).where('deleted', '=', false);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return { count: Number(total?.n ?? 0), cohorts: rows.map(toCohort) };
}

export async function getCohort(db: Db, projectId: number, id: number): Promise<Cohort | undefined> {
  if (!Number.isSafeInteger(id)) return undefined;
  const row = await db.selectFrom('cohorts').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
  return row && toCohort(row);
}

export interface NewCohort {
  projectId: number;
  teamId: number;
  name: string;
  description: string;
  filters: Record<string, unknown> | null;
  isStatic: boolean;
  userId: number;
}

export async function insertCohort(db: Db, cohort: NewCohort): Promise<Cohort> {
  const now = nowIso();
  const row = await db
    .insertInto('cohorts')
    .values({
      project_id: cohort.projectId,
      team_id: cohort.teamId,
      name: cohort.name,
      description: cohort.description,
      filters: cohort.filters === null ? null : toJson(cohort.filters),
      is_static: cohort.isStatic,
      deleted: false,
      count: cohort.isStatic ? 0 : null,
      version: cohort.isStatic ? null : 1,
      created_by_id: cohort.userId,
      created_at: now,
      last_calculation: cohort.isStatic ? now : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCohort(row);
}

export async function updateCohort(
  db: Db,
  cohort: Cohort,
  changes: Partial<Pick<Cohort, 'name' | 'description' | 'filters' | 'deleted' | 'count'>>,
): Promise<Cohort> {
  const values: Record<string, unknown> = {};
  if (changes.name !== undefined) values.name = changes.name;
  if (changes.description !== undefined) values.description = changes.description;
  if (changes.filters !== undefined) values.filters = changes.filters === null ? null : toJson(changes.filters);
  if (changes.deleted !== undefined) values.deleted = changes.deleted;
  if (changes.count !== undefined) values.count = changes.count;
  if (changes.filters !== undefined && !cohort.isStatic) values.version = (cohort.version ?? 0) + 1;
  if (Object.keys(values).length === 0) return cohort;
  const row = await db.updateTable('cohorts').set(values).where('id', '=', cohort.id).returningAll().executeTakeFirstOrThrow();
  return toCohort(row);
}

/** Adds persons to a static cohort (already-present members are kept once); returns the new size. */
export async function addCohortMembers(db: Db, cohortId: number, personIds: number[]): Promise<number> {
  const unique = [...new Set(personIds)];
  for (const chunk of chunks(unique, PER_STATEMENT)) {
    await db
      .insertInto('cohort_people')
      .values(chunk.map((personId) => ({ cohort_id: cohortId, person_id: personId })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  return cohortSize(db, cohortId);
}

/** How many persons a static cohort holds. */
async function cohortSize(db: Db, cohortId: number): Promise<number> {
  const row = await db
    .selectFrom('cohort_people')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('cohort_id', '=', cohortId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Removes one person from a static cohort (nothing happens if they were not in it); returns the new size. */
export async function removeCohortMember(db: Db, cohortId: number, personId: number): Promise<number> {
  await db.deleteFrom('cohort_people').where('cohort_id', '=', cohortId).where('person_id', '=', personId).execute();
  return cohortSize(db, cohortId);
}
/** Which of `cohortIds` (static cohorts) the person belongs to: one indexed read. */
export async function staticMembershipsOf(db: Db, personId: number, cohortIds: number[]): Promise<number[]> {
  if (cohortIds.length === 0) return [];
  const rows = await db
    .selectFrom('cohort_people')
    .select('cohort_id')
    .where('person_id', '=', personId)
    .where('cohort_id', 'in', cohortIds)
    .execute();
  return rows.map((r) => Number(r.cohort_id));
}

/** The ids of the team's persons with these uuids (unknown uuids are left out), 500 per query. */
export async function personIdsForUuids(db: Db, teamId: number, uuids: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const chunk of chunks(uuids, PER_STATEMENT)) {
    const rows = await db.selectFrom('persons').select('id').where('team_id', '=', teamId).where('uuid', 'in', chunk).execute();
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids;
}

/** Persons ids behind distinct ids of an environment (unknown ids are skipped, as PostHog's import does). */
export async function personIdsForDistinctIds(db: Db, teamId: number, given: string[]): Promise<number[]> {
  const ids: number[] = [];
  // As stored: ingestion makes text well-formed (a NUL, which PostgreSQL refuses, is U+FFFD there).
  const distinctIds = given.map(wellFormedText);
  for (const chunk of chunks(distinctIds, PER_STATEMENT)) {
    const rows = await db
      .selectFrom('person_distinct_ids')
      .select('person_id')
      .where('team_id', '=', teamId)
      .where('distinct_id', 'in', chunk)
      .execute();
    ids.push(...rows.map((r) => Number(r.person_id)));
  }
  return ids;
}

/** Persons whose `email` property is one of these addresses (a CSV upload's email column), 500 per query. */
export async function personIdsForEmails(database: { db: Db; dialect: DialectName }, teamId: number, given: string[]): Promise<number[]> {
  const ids: number[] = [];
  const emails = given.map(wellFormedText); // as stored (see personIdsForDistinctIds)
  const email = jsonText(database.dialect, 'properties', 'email');
  for (const chunk of chunks(emails, PER_STATEMENT)) {
    const rows = await database.db.selectFrom('persons').select('id').where('team_id', '=', teamId).where(email, 'in', chunk).execute();
    ids.push(...rows.map((r) => Number(r.id)));
  }
  return ids;
}

/** Which of `cohortIds` (static cohorts) each of these persons belongs to: person id → cohort ids. */
export async function staticMembershipsOfPersons(db: Db, personIds: number[], cohortIds: number[]): Promise<Map<number, number[]>> {
  const memberships = new Map<number, number[]>();
  if (personIds.length === 0 || cohortIds.length === 0) return memberships;
  const rows = await db
    .selectFrom('cohort_people')
    .select(['person_id', 'cohort_id'])
    .where('person_id', 'in', personIds)
    .where('cohort_id', 'in', cohortIds)
    .execute();
  for (const row of rows) {
    const list = memberships.get(Number(row.person_id)) ?? [];
    list.push(Number(row.cohort_id));
    memberships.set(Number(row.person_id), list);
  }
  return memberships;
}

/** One batch of an environment's persons, newest id first, below `beforeId` (keyset paging for a full scan). */
export async function personsBatch(db: Db, teamId: number, beforeId: number | null, limit: number): Promise<Person[]> {
  let query = db.selectFrom('persons').selectAll().where('team_id', '=', teamId);
  if (beforeId !== null) query = query.where('id', '<', beforeId);
  const rows = await query.orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toPerson);
}
