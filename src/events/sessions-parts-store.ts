import type { AnalyticsEngine } from '../platform/analytics/engine.js';
import { databaseOf } from './sessions-table.js';

/** The sessions table's active parts, as the merger decides on them (sessions-merger.ts). */
export interface SessionsParts {
  parts: number;
  rows: number;
  /** Rows in the largest part. */
  largestRows: number;
  /** Seconds since the newest part was written (an insert, or a merge): how long the table has been quiet. */
  quietSeconds: number;
  /** Seconds since the largest part was written: since the table was last merged into it. */
  largestAgeSeconds: number;
}

export async function sessionsParts(engine: AnalyticsEngine): Promise<SessionsParts> {
  // Aliases unlike the columns: an alias named `rows` would stand for sum(rows) inside max(rows).
  const [row] = await engine.query<{ parts: number; total: number; largest: number; quiet: number; largest_age: number }>(
    `SELECT count() AS parts, sum(rows) AS total, max(rows) AS largest, dateDiff('second', max(modification_time), now()) AS quiet,
       dateDiff('second', argMax(modification_time, rows), now()) AS largest_age
     FROM system.parts WHERE database = {database:String} AND table = 'sessions' AND active`,
    { database: databaseOf(engine) },
  );
  return {
    parts: Number(row?.parts ?? 0),
    rows: Number(row?.total ?? 0),
    largestRows: Number(row?.largest ?? 0),
    quietSeconds: Number(row?.quiet ?? 0),
    largestAgeSeconds: Number(row?.largest_age ?? 0),
  };
}

/**
 * Merges every part of the sessions table into one, each session's partial rows into one row
 * (AggregatingMergeTree). Inserts go on meanwhile (into parts of their own) and reads see the
 * parts before the merge until it is done.
 */
export async function mergeSessionsParts(engine: AnalyticsEngine): Promise<void> {
  await engine.command(`OPTIMIZE TABLE ${engine.table('sessions')} FINAL`);
}
