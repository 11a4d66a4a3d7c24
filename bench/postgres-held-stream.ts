/**
 * What makes the PostgreSQL worker rounds fair (bench/postgres-workers.ts): a stream queued
 * through /batch/ is set aside in a table of its own and put back into the queue later in one
 * transaction, so that warm workers that already hold their partitions see all of it at once,
 * with no queueing overlapping their drain; the workers' shares read from their leases; and a
 * mark in PostgreSQL's transaction ids, so that the floor reads only the rows written after it.
 */
import pg from 'pg';
import { MEMBER_LEASE_PREFIX, PARTITION_LEASE_PREFIX } from '../src/ingestion/core/partition-share.js';

/** Moves the queue rows with ids above `afterId` into a new table `held` (same definition); returns the events they hold. */
export async function holdQueued(client: pg.ClientBase, held: string, afterId: number): Promise<number> {
  await client.query('begin');
  try {
    await client.query(`create table "${held}" (like ingestion_queue including all)`);
    await client.query(`insert into "${held}" select * from ingestion_queue where id > $1`, [afterId]);
    await client.query('delete from ingestion_queue where id > $1', [afterId]);
    const result = await client.query<{ events: string }>(`select coalesce(sum(event_count), 0) as events from "${held}"`);
    await client.query('commit');
    return Number(result.rows[0]!.events);
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/**
 * Puts the rows of `held` back into the queue in their order, in one transaction (one statement),
 * as new rows: ids after every row queued so far, as if just queued. The table is left (dropHeld).
 */
export async function releaseHeld(client: pg.ClientBase, held: string): Promise<void> {
  const result = await client.query<{ column_name: string }>(
    `select column_name from information_schema.columns
     where table_schema = current_schema() and table_name = 'ingestion_queue' and column_name <> 'id' order by ordinal_position`,
  );
  const columns = result.rows.map((row) => `"${row.column_name}"`).join(', ');
  await client.query(`insert into ingestion_queue (${columns}) select ${columns} from "${held}" order by id`);
}

export async function dropHeld(client: pg.ClientBase, held: string): Promise<void> {
  await client.query(`drop table if exists "${held}"`);
}

/**
 * The first transaction id not yet assigned (32 bits, as a row's `xmin`): every row written
 * after this call by a transaction begun after it has an `xmin` at or after the mark.
 */
export async function writeMark(client: pg.ClientBase): Promise<string> {
  const result = await client.query<{ xid: string }>(
    'select (pg_snapshot_xmax(pg_current_snapshot())::text::bigint % 4294967296)::text as xid',
  );
  return result.rows[0]!.xid;
}

/**
 * A `where` for readTable: rows inserted or last updated at or after the mark `$1` (writeMark).
 * `age` counts back from the current transaction id modulo 2^32, so it holds across a wraparound.
 */
export const WRITTEN_SINCE_MARK = 'where age(xmin) <= age($1::text::xid)';

/** An ingestion lease as read: its name, holder and when it lapses (ms since the epoch). */
export interface LeaseRow {
  name: string;
  owner: string;
  expiresAt: number;
}

export async function ingestionLeases(client: pg.ClientBase): Promise<LeaseRow[]> {
  const result = await client.query<{ name: string; owner: string; expires_at: Date | string }>(
    "select name, owner, expires_at from worker_leases where name like 'ingestion-%'",
  );
  return result.rows.map((row) => ({ name: row.name, owner: row.owner, expiresAt: new Date(row.expires_at).getTime() }));
}

/**
 * Whether `workers` workers hold their shares of the queue's `partitions` at `now`: that many
 * live memberships, every partition leased live to one of them, none holding more than its fair
 * share (ceil(partitions / workers), as core/partition-share.ts plans it) and each at least one.
 */
export function sharesSettled(leases: readonly LeaseRow[], workers: number, partitions: number, now: number): boolean {
  const live = leases.filter((lease) => lease.expiresAt >= now);
  const members = new Set(live.filter((lease) => lease.name.startsWith(MEMBER_LEASE_PREFIX)).map((lease) => lease.owner));
  if (members.size !== workers) return false;
  const held = new Map<string, number>([...members].map((owner) => [owner, 0]));
  const leased = new Set<number>();
  for (const lease of live) {
    if (!lease.name.startsWith(PARTITION_LEASE_PREFIX)) continue;
    const count = held.get(lease.owner);
    if (count === undefined) return false;
    held.set(lease.owner, count + 1);
    leased.add(Number(lease.name.slice(PARTITION_LEASE_PREFIX.length)));
  }
  const share = Math.ceil(partitions / workers);
  for (let partition = 0; partition < partitions; partition++) if (!leased.has(partition)) return false;
  return [...held.values()].every((count) => count >= 1 && count <= share);
}
