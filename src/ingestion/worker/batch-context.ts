import { sql, type Kysely } from 'kysely';
import type { Schema } from '../../platform/db/schema.js';
import { InListQuery, MultiRowInsert, POSTGRES_ROWS_PER_INSERT } from '../../platform/db/multi-row-insert.js';
import { GroupUnitOfWork } from './group-unit.js';
import { GroupTypeCache } from './groups-step.js';
import type { PersonCache } from './person-cache.js';
import { PersonUnitOfWork } from './person-unit.js';
import { addToOutbox, eventRowHead, eventRowTail, EventLines, type OutboxRow } from '../../events/outbox-rows.js';
import { dedupeDay } from '../../events/event-uuids-store.js';
import { chunks } from '../../lib/chunks.js';
import { isPostgres } from '../../platform/db/dialect.js';

type Db = Kysely<Schema>;

/** Uuids per dedupe query on SQLite (PostgreSQL takes them as one array, POSTGRES_ROWS_PER_INSERT at a time). */
const ROWS_PER_STATEMENT = 500;

/** Which of a team's uuids are stored. */
const STORED_UUIDS = new InListQuery(
  (db: Db, [teamId]: [number], uuids: string[]) =>
    db.selectFrom('event_uuids').select('uuid').where('team_id', '=', teamId).where('uuid', 'in', uuids),
  ROWS_PER_STATEMENT,
);

/**
 * The same on PostgreSQL, as one primary-key probe per uuid. With `uuid in (…500 values)` and no
 * statistics yet (a new install, until autovacuum's first analyze) the planner judged the list
 * unselective and read every event of the team through the timestamp index instead: a cost that
 * grows with the table, paid by every batch. A plain join to the unnested list may become a hash
 * join over the whole table just the same; a lateral subquery with a limit cannot, so each uuid
 * is one index probe whatever the statistics say (faster than the `in` list even with fresh
 * statistics; docs/benchmarks.md).
 */
async function storedUuidsPostgres(db: Db, teamId: number, uuids: string[]): Promise<Array<{ uuid: string }>> {
  const rows: Array<{ uuid: string }> = [];
  for (const list of chunks(uuids, POSTGRES_ROWS_PER_INSERT)) {
    const result = await sql<{ uuid: string }>`select u.uuid from unnest(${list}::text[]) as u(uuid)
      cross join lateral (select 1 from event_uuids e where e.team_id = ${teamId} and e.uuid = u.uuid limit 1) as stored`.execute(db);
    for (const row of result.rows) rows.push(row);
  }
  return rows;
}

// The dedupe above makes conflicts impossible for one worker; on SQLite (one writer) ignoring them
// is a safety net. On PostgreSQL two workers' batches may store the same uuid at once (one event
// sent twice under two distinct ids, which sit in two partitions): the second's insert fails on
// the key, and its retry from fresh reads finds the event stored, so it is stored once.
// A uuid stored before and pruned since (older than INGESTION_DEDUPE_DAYS) is absent: the event
// is stored again and its uuid remembered anew, from this batch's day.
const UUID_COLUMNS = ['team_id', 'uuid', 'stored_day'] as const;
const UUID_INSERT = new MultiRowInsert('event_uuids', UUID_COLUMNS, { ignoreConflicts: true });
const UUID_INSERT_CHECKED = new MultiRowInsert('event_uuids', UUID_COLUMNS);

/**
 * What one worker batch shares while it runs inside its transaction: the persons and groups units
 * of work, the group type indexes, which event uuids are already stored, and the event rows to
 * insert.
 * Everything is written by `flush`, at the end of the batch, in multi-row statements.
 */
export class BatchContext {
  readonly persons: PersonUnitOfWork;
  readonly groups: GroupUnitOfWork;
  readonly groupTypes: GroupTypeCache;
  /** When this batch stores its events (`created_at`), one value for the whole batch. */
  readonly createdAt = new Date().toISOString();
  /** The day its events' uuids are stored on, for the dedupe window (event-uuids-store.ts). */
  private readonly storedDay = dedupeDay(Date.parse(this.createdAt));
  /** Per team, uuid → stored (by an earlier batch or this one); absent: not checked yet. */
  private readonly stored = new Map<number, Map<string, boolean>>();
  /** The stored events' (team, uuid, day) rows, flat. */
  private readonly uuidValues: unknown[] = [];
  /** The event rows for ClickHouse (outbox-rows.ts). */
  private readonly eventLines = new EventLines();
  /** Events written to the outbox so far. */
  outboxEvents = 0;
  /** The outbox rows written so far (for the copy, once committed). */
  readonly outboxRows: OutboxRow[] = [];

  constructor(
    readonly db: Db,
    committedGroupTypes?: Map<string, number>,
    personCache?: PersonCache,
    lockPersons = false,
  ) {
    this.persons = new PersonUnitOfWork(db, personCache, lockPersons);
    this.groups = new GroupUnitOfWork(db);
    this.groupTypes = new GroupTypeCache(committedGroupTypes);
  }

  private teamUuids(teamId: number): Map<string, boolean> {
    let uuids = this.stored.get(teamId);
    if (!uuids) this.stored.set(teamId, (uuids = new Map()));
    return uuids;
  }

  /** One indexed read per 500 uuids (1,000 on PostgreSQL) instead of one per event. */
  async preloadStored(teamId: number, uuids: string[]): Promise<void> {
    const known = this.teamUuids(teamId);
    const unchecked = [...new Set(uuids)].filter((u) => !known.has(u));
    if (unchecked.length === 0) return;
    const rows = isPostgres(this.db)
      ? await storedUuidsPostgres(this.db, teamId, unchecked)
      : await STORED_UUIDS.execute(this.db, [teamId], unchecked);
    for (const u of unchecked) known.set(u, false);
    for (const row of rows) known.set(row.uuid, true);
  }

  /** Whether an event with this uuid is stored already; undefined when that is not known yet. */
  knownStored(teamId: number, uuid: string): boolean | undefined {
    return this.stored.get(teamId)?.get(uuid);
  }

  /** Whether an event with this uuid is stored already, by an earlier batch or earlier in this one. */
  async isStored(teamId: number, uuid: string): Promise<boolean> {
    const known = this.knownStored(teamId, uuid);
    if (known !== undefined) return known;
    await this.preloadStored(teamId, [uuid]);
    return this.knownStored(teamId, uuid)!;
  }

  /** Queues an event row for the batch's write to ClickHouse (through the outbox). */
  addEvent(
    teamId: number,
    uuid: string,
    event: string,
    distinctId: string,
    personId: string,
    properties: string,
    timestamp: string,
    sessionId: string | null,
    elementsChain: string | null,
  ): void {
    this.teamUuids(teamId).set(uuid, true);
    this.uuidValues.push(teamId, uuid, this.storedDay);
    this.eventLines.add(
      eventRowHead(teamId, uuid, event, distinctId, personId),
      properties,
      eventRowTail(timestamp, this.createdAt, sessionId, elementsChain),
    );
  }

  /** Persons and groups first, then the events' uuids and the outbox row for ClickHouse (events and person overrides). */
  async flush(): Promise<void> {
    const overrides = await this.persons.flush();
    await this.groups.flush();
    const uuidInsert = isPostgres(this.db) ? UUID_INSERT_CHECKED : UUID_INSERT;
    await uuidInsert.executeFlat(this.db, this.uuidValues, this.eventLines.length);
    const row = await addToOutbox(this.db, this.eventLines.text(), overrides);
    if (row) this.outboxRows.push(row);
    this.outboxEvents += this.eventLines.length;
    this.uuidValues.length = 0;
    this.eventLines.clear();
  }

  /** After the transaction committed. */
  committed(): void {
    this.groupTypes.commit();
    this.persons.committed();
  }
}
