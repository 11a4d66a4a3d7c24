import type { Kysely } from 'kysely';
import { diffFields, recordActivity, type ActivityChange, type Actor } from '../activity/store.js';
import type { Schema } from '../platform/db/schema.js';
import { validationError } from '../posthog/errors.js';
import type { Principal } from '../auth/guard.js';
import { generateProjectApiToken } from '../auth/tokens.js';
import type { AppContext } from '../context.js';
import { createPrimaryDashboard } from '../dashboards/default-dashboard-store.js';
import { getDashboard } from '../dashboards/store.js';
import { copyProjectGroupTypes, listGroupTypes, lockProjectGroupTypes } from '../groups/store.js';
import type { Team } from './models.js';
import { liveEventsToken } from './live-events-token.js';
import { serializeTeam } from './serializers.js';
import { insertTeam, lockTeam, memberEmails } from './tenancy-store.js';
import { defaultTeamSettings } from './team-fields.js';
import {
  hasOtherEnvironments,
  listProductIntents,
  markDemoDataGenerating,
  purgeTeam,
  registerProductIntent,
  setPrimaryDashboard,
  updateTeamRow,
} from './store.js';
import { checkErrorsToIgnore, mergeSettings } from './json-settings.js';
import type { TeamWrite } from './validate-settings.js';

/** Fields never written to the activity log: they change on their own or are secrets. */
const UNLOGGED_FIELDS = ['updated_at', 'created_at', 'live_events_token', 'secret_api_token', 'secret_api_token_backup'];

export function actorOf(principal: Principal): Actor {
  return { userId: principal.user.id, apiKeyId: principal.key?.id ?? null };
}

/** The whole environment body, with the facts other features hold. */
export async function teamBody(ctx: AppContext, team: Team, principal: Principal) {
  const { db } = ctx.database;
  const groupTypes = await listGroupTypes(db, team.id);
  return serializeTeam(team, {
    membershipLevel: principal.memberships.get(team.organizationId) ?? null,
    groupTypes: groupTypes.map((g) => ({
      group_type: g.groupType,
      group_type_index: g.groupTypeIndex,
      name_singular: g.nameSingular,
      name_plural: g.namePlural,
      default_columns: null,
      detail_dashboard: null,
    })),
    productIntents: await listProductIntents(db, team.id),
    liveEventsToken: await liveEventsToken(ctx.database, team, principal.user.id),
  });
}

/** What the activity log compares: the configurable fields plus name and token. */
function loggedState(team: Team): Record<string, unknown> {
  return { name: team.name, api_token: team.apiToken, ...team.settings };
}

export async function createEnvironment(ctx: AppContext, principal: Principal, projectTeam: Team, write: TeamWrite): Promise<Team> {
  const { db } = ctx.database;
  const team = await db.transaction().execute(async (trx) => {
    await lockProjectGroupTypes(trx, projectTeam.projectId);
    const settings = { ...defaultTeamSettings(await memberEmails(trx, projectTeam.organizationId)), ...write.settings };
    const inserted = await insertTeam(trx, projectTeam.projectId, {
      organizationId: projectTeam.organizationId,
      name: write.name ?? 'Default project',
      apiToken: generateProjectApiToken(),
      settings,
    });
    // Group types are the project's (PostHog's GroupTypeMapping): the new environment has them too.
    await copyProjectGroupTypes(trx, inserted.projectId, inserted.id);
    const created = await setPrimaryDashboard(trx, inserted, await createPrimaryDashboard(trx, inserted.id));
    // Marked in the same transaction, so the very first is_generating_demo_data answer is true.
    if (created.settings.is_demo === true) {
      await markDemoDataGenerating(trx, created.id);
    }
    await recordActivity(trx, {
      organizationId: created.organizationId,
      teamId: created.id,
      scope: 'Team',
      itemId: created.id,
      activity: 'created',
      actor: actorOf(principal),
      name: created.name,
    });
    return created;
  });
  ctx.log.info({ team: team.id, project: team.projectId, isDemo: team.settings.is_demo === true }, 'environment created');
  return team;
}

/**
 * What PostHog checks once each field is read (PrimaryKeyRelatedField, then `validate_team_attrs`),
 * in its order: `primary_dashboard` must name a live dashboard of this environment, and cannot be
 * chosen before the environment exists; then `autocapture_exceptions_errors_to_ignore`'s rule.
 */
export async function checkTeamAttrs(ctx: AppContext, team: Team | undefined, write: TeamWrite): Promise<void> {
  await checkPrimaryDashboard(ctx, team, write);
  checkErrorsToIgnore(write.settings);
}

async function checkPrimaryDashboard(ctx: AppContext, team: Team | undefined, write: TeamWrite): Promise<void> {
  const id = write.settings.primary_dashboard;
  if (id === undefined || id === null) return;
  if (!team) throw validationError('Primary dashboard cannot be set on project creation.', 'primary_dashboard');
  const dashboard = await getDashboard(ctx.database.db, team.id, Number(id));
  if (!dashboard || dashboard.deleted) {
    throw validationError(`Invalid pk "${String(id)}" - object does not exist.`, 'primary_dashboard', 'does_not_exist');
  }
}

export async function updateEnvironment(ctx: AppContext, principal: Principal, team: Team, write: TeamWrite): Promise<Team> {
  const updated = await ctx.database.db.transaction().execute(async (trx) => {
    // Merged onto the row as it is now, not as this request read it, so concurrent PATCHes of
    // different fields (or keys of a merged field) keep each other's writes.
    const current = (await lockTeam(trx, ctx.database.dialect, team.id)) ?? team;
    const settings = mergeSettings(current.settings, write.settings);
    const next = await updateTeamRow(trx, current, { ...(write.name !== undefined ? { name: write.name } : {}), settings });
    const changes = diffFields('Team', loggedState(current), loggedState(next), UNLOGGED_FIELDS);
    if (changes.length > 0) {
      await logTeamUpdate(trx, principal, next, changes);
    }
    return next;
  });
  await ctx.teams.invalidate(team.id);
  return updated;
}

/** The activity-log entry of an update of the environment (`team` as it is after it). */
export async function logTeamUpdate(db: Kysely<Schema>, principal: Principal, team: Team, changes: ActivityChange[]): Promise<void> {
  await recordActivity(db, {
    organizationId: team.organizationId,
    teamId: team.id,
    scope: 'Team',
    itemId: team.id,
    activity: 'updated',
    actor: actorOf(principal),
    name: team.name,
    changes,
  });
}

/** A new project API key; the old one stops working for capture and decide everywhere at once. */
export async function resetToken(ctx: AppContext, principal: Principal, team: Team): Promise<Team> {
  const updated = await ctx.database.db.transaction().execute(async (trx) => {
    const next = await updateTeamRow(trx, team, { apiToken: generateProjectApiToken() });
    await logTeamUpdate(trx, principal, next, [
      { type: 'Team', action: 'changed', field: 'api_token', before: team.apiToken, after: next.apiToken },
    ]);
    return next;
  });
  await ctx.teams.invalidate(team.id);
  ctx.log.info({ team: team.id }, 'project API key reset');
  return updated;
}

export async function productIntent(
  ctx: AppContext,
  principal: Principal,
  team: Team,
  productType: string,
  context: string,
  completeOnboarding: boolean,
): Promise<void> {
  await ctx.database.db.transaction().execute(async (trx) => {
    await registerProductIntent(trx, team.id, productType, context, completeOnboarding);
    await recordActivity(trx, {
      organizationId: team.organizationId,
      teamId: team.id,
      scope: 'Team',
      itemId: team.id,
      activity: completeOnboarding ? 'product_onboarding_completed' : 'product_intent_added',
      actor: actorOf(principal),
      name: team.name,
      trigger: { product_type: productType, intent_context: context },
    });
  });
}

export async function deleteEnvironment(ctx: AppContext, principal: Principal, team: Team): Promise<void> {
  if (team.id === team.projectId && (await hasOtherEnvironments(ctx.database.db, team))) {
    throw validationError("A project's first environment cannot be deleted while the project has other environments.", null);
  }
  await purgeTeam(ctx.database, team);
  // The history outlives the environment: kept by organization, with no team id.
  await recordActivity(ctx.database.db, {
    organizationId: team.organizationId,
    teamId: null,
    scope: 'Team',
    itemId: team.id,
    activity: 'deleted',
    actor: actorOf(principal),
    name: team.name,
  });
  await ctx.teams.invalidate(team.id);
  await ctx.changes.publish({ topic: 'feature_flags', id: team.id });
  ctx.log.info({ team: team.id }, 'environment deleted; its data is deleted in the background');
}
