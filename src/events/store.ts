/**
 * The events API's reads of events, from ClickHouse. The list is newest first, then by uuid as
 * text (ClickHouse orders UUIDs by their halves, not as they are written), paged with LIMIT.
 */
import type { Database } from '../platform/db/database.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, fromClickHouseTime, join, raw, typed, type ChSql } from '../platform/analytics/sql.js';
import { compileCondition, readPropertyCondition } from '../posthog/property-conditions.js';
import { compileClickHouseCondition } from '../posthog/clickhouse-property-conditions.js';
import { materializedColumn } from './analytics-columns.js';
import { distinctIdsOfPerson, personFilterIds } from './owners-store.js';
import { isGroup, type PropertyFilter, type PropertyNode } from './property-groups.js';

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

/** An event's place in the list's order: its exact stored timestamp (ClickHouse's text) and its uuid. */
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

interface Stores {
  database: Database;
  analytics: AnalyticsEngine;
}

/** Text uuids under names of their own: a select alias named as a column would stand for it in WHERE. */
interface EventRow {
  event_uuid: string;
  event: string;
  distinct_id: string;
  person_uuid: string;
  properties: string;
  timestamp: string;
  elements_chain: string;
}

const COLUMNS = raw(
  'toString(uuid) AS event_uuid, event, distinct_id, toString(person_id) AS person_uuid, properties, timestamp, elements_chain',
);

function toEvent(row: EventRow): StoredEvent {
  return {
    uuid: row.event_uuid,
    event: row.event,
    distinctId: row.distinct_id,
    personId: row.person_uuid,
    properties: JSON.parse(row.properties) as Record<string, unknown>,
    timestamp: fromClickHouseTime(row.timestamp),
    elementsChain: row.elements_chain === '' ? null : row.elements_chain,
  };
}

const byDistinctIds = (ids: string[], negated: boolean): ChSql =>
  ids.length === 0 ? raw(negated ? '1' : '0') : ch`distinct_id ${raw(negated ? 'NOT IN' : 'IN')} ${typed('Array(String)', ids)}`;

/**
 * A person property filter on the event's person now (its distinct id's, as PostHog's events API
 * resolves persons): persons live in SQL, so it is resolved there to distinct ids.
 */
async function personCondition(database: Database, teamId: number, filter: PropertyFilter): Promise<ChSql | null> {
  const condition = compileCondition(database.dialect, readPropertyCondition(filter, 'the events list'), 'persons.properties');
  if (!condition) return null;
  const ids = await personFilterIds(database, teamId, condition);
  return 'included' in ids ? byDistinctIds(ids.included, false) : byDistinctIds(ids.excluded, true);
}

/**
 * A filter tree as PostHog's `property_to_expr` builds it: a group of one is its member, an empty
 * group is true (null here: no condition), AND and OR as written. Every filter is checked before
 * any person filter is looked up.
 */
async function nodeCondition(database: Database, teamId: number, node: PropertyNode): Promise<ChSql | null> {
  const persons = new Map<PropertyFilter, ChSql | null>();
  const compile = (n: PropertyNode): ChSql | null => {
    if (!isGroup(n)) {
      if (n.type === 'person') return persons.get(n) ?? null;
      const condition = readPropertyCondition(n, 'the events list');
      return compileClickHouseCondition(condition, { column: 'properties', columnOf: materializedColumn });
    }
    const members = n.values.map(compile);
    // An empty member is true: it makes an OR true and drops out of an AND.
    if (members.length === 0 || (n.type === 'OR' && members.includes(null))) return null;
    const kept = members.filter((m): m is ChSql => m !== null);
    if (kept.length === 0) return null;
    if (kept.length === 1) return kept[0]!;
    return ch`(${join(kept, n.type === 'OR' ? ' OR ' : ' AND ')})`;
  };
  const personFilters: PropertyFilter[] = [];
  const check = (n: PropertyNode): void => {
    if (isGroup(n)) return n.values.forEach(check);
    readPropertyCondition(n, 'the events list');
    if (n.type === 'person') personFilters.push(n);
  };
  check(node);
  for (const filter of personFilters) persons.set(filter, await personCondition(database, teamId, filter));
  return compile(node);
}

export async function listEvents(
  stores: Stores,
  teamId: number,
  filter: EventFilter,
  page: { limit: number; offset: number },
): Promise<Array<StoredEvent & { cursor: EventListCursor }>> {
  const where: ChSql[] = [ch`team_id = ${teamId}`];
  if (filter.event) where.push(ch`event = ${filter.event}`);
  if (filter.distinctId !== undefined) where.push(ch`distinct_id = ${filter.distinctId}`);
  if (filter.properties) {
    const condition = await nodeCondition(stores.database, teamId, filter.properties);
    if (condition) where.push(condition);
  }
  if (filter.person) {
    // An event is the person's when its distinct id is the person's now.
    const ids = await distinctIdsOfPerson(stores.database, teamId, filter.person);
    if (ids.length === 0) return [];
    where.push(byDistinctIds(ids, false));
  }
  if (filter.after) where.push(ch`timestamp > ${chTime(filter.after)}`);
  if (filter.before) where.push(ch`timestamp < ${chTime(filter.before)}`);
  const cursor = filter.beforeEvent;
  if (cursor) {
    // The plain bound narrows the read to the cursor's range; the tuple leaves out what came
    // before it at that very instant.
    const at = chTime(cursor.timestamp);
    where.push(ch`timestamp <= ${at}`, ch`(timestamp, toString(uuid)) < (${at}, ${cursor.uuid})`);
  }
  const { sql, params } = ch`SELECT ${COLUMNS} FROM ${raw(stores.analytics.table('events'))}
    WHERE ${join(where, ' AND ')}
    ORDER BY timestamp DESC, toString(uuid) DESC
    LIMIT ${page.limit} OFFSET ${page.offset}`.compile();
  const rows = await stores.analytics.query<EventRow>(sql, params);
  return rows.map((r) => ({ ...toEvent(r), cursor: { timestamp: r.timestamp, uuid: r.event_uuid } }));
}

/** Where an event stands in the list's order; undefined when it is not (or no longer) stored. */
export async function eventListCursor(analytics: AnalyticsEngine, teamId: number, uuid: string): Promise<EventListCursor | undefined> {
  const { sql, params } = ch`SELECT timestamp FROM ${raw(analytics.table('events'))}
    WHERE team_id = ${teamId} AND uuid = ${typed('UUID', uuid)} LIMIT 1`.compile();
  const [row] = await analytics.query<{ timestamp: string }>(sql, params);
  return row && { timestamp: row.timestamp, uuid };
}

export async function getEvent(analytics: AnalyticsEngine, teamId: number, uuid: string): Promise<StoredEvent | undefined> {
  const { sql, params } = ch`SELECT ${COLUMNS} FROM ${raw(analytics.table('events'))}
    WHERE team_id = ${teamId} AND uuid = ${typed('UUID', uuid)} LIMIT 1`.compile();
  const [row] = await analytics.query<EventRow>(sql, params);
  return row && toEvent(row);
}
