import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { canSeeTeam, visibleScope } from '../auth/guard.js';
import { deleteSecretTokenBackup, requireProjectAdmin, rotateSecretToken } from './secret-tokens.js';
import { resetToken } from './service.js';
import { paginate, readPage } from '../http/pagination.js';
import { liveEventsToken } from './live-events-token.js';
import { serializeOrganizationBasic, serializeTeam, serializeTeamBasic, serializeUserBasic } from './serializers.js';
import { getOrganization, getTeam, listOrganizationsOfUser, listTeams } from './tenancy-store.js';

export const tenancyRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  app.get('/projects/', { config: { access: { scope: 'project:read' } } }, async (request) => {
    const page = readPage(request.query);
    const { count, teams } = await listTeams(db, { ...visibleScope(request.principal!), primaryOnly: true }, page);
    return paginate(
      request,
      page,
      count,
      teams.map((team) => serializeTeamBasic(team, team.projectId)),
    );
  });

  app.get('/projects/:id/', { config: { access: { scope: 'project:read', team: { from: 'project', param: 'id' } } } }, async (request) => {
    const team = request.team!;
    const principal = request.principal!;
    return serializeTeam(team, {
      membershipLevel: principal.memberships.get(team.organizationId) ?? null,
      liveEventsToken: await liveEventsToken(ctx.database, team, principal.user.id),
    });
  });

  // The project's own addresses of the environment actions (PostHog's ProjectViewSet acts on the
  // project's first environment). Scope and admin rule as in environments/routes.ts.
  const projectAdminAction = { access: { scope: 'project:write', team: { from: 'project', param: 'id' } } } as const;
  const projectKeyActions = {
    reset_token: resetToken,
    rotate_secret_token: rotateSecretToken,
    delete_secret_token_backup: deleteSecretTokenBackup,
  };
  for (const [action, run] of Object.entries(projectKeyActions)) {
    app.patch(`/projects/:id/${action}/`, { config: projectAdminAction }, async (request) => {
      const principal = request.principal!;
      requireProjectAdmin(principal, request.team!);
      const team = await run(ctx, principal, request.team!);
      return serializeTeam(team, {
        membershipLevel: principal.memberships.get(team.organizationId) ?? null,
        liveEventsToken: await liveEventsToken(ctx.database, team, principal.user.id),
      });
    });
  }

  app.get('/users/@me/', { config: { access: { scope: 'user:read' } } }, async (request) => {
    const principal = request.principal!;
    const { user, memberships } = principal;
    const organizations = await listOrganizationsOfUser(db, user.id);
    let currentTeam = user.currentTeamId === null ? undefined : await getTeam(db, user.currentTeamId);
    // A key limited to some projects must not reveal another one, even the user's current one.
    if (currentTeam && !canSeeTeam(principal, currentTeam)) currentTeam = undefined;
    const currentOrg = user.currentOrganizationId ? await getOrganization(db, user.currentOrganizationId) : undefined;
    return {
      date_joined: user.dateJoined,
      uuid: user.uuid,
      distinct_id: user.distinctId,
      first_name: user.firstName,
      last_name: user.lastName,
      email: user.email,
      pending_email: null,
      is_email_verified: user.isEmailVerified,
      notification_settings: {},
      anonymize_data: false,
      toolbar_mode: 'toolbar',
      has_password: false,
      id: user.id,
      is_staff: user.isStaff,
      is_impersonated: false,
      is_impersonated_until: null,
      sensitive_session_expires_at: null,
      team: currentTeam ? serializeTeamBasic(currentTeam) : null,
      organization: currentOrg
        ? { ...serializeOrganizationBasic(currentOrg, memberships.get(currentOrg.id) ?? 1), created_at: currentOrg.createdAt }
        : null,
      organizations: organizations.map((o) =>
        serializeOrganizationBasic(
          { id: o.id, name: o.name, slug: o.slug, createdAt: o.created_at, updatedAt: o.created_at },
          Number(o.level),
        ),
      ),
      events_column_config: { active: 'DEFAULT' },
      is_2fa_enabled: false,
      has_social_auth: false,
      has_sso_enforcement: false,
      has_seen_product_intro_for: null,
      scene_personalisation: [],
      theme_mode: null,
      hedgehog_config: serializeUserBasic(user).hedgehog_config,
      role_at_organization: user.roleAtOrganization,
    };
  });
};
