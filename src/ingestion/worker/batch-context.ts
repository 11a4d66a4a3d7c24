import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';
import { MultiRowInsert } from '../multi-row-insert.js';
import { GroupTypeCache } from './groups-step.js';
import { PersonUnitOfWork, type PersonPropertiesCache } from './person-unit.js';

type Db = Kysely<Schema>;

/** One row of the events table, as the worker writes it. */
export interface EventRow {
  team_id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string;
  properties: string;
  timestamp: string;
  created_at: string;
  session_id: string | null;
  elements_chain: string | null;
}

/** Uuids per dedupe query. */
const ROWS_PER_STATEMENT = 500;

const EVENT_COLUMNS = ['team_id', 'uuid', 'event', 'distinct_id', 'person_id', 'properties', 'timestamp', 'created_at', 'session_id', 'elements_chain'] as const;
// The dedupe above makes conflicts impossible for this worker; ignoring them is a safety net.
const EVENT_INSERT = new MultiRowInsert('events', EVENT_COLUMNS, { ignoreConflicts: true });

/**
 * What one worker batch shares while it runs inside its transaction: the persons unit of work,
 * the group type indexes, which event uuids are already stored, and the event rows to insert.
 * Everything is written by `flush`, at the end of the batch, in multi-row statements.
 */
export class BatchContext {
  readonly persons: PersonUnitOfWork;
  readonly groupTypes: GroupTypeCache;
  /** When this batch stores its events (`created_at`), one value for the whole batch. */
  readonly createdAt = new Date().toISOString();
  /** Per team, uuid → stored (by an earlier batch or this one); absent: not checked yet. */
  private readonly stored = new Map<number, Map<string, boolean>>();
  /** The event rows to insert, flat, in EVENT_COLUMNS order (no object or array per row). */
  private readonly eventValues: unknown[] = [];
  private eventCount = 0;

  constructor(
    readonly db: Db,
    committedGroupTypes?: Map<string, number>,
    personCache?: PersonPropertiesCache,
  ) {
    this.persons = new PersonUnitOfWork(db, personCache);
    this.groupTypes = new GroupTypeCache(committedGroupTypes);
  }

  private readonly received = new Map<string, { date: Date; iso: string }>();

  /** A queued event's receipt time (`now`), parsed once per distinct value: requests share it. */
  receivedAt(now: string): { date: Date; iso: string } {
    let at = this.received.get(now);
    if (!at) {
      const date = new Date(now);
      this.received.set(now, (at = { date, iso: date.toISOString() }));
    }
    return at;
  }

  private teamUuids(teamId: number): Map<string, boolean> {
    let uuids = this.stored.get(teamId);
    if (!uuids) this.stored.set(teamId, (uuids = new Map()));
    return uuids;
  }

  /** One indexed read per 500 uuids instead of one per event. */
  async preloadStored(teamId: number, uuids: string[]): Promise<void> {
    const known = this.teamUuids(teamId);
    const unchecked = [...new Set(uuids)].filter((u) => !known.has(u));
    for (let i = 0; i < unchecked.length; i += ROWS_PER_STATEMENT) {
      const chunk = unchecked.slice(i, i + ROWS_PER_STATEMENT);
      const rows = await this.db.selectFrom('events').select('uuid').where('team_id', '=', teamId).where('uuid', 'in', chunk).execute();
      for (const u of chunk) known.set(u, false);
      for (const row of rows) known.set(row.uuid, true);
    }
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

  addEvent(row: EventRow): void {
    this.teamUuids(row.team_id).set(row.uuid, true);
    for (const column of EVENT_COLUMNS) this.eventValues.push(row[column]);
    this.eventCount++;
  }

  /** Persons first, then the events (which only refer to persons by uuid). */
  async flush(): Promise<void> {
    await this.persons.flush();
    await EVENT_INSERT.executeFlat(this.db, this.eventValues, this.eventCount);
    this.eventValues.length = 0;
    this.eventCount = 0;
  }

  /** After the transaction committed. */
  committed(): void {
    this.groupTypes.commit();
    this.persons.committed();
  }
}
