/**
 * PostHog's EventsQuery (the activity table of its app, and API scripts), as a pure core: reading
 * the query into columns Hoglet can compute. PostHog's `select` items are HogQL; Hoglet takes the
 * ones its app and the docs use (the event's fields, `properties.<key>`, `person`, `coalesce` of
 * properties, `count()`), each optionally labelled with `-- label`, and says which it does not.
 */
import { isJsonObject } from '../lib/json-object.js';

export const MAX_LIMIT = 10_000;
export const DEFAULT_LIMIT = 100;

/** One select item: what it reads. */
export type EventsColumn =
  { kind: 'star' } | { kind: 'field'; field: EventField } | { kind: 'properties'; keys: string[] } | { kind: 'person' } | { kind: 'count' };

export const EVENT_FIELDS = [
  'uuid',
  'event',
  'distinct_id',
  'timestamp',
  'person_id',
  'properties',
  'elements_chain',
  'created_at',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

export interface EventsQuery {
  select: string[];
  columns: EventsColumn[];
  event: string | null;
  properties: unknown[];
  personId: string | null;
  after: string | null;
  before: string | null;
  /** A selected column's index, or an event field that need not be selected. */
  orderBy: Array<{ column: number | EventField; descending: boolean }>;
  limit: number;
  offset: number;
}

/** A query Hoglet cannot run; `attr` names the field, as PostHog's validation errors do. */
export class EventsQueryError extends Error {
  constructor(
    message: string,
    readonly attr: string,
  ) {
    super(message);
  }
}

const PROPERTY = /^properties\.(?:`([^`]+)`|"([^"]+)"|([$\w][\w$.-]*))$/;

function propertyKey(text: string): string | undefined {
  const match = PROPERTY.exec(text);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** A select item without its `-- label`. */
function expressionOf(item: string): string {
  const comment = item.indexOf(' -- ');
  return (comment === -1 ? item : item.slice(0, comment)).trim();
}

export function readColumn(item: string, attr: string): EventsColumn {
  const text = expressionOf(item);
  if (text === '*') return { kind: 'star' };
  if (text === 'person') return { kind: 'person' };
  if (/^count\(\s*\*?\s*\)$/i.test(text)) return { kind: 'count' };
  if ((EVENT_FIELDS as readonly string[]).includes(text)) return { kind: 'field', field: text as EventField };
  const key = propertyKey(text);
  if (key !== undefined) return { kind: 'properties', keys: [key] };
  const coalesce = /^coalesce\((.*)\)$/i.exec(text);
  if (coalesce) {
    const keys = coalesce[1]!.split(',').map((part) => propertyKey(part.trim()));
    if (keys.length > 0 && keys.every((k) => k !== undefined)) return { kind: 'properties', keys: keys as string[] };
  }
  throw new EventsQueryError(
    `Unsupported select expression: ${JSON.stringify(text)}. Hoglet reads *, the event's fields, properties.<key>, coalesce(properties.…), person and count().`,
    attr,
  );
}

function optionalString(value: unknown, attr: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new EventsQueryError('Not a valid string.', attr);
  return value;
}

function wholeNumber(value: unknown, fallback: number, min: number, max: number, attr: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new EventsQueryError(`Ensure this value is a whole number from ${min} to ${max}.`, attr);
  }
  return value;
}

export function readEventsQuery(source: Record<string, unknown>, prefix = 'query__'): EventsQuery {
  const attr = (name: string) => `${prefix}${name}`;
  if (!Array.isArray(source.select) || source.select.length === 0 || !source.select.every((s) => typeof s === 'string')) {
    throw new EventsQueryError('select must be a list of expressions.', attr('select'));
  }
  const select = source.select as string[];
  const columns = select.map((item, i) => readColumn(item, attr(`select__${i}`)));
  if (source.where !== undefined && source.where !== null && !(Array.isArray(source.where) && source.where.length === 0)) {
    throw new EventsQueryError('HogQL where clauses are not supported; use properties, event, personId, after and before.', attr('where'));
  }
  const properties = source.properties ?? [];
  if (!Array.isArray(properties)) throw new EventsQueryError('Expected a list of property filters.', attr('properties'));
  const fixed = Array.isArray(source.fixedProperties) ? source.fixedProperties : [];
  const aggregated = columns.some((c) => c.kind === 'count');
  if (aggregated && columns.some((c) => c.kind === 'star' || c.kind === 'person')) {
    throw new EventsQueryError('count() cannot be selected beside * or person.', attr('select'));
  }
  const orderBy = readOrderBy(source.orderBy, select, aggregated, attr('orderBy'));
  return {
    select,
    columns,
    event: optionalString(source.event, attr('event')),
    properties: [...properties, ...fixed] as unknown[],
    personId: optionalString(source.personId, attr('personId')),
    after: optionalString(source.after, attr('after')),
    before: optionalString(source.before, attr('before')),
    orderBy,
    limit: wholeNumber(source.limit, DEFAULT_LIMIT, 1, MAX_LIMIT, attr('limit')),
    offset: wholeNumber(source.offset, 0, 0, 1_000_000, attr('offset')),
  };
}

/**
 * `orderBy` items name a selected column (`timestamp DESC`, `count() DESC`); by default newest
 * first, or the largest count first.
 */
function readOrderBy(raw: unknown, select: string[], aggregated: boolean, attr: string): EventsQuery['orderBy'] {
  const expressions = select.map(expressionOf);
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) {
    const fallback = aggregated ? expressions.findIndex((e) => /^count\(/i.test(e)) : expressions.indexOf('timestamp');
    return fallback === -1 ? [] : [{ column: fallback, descending: true }];
  }
  if (!Array.isArray(raw)) throw new EventsQueryError('Expected a list.', attr);
  return raw.map((item, i) => {
    const match = typeof item === 'string' ? /^(.*?)(?:\s+(ASC|DESC))?$/i.exec(item.trim()) : null;
    const expression = match?.[1]!.trim() ?? '';
    const index = expressions.indexOf(expression);
    const field = !aggregated && (EVENT_FIELDS as readonly string[]).includes(expression) ? (expression as EventField) : undefined;
    if (index === -1 && field === undefined) {
      throw new EventsQueryError("orderBy may only name selected columns or the event's fields.", `${attr}__${i}`);
    }
    return { column: index === -1 ? field! : index, descending: (match![2] ?? 'ASC').toUpperCase() === 'DESC' };
  });
}

export function isEventsQuery(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && value.kind === 'EventsQuery';
}
