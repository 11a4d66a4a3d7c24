/**
 * The persons list (PersonViewSet.list): the persons matching every filter, newest first.
 *
 * PostHog selects the page with an ActorsQuery ordered `created_at DESC, id DESC` (a person's
 * HogQL id is its uuid), then `get_serialized_people` re-sorts the page by (created_at desc,
 * uuid asc): both orders are kept here, so persons created in the same millisecond come out as
 * PostHog shows them.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import { getCohort } from '../cohorts/store.js';
import type { Database, DialectName } from '../platform/db/database.js';
import { jsonText } from '../platform/db/json-path.js';
import type { Schema } from '../platform/db/schema.js';
import { validationError } from '../posthog/errors.js';
import type { Team } from '../environments/models.js';
import type { CohortCondition, PersonListQuery } from './list-params.js';
import { compileCondition, containsPattern, ilike, isInvalidRegexError, type Condition } from '../posthog/property-conditions.js';
import { toPerson, type Person } from './store.js';

type Db = Kysely<Schema>;

/**
 * `search` (PersonStrategy.filter_conditions): a case-insensitive substring of the email or name
 * property, of the person's uuid, or of any of its distinct ids.
 */
function searchCondition(dialect: DialectName, teamId: number, search: string): Condition {
  const pattern = containsPattern(search);
  const properties = (key: string) => ilike(dialect, jsonText(dialect, 'p.properties', key), pattern);
  const distinctIds = sql<SqlBool>`p.id in (select d.person_id from person_distinct_ids as d
    where d.team_id = ${teamId} and ${ilike(dialect, sql.ref('d.distinct_id'), pattern)})`;
  return sql<SqlBool>`(${properties('email')} or ${properties('name')} or ${ilike(dialect, sql.ref('p.uuid'), pattern)} or ${distinctIds})`;
}

/**
 * A cohort filter (`id IN COHORT n`). Hoglet keeps the members of static cohorts only; a dynamic
 * cohort's members are not computed, so filtering on one is refused rather than ignored.
 */
async function cohortCondition(db: Db, team: Team, filter: CohortCondition): Promise<Condition> {
  const cohort = await getCohort(db, team.projectId, filter.cohortId);
  if (!cohort) throw validationError('Cohort matching query does not exist.', 'properties');
  if (!cohort.isStatic)
    throw validationError('Hoglet filters persons by static cohorts only: the members of dynamic cohorts are not computed.', 'properties');
  const members = sql`(select cp.person_id from cohort_people as cp where cp.cohort_id = ${cohort.id})`;
  return filter.negated ? sql<SqlBool>`(p.id not in ${members})` : sql<SqlBool>`(p.id in ${members})`;
}

/** The page as `get_serialized_people` orders it: created_at descending, then uuid ascending. */
function pageOrder(persons: Person[]): Person[] {
  return persons.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
}

export async function listPersons(
  database: Database,
  team: Team,
  query: PersonListQuery,
  page: { limit: number; offset: number },
): Promise<{ count: number; persons: Person[] }> {
  const { db, dialect } = database;
  const conditions: Condition[] = [];
  const add = (condition: Condition | null) => {
    if (condition) conditions.push(condition);
  };
  for (const property of query.properties) add(compileCondition(dialect, property, 'p.properties'));
  // `email` is one more exact person-property filter in PostHog's list.
  if (query.email !== undefined) add(compileCondition(dialect, { key: 'email', operator: 'exact', value: query.email }, 'p.properties'));
  for (const cohort of query.cohorts) conditions.push(await cohortCondition(db, team, cohort));
  if (query.distinctId !== undefined) {
    conditions.push(sql<SqlBool>`p.id in (select d.person_id from person_distinct_ids as d
      where d.team_id = ${team.id} and d.distinct_id = ${query.distinctId})`);
  }
  if (query.search !== undefined) conditions.push(searchCondition(dialect, team.id, query.search));

  let base = db.selectFrom('persons as p').where('p.team_id', '=', team.id);
  for (const condition of conditions) base = base.where(condition);
  const ordered = <T extends typeof base>(q: T) => q.orderBy('p.created_at', 'desc').orderBy('p.uuid', 'desc');

  try {
    const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
    const rows = await ordered(base).selectAll('p').limit(page.limit).offset(page.offset).execute();
    return { count: Number(total?.n ?? 0), persons: pageOrder(rows.map(toPerson)) };
  } catch (error) {
    if (isInvalidRegexError(error)) throw validationError('Invalid regular expression in the properties filter.', 'properties');
    throw error;
  }
}
