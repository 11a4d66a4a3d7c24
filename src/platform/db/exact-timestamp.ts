import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './database.js';

/**
 * A timestamp column as text to its stored precision, for the cursor of a keyset-paged read
 * ("after this timestamp and uuid"). SQLite keeps the ISO text as written. PostgreSQL values are
 * read back to the millisecond (database.ts), which as a cursor would re-read or skip a row
 * stored with microseconds; this text keeps them, and PostgreSQL reads it back as the same instant.
 */
export function exactTimestamp(dialect: DialectName, column = 'timestamp'): RawBuilder<string> {
  if (dialect === 'postgres') return sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  return sql<string>`${sql.ref(column)}`;
}
