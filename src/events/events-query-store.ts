import type { Database } from '../platform/db/database.js';
import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { ch, chTime, fromClickHouseTime, join, raw, type ChSql } from '../platform/analytics/sql.js';
import { compileClickHouseCondition } from '../posthog/clickhouse-property-conditions.js';
import { readPropertyCondition } from '../posthog/property-conditions.js';
import { isJsonObject } from '../lib/json-object.js';
import { getPersonsByDistinctIds } from '../persons/batch-store.js';
import { materializedColumn, personIdExpression, personOverridesJoin } from './analytics-columns.js';
import { EventsQueryError, type EventsColumn, type EventsQuery } from './events-query.js';
import { DateOutOfRangeError, relativeDateParse } from './relative-date.js';

const SOURCE = { column: 'e.properties', columnOf: materializedColumn };
const PERSON = personIdExpression();

/** The SQL a column reads, as aliases `c<i>_<part>`. */
function selectOf(column: EventsColumn, i: number): ChSql[] {
  const alias = (part: string) => `c${i}_${part}`;
  switch (column.kind) {
    case 'star':
      return [
        raw(`toString(e.uuid) AS ${alias('uuid')}, e.event AS ${alias('event')}, e.properties AS ${alias('properties')}`),
        raw(
          `e.timestamp AS ${alias('timestamp')}, e.distinct_id AS ${alias('distinct_id')}, e.elements_chain AS ${alias('elements_chain')}`,
        ),
        raw(`e.created_at AS ${alias('created_at')}`),
      ];
    case 'person':
      return [raw(`e.distinct_id AS ${alias('distinct_id')}`)];
    case 'count':
      return [raw(`count() AS ${alias('value')}`)];
    case 'field': {
      const field = column.field;
      const expression = field === 'uuid' ? 'toString(e.uuid)' : field === 'person_id' ? `toString(${PERSON})` : `e.${field}`;
      return [raw(`${expression} AS ${alias('value')}`)];
    }
    case 'properties': {
      const texts = column.keys.map((key) => {
        const materialized = materializedColumn(key);
        return materialized ? raw(`e.${materialized}`) : ch`JSONExtract(e.properties, ${key}, 'Nullable(String)')`;
      });
      return [texts.length === 1 ? ch`${texts[0]!} AS ${raw(alias('value'))}` : ch`coalesce(${join(texts)}) AS ${raw(alias('value'))}`];
    }
  }
}

function typeOf(column: EventsColumn): string {
  if (column.kind === 'star' || column.kind === 'person') return 'Tuple';
  if (column.kind === 'count') return 'UInt64';
  if (column.kind === 'properties') return 'Nullable(String)';
  if (column.field === 'timestamp' || column.field === 'created_at') return "DateTime64(6, 'UTC')";
  return column.field === 'uuid' || column.field === 'person_id' ? 'UUID' : 'String';
}

function instant(text: string, timezone: string, attr: string): Date {
  try {
    return new Date(relativeDateParse(text, timezone));
  } catch (error) {
    if (error instanceof DateOutOfRangeError) throw new EventsQueryError(`Unreadable date "${text}".`, attr);
    throw new EventsQueryError(`Unreadable date "${text}".`, attr);
  }
}

/**
 * PostHog's `event_metadata` filters: the event's own text fields rather than a property (its
 * activity view filters by `distinct_id` this way). Each key reads its column.
 */
const METADATA_COLUMNS: Record<string, string> = { distinct_id: 'e.distinct_id', event: 'e.event' };
const METADATA = {
  column: 'e.properties',
  columnOf: (key: string) => (Object.hasOwn(METADATA_COLUMNS, key) ? METADATA_COLUMNS[key] : undefined),
};

function propertyConditions(filters: unknown[]): ChSql[] {
  return filters.flatMap((filter, i) => {
    if (!isJsonObject(filter) || typeof filter.key !== 'string')
      throw new EventsQueryError('Invalid property filter.', `query__properties__${i}`);
    const type = filter.type ?? 'event';
    if (type !== 'event' && type !== 'event_metadata')
      throw new EventsQueryError(`Property filters of type "${String(type)}" are not supported here.`, `query__properties__${i}`);
    if (type === 'event_metadata' && !Object.hasOwn(METADATA_COLUMNS, filter.key)) {
      throw new EventsQueryError(
        `Event metadata filters read ${Object.keys(METADATA_COLUMNS).join(' and ')}, not ${JSON.stringify(filter.key)}.`,
        `query__properties__${i}`,
      );
    }
    const condition = compileClickHouseCondition(
      readPropertyCondition({ key: filter.key, operator: filter.operator, value: filter.value }, 'events'),
      type === 'event' ? SOURCE : METADATA,
    );
    return condition ? [condition] : [];
  });
}

export interface EventsQueryResponse {
  columns: string[];
  types: string[];
  results: unknown[][];
  hasMore: boolean;
  limit: number;
  offset: number;
}

/** The query's rows, computed by ClickHouse in the environment's events only. */
export async function runEventsQuery(
  stores: { database: Database; analytics: AnalyticsEngine },
  teamId: number,
  timezone: string,
  query: EventsQuery,
): Promise<EventsQueryResponse> {
  const { analytics } = stores;
  const where: ChSql[] = [ch`e.team_id = ${teamId}`];
  if (query.event !== null) where.push(ch`e.event = ${query.event}`);
  if (query.after !== null) where.push(ch`e.timestamp >= ${chTime(instant(query.after, timezone, 'query__after'))}`);
  if (query.before !== null) where.push(ch`e.timestamp < ${chTime(instant(query.before, timezone, 'query__before'))}`);
  where.push(...propertyConditions(query.properties));
  const needsPerson =
    query.personId !== null ||
    query.columns.some((c) => c.kind === 'field' && c.field === 'person_id') ||
    query.orderBy.some((o) => o.column === 'person_id');
  if (query.personId !== null) where.push(ch`toString(${raw(PERSON)}) = ${query.personId}`);
  const aggregated = query.columns.some((c) => c.kind === 'count');
  const groupBy = aggregated ? query.columns.flatMap((c, i) => (c.kind === 'count' ? [] : [raw(`c${i}_value`)])) : [];
  const order = query.orderBy.map(({ column, descending }) => {
    const direction = descending ? 'DESC' : 'ASC';
    if (typeof column === 'string') return raw(`${column === 'person_id' ? PERSON : `e.${column}`} ${direction}`);
    const c = query.columns[column]!;
    const name = c.kind === 'star' ? `c${column}_timestamp` : c.kind === 'person' ? `c${column}_distinct_id` : `c${column}_value`;
    return raw(`${name} ${direction}`);
  });
  // A stable order whatever is asked: the rows of one page never depend on ClickHouse's reading order.
  if (aggregated) order.push(...groupBy.map((column) => ch`${column} ASC`));
  else order.push(raw('e.timestamp DESC'), raw('e.uuid DESC'));
  const statement = ch`SELECT ${join(query.columns.flatMap(selectOf))}
    FROM ${raw(analytics.table('events'))} AS e
    ${raw(needsPerson ? personOverridesJoin(analytics, '{team:Int64}') : '')}
    WHERE ${join(where, ' AND ')}
    ${groupBy.length > 0 ? ch`GROUP BY ${join(groupBy)}` : raw('')}
    ${order.length > 0 ? ch`ORDER BY ${join(order)}` : raw('')}
    LIMIT ${query.limit + 1} OFFSET ${query.offset}`;
  const { sql, params } = statement.compile();
  const rows = await analytics.query<Record<string, unknown>>(sql, { ...params, team: teamId });
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  const persons = query.columns.some((c) => c.kind === 'person')
    ? await getPersonsByDistinctIds(stores.database.db, teamId, [
        ...new Set(page.flatMap((row) => query.columns.flatMap((c, i) => (c.kind === 'person' ? [String(row[`c${i}_distinct_id`])] : [])))),
      ])
    : new Map();
  const results = page.map((row) =>
    query.columns.map((column, i) => {
      const value = (part: string) => row[`c${i}_${part}`];
      switch (column.kind) {
        case 'star':
          return {
            uuid: value('uuid'),
            event: value('event'),
            properties: JSON.parse(String(value('properties'))) as unknown,
            timestamp: fromClickHouseTime(String(value('timestamp'))),
            team_id: teamId,
            distinct_id: value('distinct_id'),
            elements_chain: value('elements_chain'),
            created_at: fromClickHouseTime(String(value('created_at'))),
          };
        case 'person': {
          const distinctId = String(value('distinct_id'));
          const person = persons.get(distinctId);
          return person
            ? { uuid: person.uuid, created_at: person.createdAt, properties: person.properties, distinct_id: distinctId }
            : { uuid: null, created_at: null, properties: {}, distinct_id: distinctId };
        }
        case 'field':
          return column.field === 'timestamp' || column.field === 'created_at'
            ? fromClickHouseTime(String(value('value')))
            : value('value');
        default:
          return value('value');
      }
    }),
  );
  return { columns: query.select, types: query.columns.map(typeOf), results, hasMore, limit: query.limit, offset: query.offset };
}
