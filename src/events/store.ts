import type { Expression, ExpressionBuilder, Kysely, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { exactTimestamp } from '../platform/db/exact-timestamp.js';
import { compileCondition, readPropertyCondition } from '../posthog/property-conditions.js';
import type { Schema } from '../platform/db/schema.js';
import { fromJson } from '../platform/db/values.js';
import { isGroup, readsPersons, type PropertyFilter, type PropertyNode } from './property-groups.js';

export interface StoredEvent {
  uuid: string;
  event: string;
  distinctId: string;
  /** The person the event was processed with (persons merged since have other uuids: see listEvents). */
  personId: string | null;
  properties: Record<string, unknown>;
  timestamp: string;
  elementsChain: string | null;
}

/** An event's place in the list's order: its exact stored timestamp and its uuid. */
export interface EventListCursor {
  timestamp: string;
  uuid: string;
}

export interface EventFilter {
  event?: string | undefined;
  distinctId?: string | undefined;
  /** A person's uuid (canonical) or numeric id, as PostHog's `get_person_by_pk_or_uuid` takes it. */
  person?: { uuid: string } | { id: number } | undefined;
  after?: string | undefined;
  before?: string | undefined;
  /** Only events before this one in the list's order (newest first): what `next` continues from. */
  beforeEvent?: EventListCursor | undefined;
  properties?: PropertyNode | undefined;
}

type EventQuery = SelectQueryBuilder<Schema, 'events', object>;
type Condition = Expression<SqlBool>;
type Builder = ExpressionBuilder<any, any>;

/**
 * One property filter on the events (event properties) or their persons (person properties), as
 * the persons list compiles its filters (posthog/property-conditions.ts); null when it filters nothing.
 */
function filterCondition(database: Database, filter: PropertyFilter): Condition | null {
  const column = filter.type === 'person' ? 'persons.properties' : 'events.properties';
  return compileCondition(database.dialect, readPropertyCondition(filter, 'the events list'), column);
}

/**
 * A filter tree as PostHog's `property_to_expr` builds it: a group of one is its member, an empty
 * group is true (null here: no condition), AND and OR as written.
 */
function nodeCondition(database: Database, eb: Builder, node: PropertyNode): Condition | null {
  if (!isGroup(node)) return filterCondition(database, node);
  const members = node.values.map((v) => nodeCondition(database, eb, v));
  // An empty member is true: it makes an OR true and drops out of an AND.
  if (members.length === 0 || (node.type === 'OR' && members.includes(null))) return null;
  const kept = members.filter((m): m is Condition => m !== null);
  if (kept.length === 0) return null;
  if (kept.length === 1) return kept[0]!;
  return node.type === 'OR' ? eb.or(kept) : eb.and(kept);
}

export async function listEvents(
  database: Database,
  teamId: number,
  filter: EventFilter,
  page: { limit: number; offset: number },
): Promise<Array<StoredEvent & { cursor: EventListCursor }>> {
  const db = database.db as Kysely<Schema>;
  let query = db.selectFrom('events').where('events.team_id', '=', teamId) as EventQuery;
  // An event's person is the one its distinct id belongs to now, as in PostHog (its events API
  // resolves persons by distinct id): events sent before a merge, or personless before a sign-up,
  // belong to the person their distinct id was merged into.
  if (readsPersons(filter.properties)) {
    query = query
      .leftJoin('person_distinct_ids as event_person', (join) =>
        join.onRef('event_person.distinct_id', '=', 'events.distinct_id').on('event_person.team_id', '=', teamId),
      )
      .leftJoin('persons', (join) =>
        join.onRef('persons.id', '=', 'event_person.person_id').on('persons.team_id', '=', teamId),
      ) as unknown as EventQuery;
  }
  if (filter.event) query = query.where('events.event', '=', filter.event);
  if (filter.distinctId !== undefined) query = query.where('events.distinct_id', '=', filter.distinctId);
  if (filter.person) {
    const person = filter.person;
    query = query.where('events.distinct_id', 'in', (eb) => {
      const owned = eb
        .selectFrom('person_distinct_ids as owned')
        .innerJoin('persons as owner', 'owner.id', 'owned.person_id')
        .select('owned.distinct_id')
        .where('owner.team_id', '=', teamId);
      return 'uuid' in person ? owned.where('owner.uuid', '=', person.uuid) : owned.where('owner.id', '=', person.id);
    });
  }
  if (filter.after) query = query.where('events.timestamp', '>', filter.after);
  if (filter.before) query = query.where('events.timestamp', '<', filter.before);
  const cursor = filter.beforeEvent;
  if (cursor) {
    // The plain bound starts the index range at the cursor; the row value leaves out what came
    // before it at that very instant (as event-pages.ts reads by key).
    query = query
      .where('events.timestamp', '<=', cursor.timestamp)
      .where((eb) => eb(eb.refTuple('events.timestamp', 'events.uuid'), '<', eb.tuple(cursor.timestamp, cursor.uuid)));
  }
  const properties = filter.properties;
  if (properties) {
    query = query.where((eb) => nodeCondition(database, eb, properties) ?? eb.lit(true));
  }
  const rows = await query
    .select([
      'events.uuid',
      'events.event',
      'events.distinct_id',
      'events.person_id',
      'events.properties',
      'events.timestamp',
      'events.elements_chain',
    ])
    .select(exactTimestamp(database.dialect, 'events.timestamp').as('exact_timestamp'))
    .orderBy('events.timestamp', 'desc')
    .orderBy('events.uuid', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => ({
    uuid: r.uuid,
    event: r.event,
    distinctId: r.distinct_id,
    personId: r.person_id,
    properties: fromJson<Record<string, unknown>>(r.properties) ?? {},
    timestamp: r.timestamp,
    elementsChain: r.elements_chain,
    cursor: { timestamp: r.exact_timestamp, uuid: r.uuid },
  }));
}

/** Where an event stands in the list's order; undefined when it is not (or no longer) stored. */
export async function eventListCursor(database: Database, teamId: number, uuid: string): Promise<EventListCursor | undefined> {
  const row = await database.db
    .selectFrom('events')
    .select(exactTimestamp(database.dialect).as('timestamp'))
    .where('team_id', '=', teamId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
  return row && { timestamp: row.timestamp, uuid };
}

export async function getEvent(database: Database, teamId: number, uuid: string): Promise<StoredEvent | undefined> {
  const row = await database.db.selectFrom('events').selectAll().where('team_id', '=', teamId).where('uuid', '=', uuid).executeTakeFirst();
  return (
    row && {
      uuid: row.uuid,
      event: row.event,
      distinctId: row.distinct_id,
      personId: row.person_id,
      properties: fromJson<Record<string, unknown>>(row.properties) ?? {},
      timestamp: row.timestamp,
      elementsChain: row.elements_chain,
    }
  );
}
