import path from 'node:path';
import type { Kysely } from 'kysely';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { columnTypes, type ColumnTypes } from '../../src/platform/db/migrations/column-types.js';
import { migrations } from '../../src/platform/db/migrations/index.js';
import { TEST_DATABASE_URL, type TestStorage } from './backend.js';

/** The suite's database (SQLite file or PostgreSQL schema) on this storage, not migrated. */
export function openStorageDatabase(storage: TestStorage): Promise<Database> {
  return openDatabase({
    databaseUrl: TEST_DATABASE_URL,
    sqliteFile: path.join(storage.dataDir, 'hoglet.db'),
    ...(storage.schema ? { pgSchema: storage.schema } : {}),
  });
}

export interface DatabaseBefore {
  database: Database;
  /** The database untyped: the schema of the migrations run, not today's. */
  db: Kysely<any>;
  types: ColumnTypes;
  /** The named migration's place in the list. */
  step: number;
}

/**
 * A database on this storage migrated up to the named migration, not including it: the state
 * a build with that migration upgrades. A test writes the old rows, then runs the migration.
 */
export async function databaseBefore(storage: TestStorage, migrationName: string): Promise<DatabaseBefore> {
  const step = migrations.findIndex((m) => m.name === migrationName);
  if (step < 1) throw new Error(`no migration named ${migrationName} after the first`);
  const database = await openStorageDatabase(storage);
  const db = database.db as never as Kysely<any>;
  const types = columnTypes(database.dialect);
  for (const migration of migrations.slice(0, step)) await migration.up(db, types);
  return { database, db, types, step };
}
