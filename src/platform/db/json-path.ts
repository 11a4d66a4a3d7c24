import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './database.js';

/**
 * SQLite's JSON path to an object key: quoted, so dots, brackets and `$` in the key are the key's
 * own; inside the quotes a backslash escapes `"` and `\` (doubled quotes, as in SQL, are not
 * understood: a key with a `"` was never found).
 */
function sqlitePath(key: string): string {
  return `$."${key.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * Reading one key of a JSON column is where the dialects truly differ. These helpers give the
 * same answers on both backends: text as the SDKs sent it (`true`/`false` for booleans, a number's
 * JSON text as stored), and SQL NULL when the key is missing or null. On SQLite a number is read
 * as its JSON text, not cast: a cast prints 17 significant digits and its own exponents
 * (3.141592653589793 read 3.1415926535897931, 0.00001 read 1.0e-05), where PostgreSQL prints the
 * number's exact decimal digits and ClickHouse (PostHog) the stored text. They differ only in
 * exponents: 1e21 (sent as `1e+21`) stays so on SQLite and reads 1000000000000000000000 on PostgreSQL.
 */
export function jsonText(dialect: DialectName, column: string, key: string): RawBuilder<string | null> {
  if (dialect === 'postgres') return sql<string | null>`(${sql.ref(column)} ->> ${key})`;
  const path = sqlitePath(key);
  return sql<string | null>`(case json_type(${sql.ref(column)}, ${path})
    when 'true' then 'true' when 'false' then 'false' when 'null' then null
    when 'text' then json_extract(${sql.ref(column)}, ${path})
    else (${sql.ref(column)} -> ${path}) end)`;
}

/** The key's value as a number, NULL when missing or not numeric. */
export function jsonNumber(dialect: DialectName, column: string, key: string): RawBuilder<number | null> {
  if (dialect === 'postgres') {
    return sql<
      number | null
    >`(case when jsonb_typeof(${sql.ref(column)} -> ${key}) = 'number' then (${sql.ref(column)} ->> ${key})::double precision
      when (${sql.ref(column)} ->> ${key}) ~ '^\\s*-?[0-9]+(\\.[0-9]+)?\\s*$' then (${sql.ref(column)} ->> ${key})::double precision end)`;
  }
  const path = sqlitePath(key);
  const value = sql`json_extract(${sql.ref(column)}, ${path})`;
  return sql<number | null>`(case when json_type(${sql.ref(column)}, ${path}) in ('integer', 'real') then ${value}
    when json_type(${sql.ref(column)}, ${path}) = 'text' and trim(${value}) <> '' and trim(${value}) not glob '*[^0-9.eE+-]*'
    then cast(trim(${value}) as real) end)`;
}

/**
 * The key's value as JSON text (`"a"`, `5`, `true`, `{…}`, `null` for a JSON null), SQL NULL when
 * the key is missing: JSON.parse gives back the value exactly as the SDK sent it, without reading
 * the rest of the column into the process.
 */
export function jsonValueText(dialect: DialectName, column: string, key: string): RawBuilder<string | null> {
  if (dialect === 'postgres') return sql<string | null>`((${sql.ref(column)} -> ${key})::text)`;
  return sql<string | null>`(${sql.ref(column)} -> ${sqlitePath(key)})`;
}
