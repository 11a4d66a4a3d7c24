import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * The few places where the two backends' DDL truly differs. Migrations describe tables once and
 * ask this for the types; everything else is plain Kysely schema building.
 */
export interface ColumnTypes {
  dialect: DialectName;
  json: 'jsonb' | 'text';
  bool: 'boolean' | 'integer';
  timestamp: 'timestamptz' | 'text';
  bigint: 'bigint' | 'integer';
  /** Adds an auto-incrementing integer primary key named `id`. */
  serialId<T extends string>(table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'>;
}

export function columnTypes(dialect: DialectName): ColumnTypes {
  const pg = dialect === 'postgres';
  return {
    dialect,
    json: pg ? 'jsonb' : 'text',
    bool: pg ? 'boolean' : 'integer',
    timestamp: pg ? 'timestamptz' : 'text',
    bigint: pg ? 'bigint' : 'integer',
    serialId: (table) =>
      pg
        ? table.addColumn('id', 'bigserial', (c: ColumnDefinitionBuilder) => c.primaryKey())
        : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement()),
  };
}

/** A boolean literal usable as a column default on both backends. */
export function boolDefault(types: ColumnTypes, value: boolean) {
  return types.dialect === 'postgres' ? sql.lit(value) : sql.lit(value ? 1 : 0);
}

export interface HogletMigration {
  name: string;
  up(db: Kysely<any>, types: ColumnTypes): Promise<void>;
}
