import { BULK_TEAM_TABLES, queueDeletion, teamOwnedTables } from '../deletions/store.js';
import { DEFINITION_TABLES, releaseEnvironmentDefinitions } from '../definitions/store.js';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { fromJson, nowIso, toJson } from '../platform/db/values.js';
import type { Team } from './models.js';
import { getTeam } from './tenancy-store.js';

type Db = Kysely<Schema>;

export async function updateTeamRow(
  db: Db,
  team: Team,
  change: {
    name?: string;
    settings?: Record<string, unknown>;
    apiToken?: string;
    secretApiToken?: string | null;
    secretApiTokenBackup?: string | null;
  },
): Promise<Team> {
  await db
    .updateTable('teams')
    .set({
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.settings !== undefined ? { settings: toJson(change.settings) } : {}),
      ...(change.apiToken !== undefined ? { api_token: change.apiToken } : {}),
      ...(change.secretApiToken !== undefined ? { secret_api_token: change.secretApiToken } : {}),
      ...(change.secretApiTokenBackup !== undefined ? { secret_api_token_backup: change.secretApiTokenBackup } : {}),
      updated_at: nowIso(),
    })
    .where('id', '=', team.id)
    .execute();
  return (await getTeam(db, team.id))!;
}

export type ProductIntent = {
  product_type: string;
  created_at: string;
  onboarding_completed_at: string | null;
  updated_at: string;
};

export async function listProductIntents(db: Db, teamId: number): Promise<ProductIntent[]> {
  const rows = await db.selectFrom('product_intents').selectAll().where('team_id', '=', teamId).orderBy('created_at').execute();
  return rows.map((r) => ({
    product_type: r.product_type,
    created_at: r.created_at,
    onboarding_completed_at: r.onboarding_completed_at,
    updated_at: r.updated_at,
  }));
}

/**
 * PostHog's ProductIntent.register: one row per product, counting the contexts it came from. The
 * row is made first if missing and then locked by an update, so concurrent registrations of one
 * product neither both insert (a unique violation on PostgreSQL) nor lose each other's counts.
 */
export async function registerProductIntent(
  db: Db,
  teamId: number,
  productType: string,
  context: string,
  completeOnboarding: boolean,
): Promise<void> {
  const now = nowIso();
  await db
    .insertInto('product_intents')
    .values({
      team_id: teamId,
      product_type: productType,
      contexts: toJson({}),
      onboarding_completed_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.columns(['team_id', 'product_type']).doNothing())
    .execute();
  const current = await db
    .updateTable('product_intents')
    .set({ updated_at: now })
    .where('team_id', '=', teamId)
    .where('product_type', '=', productType)
    .returningAll()
    .executeTakeFirstOrThrow();
  const contexts = { ...fromJson<Record<string, number>>(current.contexts) };
  contexts[context] = (contexts[context] ?? 0) + 1;
  const completedAt = current.onboarding_completed_at ?? (completeOnboarding ? now : null);
  await db
    .updateTable('product_intents')
    .set({ contexts: toJson(contexts), onboarding_completed_at: completedAt })
    .where('team_id', '=', teamId)
    .where('product_type', '=', productType)
    .execute();
}

/** A secret of the installation (018-instance-secrets); throws when there is none by that name. */
export async function instanceSecret(db: Db, name: string): Promise<string> {
  const row = await db.selectFrom('instance_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

/** Makes the dashboard the environment's primary one; the environment as it is after. */
export async function setPrimaryDashboard(db: Db, team: Team, dashboardId: number): Promise<Team> {
  await db
    .updateTable('teams')
    .set({ settings: toJson({ ...team.settings, primary_dashboard: dashboardId }) })
    .where('id', '=', team.id)
    .execute();
  return (await getTeam(db, team.id))!;
}

/** Whether the environment's project has environments besides it. */
export async function hasOtherEnvironments(db: Db, team: Team): Promise<boolean> {
  const other = await db
    .selectFrom('teams')
    .select('id')
    .where('project_id', '=', team.projectId)
    .where('id', '!=', team.id)
    .executeTakeFirst();
  return other !== undefined;
}

/** Marks the environment's demo data as being generated (clearDemoDataGenerating clears it once the demo data is in). */
export async function markDemoDataGenerating(db: Db, teamId: number): Promise<void> {
  await db.updateTable('teams').set({ demo_data_status: 'generating' }).where('id', '=', teamId).execute();
}

/** The demo data is in (or its generation gave up): `is_generating_demo_data` is false again. */
export async function clearDemoDataGenerating(db: Db, teamId: number): Promise<void> {
  await db.updateTable('teams').set({ demo_data_status: null }).where('id', '=', teamId).execute();
}

export async function isGeneratingDemoData(db: Db, teamId: number): Promise<boolean> {
  const row = await db.selectFrom('teams').select('demo_data_status').where('id', '=', teamId).executeTakeFirst();
  return row?.demo_data_status === 'generating';
}

/**
 * Removes an environment. At once, in one transaction:
 * - the rows of every table with its `team_id` but the bulk ones: flags, cohorts, insights,
 *   dashboards, subscriptions, sharing, its group type rows, the queue…; the project's group types
 *   live on in the rows each other environment of the project holds;
 * - its event and property definitions, which are the project's: while the project has another
 *   environment they stay, the rows this one first saw handed to the lowest-numbered other one;
 *   with no other environment they go, with the project;
 * - its keys' access (a key limited to it alone is deleted), users' pointers to it, its row, and
 *   its project when it was the last environment.
 * Its bulk data (events, persons, recordings…: BULK_TEAM_TABLES) is queued in the same transaction
 * and deleted in the background (deletions/runner.ts): deleting millions of rows in the request
 * would hold SQLite's write lock, and the process, for minutes.
 */
export async function purgeTeam(database: Database, team: Team): Promise<void> {
  const tables = await teamOwnedTables(database);
  await database.db.transaction().execute(async (trx) => {
    const heir = await trx
      .selectFrom('teams')
      .select('id')
      .where('project_id', '=', team.projectId)
      .where('id', '<>', team.id)
      .orderBy('id')
      .executeTakeFirst();
    // Definitions are the project's: they stay while it has another environment.
    await releaseEnvironmentDefinitions(trx, team.id, team.projectId, heir === undefined ? undefined : Number(heir.id));
    for (const table of tables) {
      if (BULK_TEAM_TABLES.has(table) || DEFINITION_TABLES.has(table)) continue;
      await (trx as Kysely<any>).deleteFrom(table).where('team_id', '=', team.id).execute();
    }
    await queueDeletion(trx, { teamId: team.id, kind: 'environment' });
    // Keys limited to this environment lose it; a key limited to nothing else goes with it.
    const keys = await trx.selectFrom('personal_api_keys').select(['id', 'scoped_teams']).where('scoped_teams', 'is not', null).execute();
    for (const key of keys) {
      const scoped = fromJson<number[] | null>(key.scoped_teams)?.map(Number) ?? [];
      if (!scoped.includes(team.id)) continue;
      const rest = scoped.filter((id) => id !== team.id);
      if (rest.length === 0) await trx.deleteFrom('personal_api_keys').where('id', '=', key.id).execute();
      else
        await trx
          .updateTable('personal_api_keys')
          .set({ scoped_teams: toJson(rest) })
          .where('id', '=', key.id)
          .execute();
    }
    await trx.updateTable('users').set({ current_team_id: null }).where('current_team_id', '=', team.id).execute();
    await trx.deleteFrom('teams').where('id', '=', team.id).execute();
    if (!heir) await trx.deleteFrom('projects').where('id', '=', team.projectId).execute();
  });
}
