/**
 * What an operator sees and does with the ingestion queue from the command line (`hoglet queue`):
 * how much is waiting per lane, which events are parked (they failed MAX_PROCESSING_ATTEMPTS times
 * even personless, see worker.ts), and putting parked events back in line once the cause is fixed.
 * Parked events are never deleted here: an event that got a 200 is not thrown away.
 */
import type { Database } from '../platform/db/database.js';
import { MAX_PROCESSING_ATTEMPTS } from './worker/worker.js';

export interface LaneCount {
  lane: string;
  waiting: number;
  parked: number;
}

export interface ParkedEvent {
  id: number;
  teamId: number;
  lane: string;
  distinctId: string;
  event: string | null;
  uuid: string | null;
  receivedAt: string;
  attempts: number;
}

export async function queueCounts(database: Database): Promise<LaneCount[]> {
  const rows = await database.db
    .selectFrom('ingestion_queue')
    .select((eb) => [
      'lane',
      // Events, not rows: a chunk row holds a request's events (queue-records.ts).
      eb.fn.sum<number | string>('event_count').as('total'),
      eb.fn
        .sum<number | string | null>(eb.case().when('attempts', '>=', MAX_PROCESSING_ATTEMPTS).then(eb.ref('event_count')).else(0).end())
        .as('parked'),
    ])
    .groupBy('lane')
    .orderBy('lane')
    .execute();
  return rows.map((row) => ({ lane: row.lane, waiting: Number(row.total) - Number(row.parked ?? 0), parked: Number(row.parked ?? 0) }));
}

function readPayload(text: string): { event: string | null; uuid: string | null } {
  try {
    const payload = JSON.parse(text) as { event?: unknown; uuid?: unknown };
    return {
      event: typeof payload.event === 'string' ? payload.event : null,
      uuid: typeof payload.uuid === 'string' ? payload.uuid : null,
    };
  } catch {
    return { event: null, uuid: null };
  }
}

/** Parked events, oldest first. */
export async function listParked(database: Database, limit: number): Promise<ParkedEvent[]> {
  const rows = await database.db
    .selectFrom('ingestion_queue')
    .select(['id', 'team_id', 'lane', 'distinct_id', 'payload', 'received_at', 'attempts'])
    .where('attempts', '>=', MAX_PROCESSING_ATTEMPTS)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    teamId: Number(row.team_id),
    lane: row.lane,
    distinctId: row.distinct_id,
    ...readPayload(row.payload),
    receivedAt: row.received_at,
    attempts: Number(row.attempts),
  }));
}

/**
 * Puts parked events back in line (all of them, or those with the given queue ids): their attempts
 * start again from zero and the worker takes them in queue order. Returns how many.
 */
export async function retryParked(database: Database, ids?: readonly number[]): Promise<number> {
  let query = database.db.updateTable('ingestion_queue').set({ attempts: 0 }).where('attempts', '>=', MAX_PROCESSING_ATTEMPTS);
  if (ids) {
    if (ids.length === 0) return 0;
    query = query.where('id', 'in', [...ids]);
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The highest id the queue has handed out so far that is still queued (0 when empty). */
export async function lastQueueId(database: Database): Promise<number> {
  const row = await database.db
    .selectFrom('ingestion_queue')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

/**
 * Whether an environment's events queued with ids from `firstId` to `lastId` are still waiting
 * (parked ones count as done).
 */
export async function stillQueued(database: Database, teamId: number, firstId: number, lastId: number): Promise<boolean> {
  const left = await database.db
    .selectFrom('ingestion_queue')
    .select('id')
    .where('id', '>=', firstId)
    .where('id', '<=', lastId)
    .where('team_id', '=', teamId)
    .where('attempts', '<', MAX_PROCESSING_ATTEMPTS)
    .limit(1)
    .executeTakeFirst();
  return left !== undefined;
}
