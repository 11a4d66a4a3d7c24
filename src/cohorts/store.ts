import { sql, type Kysely, type Selectable } from 'kysely';
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
  /** A calculation is asked for or running (dynamic cohorts; calculator.ts). */
  isCalculating: boolean;
  /** Failed calculations in a row, and when the latest failed. */
  errorsCalculating: number;
  lastErrorAt: string | null;
  /** Bumped by every change that asks for a calculation. */
  calculationRequests: number;
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
    isCalculating: fromBool(row.is_calculating),
    errorsCalculating: Number(row.errors_calculating),
    lastErrorAt: row.last_error_at,
    calculationRequests: Number(row.calculation_requests),
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
      // A dynamic cohort is calculated once created (calculator.ts), as PostHog's.
      is_calculating: !cohort.isStatic,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toCohort(row);
}

export async function updateCohort(
  db: Db,
  cohort: Cohort,
  changes: Partial<Pick<Cohort, 'name' | 'description' | 'filters' | 'deleted' | 'count'>> & { calculate?: boolean },
): Promise<Cohort> {
  const values: Record<string, unknown> = {};
  if (changes.name !== undefined) values.name = changes.name;
  if (changes.description !== undefined) values.description = changes.description;
  if (changes.filters !== undefined) values.filters = changes.filters === null ? null : toJson(changes.filters);
  if (changes.deleted !== undefined) values.deleted = changes.deleted;
  if (changes.count !== undefined) values.count = changes.count;
  if (changes.filters !== undefined && !cohort.isStatic) values.version = (cohort.version ?? 0) + 1;
  if (changes.calculate) {
    // Asks for a calculation: one already running is then no longer current (finishCalculation).
    values.is_calculating = true;
    values.calculation_requests = sql`calculation_requests + 1`;
  }
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

/** How many persons an environment has (one indexed count). */
export async function teamPersonCount(db: Db, teamId: number): Promise<number> {
  const row = await db
    .selectFrom('persons')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/*
 * Dynamic cohorts' calculations (calculator.ts). A process claims a cohort with a conditional
 * UPDATE (its owner token and a lease; one process wins), renews the lease while it judges the
 * persons, and writes the outcome only while it still holds the claim.
 */

export interface DueCalculations {
  now: Date;
  /** Calculated before this: stale. */
  staleBefore: Date;
  /** More failures in a row than this: only a change asks for another calculation. */
  maxErrors: number;
  limit: number;
}

/**
 * Live dynamic cohorts due a calculation and claimed by no live process: asked for (a change),
 * never calculated, or stale and out of their failures' backoff. Asked-for first, then the
 * longest uncalculated.
 */
export async function dueCalculations(db: Db, due: DueCalculations): Promise<number[]> {
  const now = due.now.toISOString();
  const rows = await db
    .selectFrom('cohorts')
    .select('id')
    .where('is_static', '=', false)
    .where('deleted', '=', false)
    .where((eb) => eb.or([eb('calculation_owner', 'is', null), eb('calculation_lease_until', '<', now)]))
    .where((eb) =>
      eb.or([
        eb('is_calculating', '=', true),
        eb.and([
          eb.or([eb('last_calculation', 'is', null), eb('last_calculation', '<=', due.staleBefore.toISOString())]),
          eb('errors_calculating', '<=', due.maxErrors),
          eb.or([eb('calculation_retry_at', 'is', null), eb('calculation_retry_at', '<=', now)]),
        ]),
      ]),
    )
    .orderBy('is_calculating', 'desc')
    .orderBy(sql`case when last_calculation is null then 0 else 1 end`)
    .orderBy('last_calculation')
    .orderBy('id')
    .limit(due.limit)
    .execute();
  return rows.map((row) => Number(row.id));
}

/** Claims a cohort's calculation for `owner` unless a live claim holds it; the cohort as claimed. */
export async function claimCalculation(db: Db, id: number, owner: string, now: Date, leaseMs: number): Promise<Cohort | undefined> {
  const row = await db
    .updateTable('cohorts')
    .set({ calculation_owner: owner, calculation_lease_until: new Date(now.getTime() + leaseMs).toISOString(), is_calculating: true })
    .where('id', '=', id)
    .where('is_static', '=', false)
    .where('deleted', '=', false)
    .where((eb) => eb.or([eb('calculation_owner', 'is', null), eb('calculation_lease_until', '<', now.toISOString())]))
    .returningAll()
    .executeTakeFirst();
  return row && toCohort(row);
}

/** Extends the owner's claim; false when it is no longer the owner's (it lapsed and was taken). */
export async function renewCalculation(db: Db, id: number, owner: string, leaseMs: number): Promise<boolean> {
  const result = await db
    .updateTable('cohorts')
    .set({ calculation_lease_until: new Date(Date.now() + leaseMs).toISOString() })
    .where('id', '=', id)
    .where('calculation_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives up the owner's claim, leaving the cohort as it was (still asked for: another round takes it). */
export async function releaseCalculation(db: Db, id: number, owner: string): Promise<void> {
  await db
    .updateTable('cohorts')
    .set({ calculation_owner: null, calculation_lease_until: null })
    .where('id', '=', id)
    .where('calculation_owner', '=', owner)
    .execute();
}

/**
 * Stores a calculation's count, as PostHog on success (`last_calculation` now, no errors, no longer
 * calculating), unless a change asked for another calculation since the claim: then the count is
 * of an old definition and the claim is only given up. Whether the count was stored.
 */
export async function finishCalculation(db: Db, claimed: Cohort, owner: string, count: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('cohorts')
    .set({
      count,
      last_calculation: now.toISOString(),
      errors_calculating: 0,
      last_error_at: null,
      calculation_retry_at: null,
      is_calculating: false,
      calculation_owner: null,
      calculation_lease_until: null,
    })
    .where('id', '=', claimed.id)
    .where('calculation_owner', '=', owner)
    .where('calculation_requests', '=', claimed.calculationRequests)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1) return true;
  await releaseCalculation(db, claimed.id, owner);
  return false;
}

/**
 * Records a failed calculation, as PostHog: one more error, `last_error_at` now, no longer
 * calculating (unless a change asked again since the claim), count and `last_calculation` kept;
 * stale recalculations wait until `retryAt`.
 */
export async function failCalculation(db: Db, claimed: Cohort, owner: string, now: Date, retryAt: Date): Promise<void> {
  await db
    .updateTable('cohorts')
    .set({
      errors_calculating: sql`errors_calculating + 1`,
      last_error_at: now.toISOString(),
      calculation_retry_at: retryAt.toISOString(),
      is_calculating: sql`calculation_requests <> ${claimed.calculationRequests}`,
      calculation_owner: null,
      calculation_lease_until: null,
    })
    .where('id', '=', claimed.id)
    .where('calculation_owner', '=', owner)
    .execute();
}
