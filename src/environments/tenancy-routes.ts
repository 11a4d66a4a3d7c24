import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { visibleScope } from '../auth/guard.js';
import { deleteSecretTokenBackup, requireProjectAdmin, rotateSecretToken } from './secret-tokens.js';
import { resetToken } from './service.js';
import { paginate, readPage } from '../http/pagination.js';
import { liveEventsToken } from './live-events-token.js';
import { serializeTeam, serializeTeamBasic } from './serializers.js';
import { listTeams } from './tenancy-store.js';

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
};
