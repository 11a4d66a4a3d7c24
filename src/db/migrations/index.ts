import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from '../database.js';
import { columnTypes, type HogletMigration } from './column-types.js';
import { tenancyAndKeys } from './001-tenancy-and-keys.js';

/** Every migration, in order. Append only: a migration that has shipped is never edited. */
export const migrations: HogletMigration[] = [tenancyAndKeys];

class StaticProvider implements MigrationProvider {
  constructor(private readonly database: Database) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const types = columnTypes(this.database.dialect);
    return Object.fromEntries(
      migrations.map((m) => [m.name, { up: (db) => m.up(db, types) } satisfies Migration]),
    );
  }
}

export class MigrationError extends Error {}

/**
 * Brings the schema up to date. Safe when several processes start at once: Kysely's migrator
 * takes an advisory lock on PostgreSQL, and SQLite serialises writers itself.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: database.db,
    provider: new StaticProvider(database),
    migrationTableName: 'hoglet_migrations',
    migrationLockTableName: 'hoglet_migration_lock',
    // Other Hoglets (or test runs) may share the database under other schemas: look only in ours.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new MigrationError(
      `database migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
