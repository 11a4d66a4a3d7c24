import type { Kysely } from 'kysely';
import type { Schema } from '../../db/schema.js';
import { MultiRowInsert } from '../multi-row-insert.js';
import { GroupTypeCache } from './groups-step.js';
import { PersonUnitOfWork } from './person-unit.js';

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

const key = (teamId: number, uuid: string) => `${teamId}\u0000${uuid}`;

/**
 * What one worker batch shares while it runs inside its transaction: the persons unit of work,
 * the group type indexes, which event uuids are already stored, and the event rows to insert.
 * Everything is written by `flush`, at the end of the batch, in multi-row statements.
 */
export class BatchContext {
  readonly persons: PersonUnitOfWork;
  readonly groupTypes: GroupTypeCache;
  /** Uuids stored before this batch (checked) or by it. */
  private readonly stored = new Set<string>();
  private readonly checked = new Set<string>();
  private readonly events: EventRow[] = [];

  constructor(
    readonly db: Db,
    committedGroupTypes?: Map<string, number>,
  ) {
    this.persons = new PersonUnitOfWork(db);
    this.groupTypes = new GroupTypeCache(committedGroupTypes);
  }

  /** One indexed read per 500 uuids instead of one per event. */
  async preloadStored(teamId: number, uuids: string[]): Promise<void> {
    const unchecked = [...new Set(uuids)].filter((u) => !this.checked.has(key(teamId, u)));
    for (let i = 0; i < unchecked.length; i += ROWS_PER_STATEMENT) {
      const chunk = unchecked.slice(i, i + ROWS_PER_STATEMENT);
      const rows = await this.db.selectFrom('events').select('uuid').where('team_id', '=', teamId).where('uuid', 'in', chunk).execute();
      for (const u of chunk) this.checked.add(key(teamId, u));
      for (const row of rows) this.stored.add(key(teamId, row.uuid));
    }
  }

  /** Whether an event with this uuid is stored already, by an earlier batch or earlier in this one. */
  async isStored(teamId: number, uuid: string): Promise<boolean> {
    if (!this.checked.has(key(teamId, uuid))) await this.preloadStored(teamId, [uuid]);
    return this.stored.has(key(teamId, uuid));
  }

  addEvent(row: EventRow): void {
    this.stored.add(key(row.team_id, row.uuid));
    this.events.push(row);
  }

  /** Persons first, then the events (which only refer to persons by uuid). */
  async flush(): Promise<void> {
    await this.persons.flush();
    await EVENT_INSERT.execute(this.db, this.events.map((row) => EVENT_COLUMNS.map((column) => row[column])));
    this.events.length = 0;
  }

  /** After the transaction committed. */
  committed(): void {
    this.groupTypes.commit();
  }
}
