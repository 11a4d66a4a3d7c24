/**
 * Text functions whose SQL differs between the dialects, for queries written once elsewhere.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from './database.js';

/**
 * Whether `needle` occurs in the column's text, case-sensitively (LIKE will not do: SQLite's
 * ignores ASCII case, and `%`/`_` in the needle would be wildcards). A JSON column is searched
 * as its text.
 */
export function containsText(dialect: DialectName, column: string, needle: string): RawBuilder<SqlBool> {
  const ref = sql.ref(column);
  return dialect === 'postgres' ? sql<SqlBool>`strpos(cast(${ref} as text), ${needle}) > 0` : sql<SqlBool>`instr(${ref}, ${needle}) > 0`;
}

/** The UTC calendar day (`YYYY-MM-DD`) of a timestamp column (SQLite keeps ISO text in UTC). */
export function utcDay(dialect: DialectName, column: string): RawBuilder<string> {
  const ref = sql.ref(column);
  return dialect === 'postgres' ? sql<string>`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD')` : sql<string>`substr(${ref}, 1, 10)`;
}

/**
 * The text for ORDER BY in byte order on both backends: SQLite compares bytes (BINARY), while
 * PostgreSQL would follow the database's collation (en_US orders case and punctuation apart).
 */
export function inByteOrder(dialect: DialectName, expression: RawBuilder<unknown>): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`(${expression} collate "C")` : expression;
}
