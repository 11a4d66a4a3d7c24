import type { SelectQueryBuilder } from 'kysely';
import type { Database, DialectName } from '../platform/db/database.js';
import { exactTimestamp } from '../platform/db/exact-timestamp.js';
import { jsonValueText } from '../platform/db/json-path.js';
import type { Schema } from '../platform/db/schema.js';

/** A select from `events` with the caller's selection, whatever it is. */
type EventsQuery = SelectQueryBuilder<Schema, 'events', any>;

export interface EventPagesOptions {
  /** Newest first (default: oldest first). */
  newestFirst?: boolean;
  /** Rows per query: what is held in memory at once. */
  pageSize: number;
  /** Stop after about this many rows (the page that reaches it is still handed over whole). */
  maxRows?: number;
}

/** Where a page of events ended: the last event's exact timestamp and uuid. */
export interface EventCursor {
  timestamp: string;
  uuid: string;
}

/**
 * One page of the events a query selects, in (timestamp, uuid) order, after `after` (all from the
 * start when null): the rows, and the cursor to read the next page from, or null when this page
 * was the last. Read by key (exact, see exact-timestamp.ts): one index range read that starts
 * where the last page ended.
 */
export async function readEventPage<R>(
  database: Database,
  query: () => EventsQuery,
  after: EventCursor | null,
  options: Pick<EventPagesOptions, 'newestFirst' | 'pageSize'>,
): Promise<{ rows: R[]; next: EventCursor | null }> {
  const direction = options.newestFirst ? 'desc' : 'asc';
  let q = query().select(['uuid as page_uuid']).select(exactTimestamp(database.dialect).as('page_timestamp'));
  if (after) {
    const { timestamp, uuid } = after;
    // The plain timestamp bound starts the index range at the cursor; the row value leaves out
    // what the last page had at that very instant. (Written as `timestamp > c or uuid > u`
    // instead, SQLite left the (team, event, timestamp) index for (team, timestamp) and read
    // every event of the range.) A run of one instant longer than a page is read again from its
    // start on each page: cheap unless thousands of events share one timestamp.
    q = options.newestFirst
      ? q.where('timestamp', '<=', timestamp).where((eb) => eb(eb.refTuple('timestamp', 'uuid'), '<', eb.tuple(timestamp, uuid)))
      : q.where('timestamp', '>=', timestamp).where((eb) => eb(eb.refTuple('timestamp', 'uuid'), '>', eb.tuple(timestamp, uuid)));
  }
  const rows = (await q.orderBy('timestamp', direction).orderBy('uuid', direction).limit(options.pageSize).execute()) as Array<
    R & { page_uuid: string; page_timestamp: string }
  >;
  const last = rows.length < options.pageSize ? undefined : rows[rows.length - 1]!;
  return { rows, next: last ? { timestamp: last.page_timestamp, uuid: last.page_uuid } : null };
}

/**
 * Reads the events a query selects a page at a time (readEventPage), handing each page to
 * `visit`: for reads whose ranges may hold more events than the process should hold at once
 * (trends, sessions, web vitals). The connection is free between pages.
 */
export async function forEachEventPage<R>(
  database: Database,
  query: () => EventsQuery,
  options: EventPagesOptions,
  visit: (rows: R[]) => void | Promise<void>,
): Promise<void> {
  let after: EventCursor | null = null;
  for (let read = 0; options.maxRows === undefined || read < options.maxRows;) {
    const page: { rows: R[]; next: EventCursor | null } = await readEventPage<R>(database, query, after, options);
    if (page.rows.length > 0) await visit(page.rows);
    read += page.rows.length;
    if (page.next === null) return;
    after = page.next;
  }
}

/** The selections reading only these keys of `properties`, as `p0`, `p1`, … (JSON text). */
export function propertyColumns(dialect: DialectName, keys: readonly string[]) {
  return keys.map((key, i) => jsonValueText(dialect, 'properties', key).as(`p${i}`));
}

/**
 * The keys read by propertyColumns back into their values (missing keys stay absent). A
 * null-prototype bag: a key `__proto__` is a property like any other, as in the stored JSON.
 */
export function readPropertyColumns(row: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const properties = Object.create(null) as Record<string, unknown>;
  keys.forEach((key, i) => {
    const text = row[`p${i}`];
    if (typeof text === 'string') properties[key] = JSON.parse(text);
  });
  return properties;
}
