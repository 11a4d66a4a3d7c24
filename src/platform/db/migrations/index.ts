import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { columnTypes, type HogletMigration } from './column-types.js';
import { tenancyAndKeys } from './001-tenancy-and-keys.js';
import { ingestion } from './002-ingestion.js';
import { flags } from './003-flags.js';
import { environments } from './004-environments.js';
import { subscriptions } from './005-subscriptions.js';
import { recordings } from './006-recordings.js';
import { eventWriteCost } from './007-event-write-cost.js';
import { groupsListOrder } from './008-groups-list-order.js';
import { pendingDeletions } from './009-pending-deletions.js';
import { personDeletionDistinctIds } from './010-person-deletion-distinct-ids.js';
import { queueChunks } from './011-queue-chunks.js';
import { teamSecretApiTokens } from './012-team-secret-api-tokens.js';
import { backgroundDeletions } from './013-background-deletions.js';
import { distinctIdOrder } from './014-distinct-id-order.js';
import { personEventDeletions } from './015-person-event-deletions.js';
import { personalKeyRolls } from './016-personal-key-rolls.js';
import { subscriptionDeliveryAttempts } from './017-subscription-delivery-attempts.js';
import { instanceSecrets } from './018-instance-secrets.js';
import { analyticsOutbox } from './019-analytics-outbox.js';
import { accounts } from './020-accounts.js';
import { definitions } from './021-definitions.js';
import { dashboardFilters } from './022-dashboard-filters.js';
import { surveys } from './023-surveys.js';
import { earlyAccessFeatures } from './024-early-access-features.js';
import { ingestionPartitions } from './025-ingestion-partitions.js';
import { eventUuidWindow } from './026-event-uuid-window.js';
import { definitionsPerProject } from './027-definitions-per-project.js';
import { groupTypesPerProject } from './028-group-types-per-project.js';
import { largeValuesLz4 } from './029-large-values-lz4.js';
import { deletionOutboxMarks } from './030-deletion-outbox-marks.js';
import { cohortCalculation } from './031-cohort-calculation.js';

/** Every migration, in order. Append only: a migration that has shipped is never edited. */
export const migrations: HogletMigration[] = [
  tenancyAndKeys,
  ingestion,
  flags,
  environments,
  subscriptions,
  recordings,
  eventWriteCost,
  groupsListOrder,
  pendingDeletions,
  personDeletionDistinctIds,
  queueChunks,
  teamSecretApiTokens,
  backgroundDeletions,
  distinctIdOrder,
  personEventDeletions,
  personalKeyRolls,
  subscriptionDeliveryAttempts,
  instanceSecrets,
  analyticsOutbox,
  accounts,
  definitions,
  dashboardFilters,
  surveys,
  earlyAccessFeatures,
  ingestionPartitions,
  eventUuidWindow,
  definitionsPerProject,
  groupTypesPerProject,
  largeValuesLz4,
  deletionOutboxMarks,
  cohortCalculation,
];

export class MigrationError extends Error {}

/** A lock id per schema, so Hoglets in different schemas of one database do not wait on each other. */
function lockKey(schema: string): number {
  let hash = 0;
  for (const char of `hoglet-migrations:${schema}`) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

async function pendingMigrations(db: Kysely<any>): Promise<HogletMigration[]> {
  await db.schema
    .createTable('hoglet_migrations')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('executed_at', 'text', (c) => c.notNull())
    .execute();
  const done = new Set((await db.selectFrom('hoglet_migrations').select('name').execute()).map((r) => r.name as string));
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...done].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new MigrationError(
      `the database has migrations this Hoglet does not know (${unknown.join(', ')}): it was migrated by a newer version`,
    );
  }
  return migrations.filter((m) => !done.has(m.name));
}

/**
 * Brings the schema up to date, each migration in one transaction with its bookkeeping row.
 * Safe when several processes start at once: PostgreSQL takes a transaction-scoped advisory
 * lock per schema; SQLite's `begin immediate` (see database.ts) lets one writer in at a time. The
 * second process then finds nothing left to do. Nothing here introspects the catalog, so other
 * schemas of the same database coming and going cannot disturb it.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  const types = columnTypes(database.dialect);
  const applied: string[] = [];
  try {
    await database.db.transaction().execute(async (trx) => {
      if (database.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${lockKey(database.schema ?? 'public')})`.execute(trx);
      for (const migration of await pendingMigrations(trx)) {
        try {
          await migration.up(trx, types);
        } catch (error) {
          throw new MigrationError(`database migration ${migration.name} failed: ${(error as Error).message}`);
        }
        await (trx as Kysely<any>)
          .insertInto('hoglet_migrations')
          .values({ name: migration.name, executed_at: new Date().toISOString() })
          .execute();
        applied.push(migration.name);
      }
    });
  } catch (error) {
    if (error instanceof MigrationError) throw error;
    throw new MigrationError(`database migration failed: ${(error as Error).message}`);
  }
  return applied;
}
