import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/database.js';
import { jsonHasValue, jsonNumber, jsonText } from '../db/json-path.js';
import type { Schema } from '../db/schema.js';
import { fromJson } from '../db/values.js';

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

/** A property filter as PostHog's API takes it: `{key, value, operator, type}`. */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string;
  type?: string;
}

export interface EventFilter {
  event?: string | undefined;
  distinctId?: string | undefined;
  personUuid?: string | undefined;
  after?: string | undefined;
  before?: string | undefined;
  properties?: PropertyFilter[] | undefined;
}

export class UnsupportedFilterError extends Error {}

type EventQuery = SelectQueryBuilder<Schema, 'events', object>;

/** Applies one property filter to the events (event properties) or their persons (person properties). */
function applyPropertyFilter(database: Database, query: EventQuery, filter: PropertyFilter): EventQuery {
  const { dialect } = database;
  const personScoped = filter.type === 'person';
  const column = personScoped ? 'persons.properties' : 'events.properties';
  const text = jsonText(dialect, column, filter.key);
  const values = (Array.isArray(filter.value) ? filter.value : [filter.value]).map((v) =>
    typeof v === 'string' ? v : JSON.stringify(v),
  );
  const operator = filter.operator ?? 'exact';
  const apply = (q: EventQuery): EventQuery => {
    switch (operator) {
      case 'exact':
        return q.where(text, 'in', values);
      case 'is_not':
        return q.where((eb) => eb.or([eb(text, 'is', null), eb(text, 'not in', values)]));
      case 'icontains':
        return q.where((eb) => eb(eb.fn('lower', [text]), 'like', `%${String(values[0] ?? '').toLowerCase()}%`));
      case 'not_icontains':
        return q.where((eb) =>
          eb.or([eb(text, 'is', null), eb(eb.fn('lower', [text]), 'not like', `%${String(values[0] ?? '').toLowerCase()}%`)]),
        );
      case 'is_set':
        return q.where(jsonHasValue(dialect, column, filter.key), '=', true as never);
      case 'is_not_set':
        return q.where(jsonHasValue(dialect, column, filter.key), '=', false as never);
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const n = Number(values[0]);
        if (!Number.isFinite(n)) throw new UnsupportedFilterError(`"${operator}" needs a number`);
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator] as '>' | '>=' | '<' | '<=';
        return q.where(jsonNumber(dialect, column, filter.key), op, n);
      }
      default:
        throw new UnsupportedFilterError(`unsupported property operator "${operator}"`);
    }
  };
  return apply(query);
}

export async function listEvents(
  database: Database,
  teamId: number,
  filter: EventFilter,
  limit: number,
): Promise<StoredEvent[]> {
  const db = database.db as Kysely<Schema>;
  let query = db.selectFrom('events').where('events.team_id', '=', teamId) as EventQuery;
  // An event's person is the one its distinct id belongs to now, as in PostHog (its events API
  // resolves persons by distinct id): events sent before a merge, or personless before a sign-up,
  // belong to the person their distinct id was merged into.
  if (filter.properties?.some((p) => p.type === 'person')) {
    query = query
      .leftJoin('person_distinct_ids as event_person', (join) =>
        join.onRef('event_person.distinct_id', '=', 'events.distinct_id').on('event_person.team_id', '=', teamId),
      )
      .leftJoin('persons', (join) => join.onRef('persons.id', '=', 'event_person.person_id').on('persons.team_id', '=', teamId)) as unknown as EventQuery;
  }
  if (filter.event) query = query.where('events.event', '=', filter.event);
  if (filter.distinctId) query = query.where('events.distinct_id', '=', filter.distinctId);
  if (filter.personUuid) {
    const personUuid = filter.personUuid;
    query = query.where('events.distinct_id', 'in', (eb) =>
      eb
        .selectFrom('person_distinct_ids as owned')
        .innerJoin('persons as owner', 'owner.id', 'owned.person_id')
        .select('owned.distinct_id')
        .where('owner.team_id', '=', teamId)
        .where('owner.uuid', '=', personUuid),
    );
  }
  if (filter.after) query = query.where('events.timestamp', '>', filter.after);
  if (filter.before) query = query.where('events.timestamp', '<', filter.before);
  for (const property of filter.properties ?? []) query = applyPropertyFilter(database, query, property);
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
    .orderBy('events.timestamp', 'desc')
    .orderBy('events.uuid', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    uuid: r.uuid,
    event: r.event,
    distinctId: r.distinct_id,
    personId: r.person_id,
    properties: fromJson<Record<string, unknown>>(r.properties) ?? {},
    timestamp: r.timestamp,
    elementsChain: r.elements_chain,
  }));
}

export async function getEvent(database: Database, teamId: number, uuid: string): Promise<StoredEvent | undefined> {
  const row = await database.db
    .selectFrom('events')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
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
