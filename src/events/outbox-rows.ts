import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { isPostgres } from '../platform/db/dialect.js';

type Db = Kysely<Schema>;

/**
 * What a worker batch's transaction writes for ClickHouse: its events' JSONEachRow text and its
 * persons' overrides, as one outbox row (addToOutbox), which outbox-copy.ts copies. The rows this
 * process committed stay in memory for that copy (KeptOutboxRows).
 */
/**
 * One event as ClickHouse's `events` table takes it, a line of JSONEachRow. `propertiesJson` is a
 * JSON object's text, as JSON.stringify writes it: spliced in as it is, not escaped into a JSON
 * string, and ClickHouse stores an object given for a String column as its text, byte for byte
 * (insertStatement's setting). Rows written before this (`"properties":"{\"…"`) hold a JSON string
 * there instead, which reads back as the same text: outbox rows of either kind copy alike, even in
 * one insert.
 */
export function eventRow(
  teamId: number,
  uuid: string,
  event: string,
  distinctId: string,
  personId: string,
  propertiesJson: string,
  timestamp: string,
  createdAt: string,
  sessionId: string | null,
  elementsChain: string | null,
): string {
  return `${eventRowHead(teamId, uuid, event, distinctId, personId)}${propertiesJson}${eventRowTail(timestamp, createdAt, sessionId, elementsChain)}`;
}

/** An event row up to its properties (eventRow's first piece; EventLines.add takes it). */
export function eventRowHead(teamId: number, uuid: string, event: string, distinctId: string, personId: string): string {
  return `{"team_id":${teamId},"uuid":${JSON.stringify(uuid)},"event":${JSON.stringify(event)},"distinct_id":${JSON.stringify(
    distinctId,
  )},"person_id":${JSON.stringify(personId)},"properties":`;
}

/** An event row after its properties (eventRow's last piece; EventLines.add takes it). */
export function eventRowTail(timestamp: string, createdAt: string, sessionId: string | null, elementsChain: string | null): string {
  return `,"timestamp":${JSON.stringify(timestamp)},"created_at":${JSON.stringify(createdAt)},"session_id":${JSON.stringify(
    sessionId ?? '',
  )},"elements_chain":${JSON.stringify(elementsChain ?? '')}}`;
}

/**
 * A batch's event rows (eventRow's lines) as pieces, joined once by `text()`: each event's
 * properties stay the string the worker was given. A line built per event, then joined, allocated
 * some 570 bytes more an event (docs/benchmarks.md), alive until the batch's flush. A row is added
 * as eventRow's three pieces (eventRowHead, the properties, eventRowTail): its columns are passed
 * as they are, with no object per event.
 */
export class EventLines {
  private readonly pieces: string[] = [];
  private lines = 0;

  add(head: string, propertiesJson: string, tail: string): void {
    this.pieces.push(this.lines === 0 ? head : `\n${head}`, propertiesJson, tail);
    this.lines++;
  }

  get length(): number {
    return this.lines;
  }

  /** The rows as JSONEachRow text. */
  text(): string {
    return this.pieces.join('');
  }

  clear(): void {
    this.pieces.length = 0;
    this.lines = 0;
  }
}

export interface PersonOverrideRow {
  teamId: number;
  oldPersonId: string;
  overridePersonId: string;
}

/** An outbox row's texts, as written and as a copy sends them. */
export interface OutboxRow {
  id: number;
  /** JSONEachRow lines of `events`. */
  events: string;
  /** JSONEachRow lines of `person_overrides`, without their version (the copy adds the row's id). */
  personOverrides: string;
}

/**
 * Queues a batch's rows for ClickHouse, in the batch's transaction (nothing when there are none):
 * `events` as JSONEachRow text of `events` (eventRow's lines; '' for none). Returns the row
 * written, which its writer may keep for the copy (KeptOutboxRows).
 */
export async function addToOutbox(db: Db, events: string, overrides: PersonOverrideRow[]): Promise<OutboxRow | undefined> {
  if (events.length === 0 && overrides.length === 0) return undefined;
  const personOverrides = overrides
    .map((o) => JSON.stringify({ team_id: o.teamId, old_person_id: o.oldPersonId, override_person_id: o.overridePersonId }))
    .join('\n');
  const row = await db
    .insertInto('analytics_outbox')
    .values({ token: randomUUID(), events, person_overrides: personOverrides, created_at: databaseNow(db) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), events, personOverrides };
}

/** The most text kept (a copy's worth): past it, rows are read back from the outbox as others' are. */
const KEPT_CHARS = 32 * 1024 * 1024;

/**
 * The outbox rows this process committed and has not copied yet, by id, with their text while it
 * fits: a copy takes the text from here instead of reading back megabytes it has just written (the
 * worker's CPU and the database's), and on PostgreSQL a worker's copy claims these rows rather
 * than others' (copyOutboxGroup). Only committed rows are kept (their text is the stored one: an
 * outbox row never changes but for its token), and ids are never reused (bigserial, SQLite's
 * autoincrement), so a kept row is the row of that id for as long as it exists. Rows that others
 * copied are dropped once the outbox's head is past them.
 */
export class KeptOutboxRows {
  /** Own rows by id; null when their text did not fit. */
  private readonly rows = new Map<number, OutboxRow | null>();
  private chars = 0;

  constructor(private readonly maxChars = KEPT_CHARS) {}

  /** A row of a committed transaction. */
  keep(row: OutboxRow): void {
    const chars = row.events.length + row.personOverrides.length;
    const fits = this.chars + chars <= this.maxChars;
    this.rows.set(row.id, fits ? row : null);
    if (fits) this.chars += chars;
  }

  get(id: number): OutboxRow | undefined {
    return this.rows.get(id) ?? undefined;
  }

  /** The own rows' ids, text kept or not. */
  ids(): number[] {
    return [...this.rows.keys()];
  }

  get size(): number {
    return this.rows.size;
  }

  /** The row is gone from the outbox (copied). */
  drop(id: number): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.rows.delete(id);
    if (row) this.chars -= row.events.length + row.personOverrides.length;
  }

  /** Nothing is kept (the copier stopped: what is left is read back by the next one). */
  clear(): void {
    this.rows.clear();
    this.chars = 0;
  }

  /** Every row before `id` is gone: copies take the outbox from its head. */
  dropBefore(id: number): void {
    for (const kept of this.rows.keys()) if (kept < id) this.drop(kept);
  }
}

/**
 * A row's time on the database's clock where several machines write and copy (PostgreSQL): the
 * age of others' rows (outbox-copy.ts's ORPHANED_AFTER_MS) is then read on one clock, however the machines' differ.
 */
function databaseNow(db: Db) {
  return isPostgres(db) ? sql<string>`now()` : new Date().toISOString();
}
