import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import type { Database } from '../database.js';
import { columnTypes, type HogletMigration } from './column-types.js';
import { tenancyAndKeys } from './001-tenancy-and-keys.js';
import { ingestion } from './002-ingestion.js';
import { flags } from './003-flags.js';
import { environments } from './004-environments.js';
import { subscriptions } from './005-subscriptions.js';

/** Every migration, in order. Append only: a migration that has shipped is never edited. */
export const migrations: HogletMigration[] = [tenancyAndKeys, ingestion, flags, environments, subscriptions];

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

function runMigrator(database: Database, db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: new StaticProvider(database),
    migrationTableName: 'hoglet_migrations',
    migrationLockTableName: 'hoglet_migration_lock',
    // Other Hoglets (or test runs) may share the database under other schemas: look only in ours.
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  return migrator.migrateToLatest();
}

/**
 * Brings the schema up to date. Safe when several processes start at once: Kysely's migrator
 * takes an advisory lock on PostgreSQL; on SQLite (where Kysely takes no lock) the whole run is
 * one `begin immediate` transaction, so a second process waits and then finds nothing to do.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  let outcome: MigrationResultSet;
  if (database.dialect === 'sqlite') {
    outcome = await database.db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const result = await runMigrator(database, conn);
        await sql.raw(result.error ? 'rollback' : 'commit').execute(conn);
        return result;
      } catch (error) {
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw error;
      }
    });
  } else {
    outcome = await runMigrator(database, database.db);
  }
  const { error, results } = outcome;
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new MigrationError(
      `database migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
