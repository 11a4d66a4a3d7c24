/**
 * An environment's project secret API key (`phs_…`), which server SDKs send instead of a personal
 * API key to read the local-evaluation feed. As PostHog's Team.rotate_secret_token_and_save and
 * delete_secret_token_backup_and_save (posthog/models/team/team.py): an environment has none until
 * the first rotation; each rotation mints a new key and keeps the one it replaces as a backup, so
 * SDKs can move over without an outage; deleting the backup retires it.
 */
import type { ActivityChange } from '../activity/store.js';
import type { Principal } from '../auth/guard.js';
import { generateSecretApiToken, maskKey } from '../auth/tokens.js';
import type { AppContext } from '../context.js';
import { permissionDenied } from '../posthog/errors.js';
import { MembershipLevel, type Team } from './models.js';
import { logTeamUpdate } from './service.js';
import { updateTeamRow } from './store.js';
import { lockTeam } from './tenancy-store.js';

/** PostHog's TeamMemberStrictManagementPermission on these actions: a write needs a project admin. */
export function requireProjectAdmin(principal: Principal, team: Team): void {
  const level = principal.memberships.get(team.organizationId);
  if (level === undefined || level < MembershipLevel.admin) {
    throw permissionDenied("You don't have sufficient permissions in the project.");
  }
}

const masked = (token: string | null) => (token === null ? null : maskKey(token));

/** The activity-log change PostHog records: masked keys only, the backup named once there was one to move. */
function rotationChange(before: Team, after: Team): ActivityChange {
  const first = before.secretApiToken === null;
  return {
    type: 'Team',
    action: first ? 'created' : 'changed',
    field: 'secret_api_token',
    before: first
      ? { secret_api_token: null }
      : { secret_api_token: masked(before.secretApiToken), secret_api_token_backup: masked(before.secretApiTokenBackup) },
    after: first
      ? { secret_api_token: masked(after.secretApiToken) }
      : { secret_api_token: masked(after.secretApiToken), secret_api_token_backup: masked(after.secretApiTokenBackup) },
  };
}

/** A new key; the current one becomes the backup (still accepted), and the previous backup stops working. */
export async function rotateSecretToken(ctx: AppContext, principal: Principal, team: Team): Promise<Team> {
  const updated = await ctx.database.db.transaction().execute(async (trx) => {
    // The keys as they are now, not as the request found them: two rotations at once must leave
    // one key current and the other the backup, not lose one.
    const current = (await lockTeam(trx, ctx.database.dialect, team.id)) ?? team;
    const next = await updateTeamRow(trx, current, {
      secretApiToken: generateSecretApiToken(),
      secretApiTokenBackup: current.secretApiToken,
    });
    await logTeamUpdate(trx, principal, current, [rotationChange(current, next)]);
    return next;
  });
  await ctx.teams.invalidate(team.id);
  ctx.log.info({ team: team.id }, 'project secret API key rotated');
  return updated;
}

/** Retires the backup key. Without one there is nothing to do: no write, no activity entry. */
export async function deleteSecretTokenBackup(ctx: AppContext, principal: Principal, team: Team): Promise<Team> {
  const outcome = await ctx.database.db.transaction().execute(async (trx) => {
    const current = (await lockTeam(trx, ctx.database.dialect, team.id)) ?? team;
    const backup = current.secretApiTokenBackup;
    if (!backup) return { team: current, deleted: false };
    const next = await updateTeamRow(trx, current, { secretApiTokenBackup: null });
    const change: ActivityChange = {
      type: 'Team',
      action: 'deleted',
      field: 'secret_api_token_backup',
      before: maskKey(backup),
      after: null,
    };
    await logTeamUpdate(trx, principal, current, [change]);
    return { team: next, deleted: true };
  });
  if (outcome.deleted) {
    await ctx.teams.invalidate(team.id);
    ctx.log.info({ team: team.id }, 'project secret API key backup deleted');
  }
  return outcome.team;
}
