import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type SqlBool, type Expression } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import type { Database, DialectName } from '../platform/db/database.js';
import { fromBool, fromJson } from '../platform/db/values.js';
import { ilike, literalContainsPattern } from '../posthog/property-conditions.js';
import type { PageRequest } from '../http/pagination.js';
import { chunks } from '../lib/chunks.js';

type Db = Kysely<Schema>;

/** Rows per insert statement (a handful of columns each: far below both backends' limits). */
const ROWS_PER_STATEMENT = 100;

// ——— Written by the worker, in its batch's transaction ———

export interface NewEventDefinition {
  projectId: number;
  /** The environment of the event: kept as the row's team_id when it makes the row. */
  teamId: number;
  name: string;
  /** ISO instant: the batch's time. */
  seenAt: string;
}

export interface NewPropertyDefinition {
  projectId: number;
  teamId: number;
  name: string;
  type: number;
  groupTypeIndex: number;
  propertyType: string | null;
}

export interface NewEventProperty {
  projectId: number;
  teamId: number;
  event: string;
  property: string;
}

/** Compares texts by code unit: any fixed order will do (see recordDefinitions). */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Makes sure of the definitions (the worker sends only those it has not written lately), one list
 * per project: an environment's event meeting a name another environment of its project made only
 * updates that row. An event definition seen again moves its `last_seen_at` forward; a property
 * definition keeps the type it was first given, unless it had none (PostHog's upserts).
 *
 * Each table's rows go in the order of its unique key: concurrent batches (several workers on
 * PostgreSQL) that upsert some of the same definitions then lock them in the same order and wait
 * for each other, instead of each holding one the other needs (a deadlock).
 */
export async function recordDefinitions(
  db: Db,
  unsortedEvents: readonly NewEventDefinition[],
  unsortedProperties: readonly NewPropertyDefinition[],
  unsortedEventProperties: readonly NewEventProperty[],
): Promise<void> {
  const events = [...unsortedEvents].sort((a, b) => a.projectId - b.projectId || byText(a.name, b.name));
  const properties = [...unsortedProperties].sort(
    (a, b) => a.projectId - b.projectId || a.type - b.type || a.groupTypeIndex - b.groupTypeIndex || byText(a.name, b.name),
  );
  const eventProperties = [...unsortedEventProperties].sort(
    (a, b) => a.projectId - b.projectId || byText(a.event, b.event) || byText(a.property, b.property),
  );
  for (const rows of chunks(events, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('event_definitions')
      .values(
        rows.map((e) => ({
          id: randomUUID(),
          project_id: e.projectId,
          team_id: e.teamId,
          name: e.name,
          created_at: e.seenAt,
          last_seen_at: e.seenAt,
          tags: '[]',
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'name'])
          .doUpdateSet({ last_seen_at: sql`excluded.last_seen_at` })
          .where(sql<SqlBool>`event_definitions.last_seen_at is null or event_definitions.last_seen_at < excluded.last_seen_at`),
      )
      .execute();
  }
  for (const rows of chunks(properties, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('property_definitions')
      .values(
        rows.map((p) => ({
          id: randomUUID(),
          project_id: p.projectId,
          team_id: p.teamId,
          name: p.name,
          type: p.type,
          group_type_index: p.groupTypeIndex,
          property_type: p.propertyType,
          is_numerical: p.propertyType === 'Numeric',
          tags: '[]',
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'type', 'group_type_index', 'name'])
          .doUpdateSet({ property_type: sql`excluded.property_type`, is_numerical: sql`excluded.is_numerical` })
          .where('property_definitions.property_type', 'is', null),
      )
      .execute();
  }
  for (const rows of chunks(eventProperties, ROWS_PER_STATEMENT)) {
    await db
      .insertInto('event_properties')
      .values(rows.map((p) => ({ project_id: p.projectId, team_id: p.teamId, event: p.event, property: p.property })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

// ——— Read by the API ———

export interface EventDefinition {
  id: string;
  name: string;
  createdAt: string;
  lastSeenAt: string | null;
  description: string | null;
  tags: string[];
}

export interface PropertyDefinition {
  id: string;
  name: string;
  type: number;
  groupTypeIndex: number;
  propertyType: string | null;
  isNumerical: boolean;
  description: string | null;
  tags: string[];
  /** Whether one of the filter's events carries it; null when the list has no event filter. */
  isSeenOnFilteredEvents: boolean | null;
}

function toEventDefinition(r: Schema['event_definitions']): EventDefinition {
  return {
    id: r.id,
    name: r.name,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    description: r.description,
    tags: fromJson<string[]>(r.tags),
  };
}

/** Every whitespace-separated term must be in the name, in any case (PostHog's term search). */
function searchTerms(dialect: DialectName, column: string, search: string | undefined): Expression<SqlBool>[] {
  const terms = (search ?? '').split(/\s+/).filter((t) => t !== '');
  return terms.map((t) => ilike(dialect, sql.ref(column), literalContainsPattern(dialect === 'postgres' ? t : t.toLowerCase())));
}

export interface EventDefinitionFilter {
  search?: string | undefined;
  /** `event_custom`: names without `$`; `event_posthog`: names with it. */
  eventType: 'event' | 'event_custom' | 'event_posthog';
  names?: string[] | undefined;
  excluded?: string[] | undefined;
}

/** A page of the project's event definitions, with the count of all that match. */
export async function listEventDefinitions(
  database: Database,
  projectId: number,
  filter: EventDefinitionFilter,
  page: PageRequest,
): Promise<{ count: number; rows: EventDefinition[] }> {
  const { db, dialect } = database;
  let query = db.selectFrom('event_definitions').where('project_id', '=', projectId);
  for (const term of searchTerms(dialect, 'name', filter.search)) query = query.where(term);
  if (filter.eventType === 'event_custom') query = query.where('name', 'not like', '$%');
  if (filter.eventType === 'event_posthog') query = query.where('name', 'like', '$%');
  if (filter.names && filter.names.length > 0) query = query.where('name', 'in', filter.names);
  if (filter.excluded && filter.excluded.length > 0) query = query.where('name', 'not in', filter.excluded);
  const { count } = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  // PostHog: shorter names first when searching, then by the day last seen (latest first), then by name.
  const seenDay = dialect === 'postgres' ? sql`(last_seen_at at time zone 'UTC')::date` : sql`substr(last_seen_at, 1, 10)`;
  let ordered = query.selectAll();
  if (filter.search?.trim()) ordered = ordered.orderBy(sql`length(name)`);
  const rows = await ordered
    .orderBy(sql`${seenDay} desc nulls last`)
    .orderBy('name')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(count), rows: rows.map(toEventDefinition) };
}

export async function getEventDefinition(db: Db, projectId: number, id: string): Promise<EventDefinition | undefined> {
  const row = await db
    .selectFrom('event_definitions')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toEventDefinition(row) : undefined;
}

export async function updateEventDefinition(
  db: Db,
  projectId: number,
  id: string,
  changes: { description?: string | null; tags?: string[] },
): Promise<EventDefinition | undefined> {
  const set: { description?: string | null; tags?: string } = {};
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.tags !== undefined) set.tags = JSON.stringify(changes.tags);
  if (Object.keys(set).length > 0)
    await db.updateTable('event_definitions').set(set).where('project_id', '=', projectId).where('id', '=', id).execute();
  return getEventDefinition(db, projectId, id);
}

export interface PropertyDefinitionFilter {
  type: number;
  groupTypeIndex: number;
  search?: string | undefined;
  /** Exact names (`properties=a,b`). */
  names?: string[] | undefined;
  excluded: string[];
  isNumerical?: boolean | undefined;
  isFeatureFlag?: boolean | undefined;
  eventNames?: string[] | undefined;
  /** With eventNames: only the properties seen on those events. */
  onlySeenOnEvents?: boolean | undefined;
}

/** A page of the project's property definitions of one kind, with the count of all that match. */
export async function listPropertyDefinitions(
  database: Database,
  projectId: number,
  filter: PropertyDefinitionFilter,
  page: PageRequest,
): Promise<{ count: number; rows: PropertyDefinition[] }> {
  const { db, dialect } = database;
  const events = filter.eventNames ?? [];
  const seen = sql<SqlBool>`exists (select 1 from event_properties ep where ep.project_id = pd.project_id and ep.property = pd.name and ep.event in (${sql.join(
    events.length > 0 ? events : [''],
  )}))`;
  let query = db
    .selectFrom('property_definitions as pd')
    .where('pd.project_id', '=', projectId)
    .where('pd.type', '=', filter.type)
    .where('pd.group_type_index', '=', filter.groupTypeIndex);
  if (filter.excluded.length > 0) query = query.where('pd.name', 'not in', filter.excluded);
  for (const term of searchTerms(dialect, 'pd.name', filter.search)) query = query.where(term);
  if (filter.names && filter.names.length > 0) query = query.where('pd.name', 'in', filter.names);
  if (filter.isNumerical) query = query.where('pd.is_numerical', '=', true).where('pd.name', 'not in', ['distinct_id', 'timestamp']);
  if (filter.isFeatureFlag === true) query = query.where('pd.name', 'like', '$feature/%');
  if (filter.isFeatureFlag === false) query = query.where('pd.name', 'not like', '$feature/%');
  if (events.length > 0 && filter.onlySeenOnEvents) query = query.where(seen);
  const { count } = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query
    .selectAll('pd')
    .select(events.length > 0 ? seen.as('seen') : sql<null>`null`.as('seen'))
    .$if(events.length > 0, (q) => q.orderBy(sql`seen desc`))
    .orderBy('pd.name')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return {
    count: Number(count),
    rows: rows.map((r) => ({ ...toPropertyDefinition(r), isSeenOnFilteredEvents: r.seen === null ? null : fromBool(r.seen) })),
  };
}

function toPropertyDefinition(r: Schema['property_definitions']): PropertyDefinition {
  return {
    id: r.id,
    name: r.name,
    type: Number(r.type),
    groupTypeIndex: Number(r.group_type_index),
    propertyType: r.property_type,
    isNumerical: fromBool(r.is_numerical),
    description: r.description,
    tags: fromJson<string[]>(r.tags),
    isSeenOnFilteredEvents: null,
  };
}

export async function getPropertyDefinition(db: Db, projectId: number, id: string): Promise<PropertyDefinition | undefined> {
  const row = await db
    .selectFrom('property_definitions')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toPropertyDefinition(row) : undefined;
}

export async function updatePropertyDefinition(
  db: Db,
  projectId: number,
  id: string,
  changes: { description?: string | null; tags?: string[] },
): Promise<PropertyDefinition | undefined> {
  const set: { description?: string | null; tags?: string } = {};
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.tags !== undefined) set.tags = JSON.stringify(changes.tags);
  if (Object.keys(set).length > 0)
    await db.updateTable('property_definitions').set(set).where('project_id', '=', projectId).where('id', '=', id).execute();
  return getPropertyDefinition(db, projectId, id);
}

/**
 * The ids of the project's environments (whose events a definition's volume counts). Read on each
 * request (one indexed read): nothing in memory lists a project's environments (TeamCache holds
 * environments by API token), and one created by another process must count at once.
 */
export async function projectEnvironmentIds(db: Db, projectId: number): Promise<number[]> {
  const rows = await db.selectFrom('teams').select('id').where('project_id', '=', projectId).orderBy('id').execute();
  return rows.map((r) => Number(r.id));
}

export const DEFINITION_TABLES: ReadonlySet<string> = new Set(['event_definitions', 'property_definitions', 'event_properties']);

/**
 * An environment is being deleted (in the caller's transaction). Its project's definitions stay
 * while the project lives: the rows it first saw name `heir` (another environment of the project)
 * instead. Without an heir the project goes with it, and so do all its definitions.
 */
export async function releaseEnvironmentDefinitions(db: Db, teamId: number, projectId: number, heir: number | undefined): Promise<void> {
  for (const table of ['event_definitions', 'property_definitions', 'event_properties'] as const) {
    if (heir === undefined) await db.deleteFrom(table).where('project_id', '=', projectId).execute();
    else await db.updateTable(table).set({ team_id: heir }).where('team_id', '=', teamId).execute();
  }
}
