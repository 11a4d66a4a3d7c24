/**
 * PostgreSQL's own floor for a figure of the PostgreSQL bench (bench/postgres-bench.ts): the rows
 * the figure stored, written again into empty copies of their tables (same columns, defaults,
 * indexes and constraints, no foreign keys) in a scratch schema of the same database, with nothing
 * but multi-row INSERTs through pg on one connection. Nothing is parsed, read, looked up or
 * deleted: no processing stores the same rows faster on this machine and this PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A table's rows as PostgreSQL gave them (text, in column order), to write again. */
export interface FloorTable {
  name: string;
  columns: string[];
  rows: Array<Array<string | null>>;
}

export interface PostgresFloor {
  eventsPerSecond: number;
  events: number;
  transactions: number;
  /** The scratch schema the rows went to (dropped). */
  scratch: string;
  /** Rows of each copy afterwards (read back: all were written). */
  rows: Record<string, number>;
}

/** PostgreSQL takes at most 65,535 parameters a statement; rows a statement up to this many. */
const MAX_ROWS_PER_STATEMENT = 1000;
const MAX_PARAMETERS = 65_535;

/** Rows of `columns` columns per INSERT statement. */
export function rowsPerStatement(columns: number): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(MAX_PARAMETERS / Math.max(1, columns))));
}

/** `insert into "s"."t" ("a", "b") values ($1, $2), ($3, $4)` for `rows` rows. */
export function multiRowInsertSql(qualifiedTable: string, columns: readonly string[], rows: number): string {
  const width = columns.length;
  const tuples = Array.from({ length: rows }, (_, r) => `(${columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`);
  return `insert into ${qualifiedTable} (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`;
}

/** Every value as PostgreSQL's text, so that rows go back in exactly as they came out. */
const AS_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/** Reads a table's rows (optionally only those `where` selects), as text, in column order. */
export async function readTable(
  client: pg.ClientBase,
  schema: string,
  name: string,
  where = '',
  values: unknown[] = [],
): Promise<FloorTable> {
  const result = await client.query<Array<string | null>>({
    text: `select * from "${schema}"."${name}" ${where}`,
    values,
    rowMode: 'array',
    types: AS_TEXT,
  });
  return { name, columns: result.fields.map((f) => f.name), rows: result.rows };
}

/**
 * Writes `tables` into copies of themselves (`like "schema"."table" including all`) in a scratch
 * schema, dropped afterwards: `transactions` transactions, each taking the next share of every
 * table's rows, in multi-row INSERTs. `events` is how many events the rows hold (the rate's
 * numerator). Only the writing is timed.
 */
export async function postgresFloor(
  connectionString: string,
  sourceSchema: string,
  tables: readonly FloorTable[],
  events: number,
  transactions: number,
): Promise<PostgresFloor> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  const scratch = `bench_floor_${randomBytes(4).toString('hex')}`;
  try {
    await client.query(`create schema "${scratch}"`);
    for (const table of tables)
      await client.query(`create table "${scratch}"."${table.name}" (like "${sourceSchema}"."${table.name}" including all)`);
    const count = Math.max(1, transactions);
    const started = process.hrtime.bigint();
    for (let k = 0; k < count; k++) {
      await client.query('begin');
      for (const table of tables) {
        const from = Math.floor((k * table.rows.length) / count);
        const to = Math.floor(((k + 1) * table.rows.length) / count);
        const step = rowsPerStatement(table.columns.length);
        for (let at = from; at < to; at += step) {
          const end = Math.min(to, at + step);
          await client.query(multiRowInsertSql(`"${scratch}"."${table.name}"`, table.columns, end - at), table.rows.slice(at, end).flat());
        }
      }
      await client.query('commit');
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const rows: Record<string, number> = {};
    for (const table of tables) {
      const result = await client.query<{ n: string }>(`select count(*) as n from "${scratch}"."${table.name}"`);
      rows[table.name] = Number(result.rows[0]!.n);
    }
    return { eventsPerSecond: events / seconds, events, transactions: count, scratch, rows };
  } finally {
    await client.query(`drop schema if exists "${scratch}" cascade`).catch(() => undefined);
    await client.end();
  }
}

/** `PostgreSQL floor: 41,000 events/s (the same 50,000 events' rows written raw in 50 transactions: persons 3,100, …)`. */
export function postgresFloorText(floor: PostgresFloor, what: string): string {
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  const rows = Object.entries(floor.rows)
    .map(([name, count]) => `${name} ${n(count)}`)
    .join(', ');
  return `PostgreSQL floor: ${n(floor.eventsPerSecond)} events/s (${what}, ${n(floor.events)} events, raw multi-row INSERTs in ${n(floor.transactions)} transaction${floor.transactions === 1 ? '' : 's'} on one connection: ${rows})`;
}
