import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import type { ApiRouteAccess } from '../auth/guard.js';
import { visibleScope } from '../auth/guard.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound, validationError } from '../posthog/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import type { Team } from './models.js';
import { serializeTeamBasic } from './serializers.js';
import { listTeams } from './tenancy-store.js';
import { isGeneratingDemoData } from './store.js';
import { checkTeamAttrs, createEnvironment, deleteEnvironment, productIntent, resetToken, teamBody, updateEnvironment } from './service.js';
import { deleteSecretTokenBackup, requireProjectAdmin, rotateSecretToken } from './secret-tokens.js';
import { readTeamWrite } from './validate-settings.js';

/** The two addresses of one environment: nested in its project, and on its own. */
const SINGLE_BASES = [
  { path: '/projects/:project_id/environments/:id', nested: true },
  { path: '/environments/:id', nested: false },
] as const;

const envAccess = (scope: string): { access: ApiRouteAccess } => ({ access: { scope, team: { from: 'environment', param: 'id' } } });

/** Under /projects/:project_id/environments/:id/ the environment must belong to that project. */
function environmentOf(request: FastifyRequest, nested: boolean): Team {
  const team = request.team!;
  if (nested && String(team.projectId) !== (request.params as { project_id: string }).project_id) throw notFound();
  return team;
}

function productType(body: unknown): { type: string; context: string } {
  const input = (body ?? {}) as Record<string, unknown>;
  if (typeof input.product_type !== 'string' || input.product_type.trim() === '') {
    // PostHog answers these two actions with a bare {"error": …} body.
    throw new ApiError(400, 'validation_error', 'required', 'product_type is required', 'product_type');
  }
  const context = typeof input.intent_context === 'string' && input.intent_context ? input.intent_context : 'unknown';
  return { type: input.product_type.trim(), context };
}

export interface EnvironmentRouteOptions {
  ctx: AppContext;
  /**
   * Fills a new demo environment with data in the background. Passed in (demo/ wires flags,
   * recordings and ingestion) so that environments import none of those features.
   */
  startDemoData: (ctx: AppContext, team: Team, userId: number) => void;
}

export const environmentRoutes: FastifyPluginAsync<EnvironmentRouteOptions> = async (app, { ctx, startDemoData }) => {
  const { db } = ctx.database;

  app.get(
    '/projects/:project_id/environments/',
    { config: { access: { scope: 'project:read', team: { from: 'project', param: 'project_id' } } } },
    async (request) => {
      const page = readPage(request.query);
      const { count, teams } = await listTeams(db, { projectId: request.team!.projectId, ...visibleScope(request.principal!) }, page);
      return paginate(
        request,
        page,
        count,
        teams.map((t) => serializeTeamBasic(t)),
      );
    },
  );

  app.get('/environments/', { config: { access: { scope: 'project:read' } } }, async (request) => {
    const page = readPage(request.query);
    const { count, teams } = await listTeams(db, visibleScope(request.principal!), page);
    return paginate(
      request,
      page,
      count,
      teams.map((t) => serializeTeamBasic(t)),
    );
  });

  app.post(
    '/projects/:project_id/environments/',
    { config: { access: { scope: 'project:write', team: { from: 'project', param: 'project_id' } } } },
    async (request, reply) => {
      const write = readTeamWrite(request.body);
      await checkTeamAttrs(ctx, undefined, write);
      const team = await createEnvironment(ctx, request.principal!, request.team!, write);
      if (team.settings.is_demo === true) startDemoData(ctx, team, request.principal!.user.id);
      return reply.code(201).send(await teamBody(ctx, team, request.principal!));
    },
  );

  app.post('/environments/', { config: { access: { scope: 'project:write' } } }, async () => {
    throw validationError(
      'Environments must be created under a specific project. Send the POST request to /api/projects/<project_id>/environments/ instead.',
      null,
    );
  });

  for (const { path, nested } of SINGLE_BASES) {
    app.get(`${path}/`, { config: envAccess('project:read') }, async (request) =>
      teamBody(ctx, environmentOf(request, nested), request.principal!),
    );

    app.patch(`${path}/`, { config: envAccess('project:write') }, async (request) => {
      const team = environmentOf(request, nested);
      const write = readTeamWrite(request.body);
      await checkTeamAttrs(ctx, team, write);
      const updated = await updateEnvironment(ctx, request.principal!, team, write);
      return teamBody(ctx, updated, request.principal!);
    });

    app.delete(`${path}/`, { config: envAccess('project:write') }, async (request, reply) => {
      const team = environmentOf(request, nested);
      await deleteEnvironment(ctx, request.principal!, team);
      return reply.code(204).send();
    });

    app.get(`${path}/activity/`, { config: envAccess('project:read') }, async (request) => {
      const team = environmentOf(request, nested);
      const params = readActivityPageParams(request.query);
      return activityPage(request, db, { scope: 'Team', teamId: team.id, itemId: String(team.id) }, params);
    });

    // PostHog declares project:read on these two (TeamViewSet's required_scopes), as on reads.
    app.patch(`${path}/add_product_intent/`, { config: envAccess('project:read') }, async (request, reply) => {
      const team = environmentOf(request, nested);
      const { type, context } = productType(request.body);
      await productIntent(ctx, request.principal!, team, type, context, false);
      return reply.code(201).send(await teamBody(ctx, team, request.principal!));
    });

    app.patch(`${path}/complete_product_onboarding/`, { config: envAccess('project:read') }, async (request) => {
      const team = environmentOf(request, nested);
      const { type, context } = productType(request.body);
      await productIntent(ctx, request.principal!, team, type, context, true);
      return teamBody(ctx, team, request.principal!);
    });

    app.get(`${path}/is_generating_demo_data/`, { config: envAccess('project:read') }, async (request) => {
      const team = environmentOf(request, nested);
      return { is_generating_demo_data: await isGeneratingDemoData(db, team.id) };
    });

    // PostHog declares no scope on the three key actions (session only) and wants a project admin
    // (TeamMemberStrictManagementPermission); Hoglet has only personal API keys, so they take
    // project:write and the admin.
    app.patch(`${path}/reset_token/`, { config: envAccess('project:write') }, async (request) => {
      const team = environmentOf(request, nested);
      requireProjectAdmin(request.principal!, team);
      return teamBody(ctx, await resetToken(ctx, request.principal!, team), request.principal!);
    });

    app.patch(`${path}/rotate_secret_token/`, { config: envAccess('project:write') }, async (request) => {
      const team = environmentOf(request, nested);
      requireProjectAdmin(request.principal!, team);
      return teamBody(ctx, await rotateSecretToken(ctx, request.principal!, team), request.principal!);
    });

    app.patch(`${path}/delete_secret_token_backup/`, { config: envAccess('project:write') }, async (request) => {
      const team = environmentOf(request, nested);
      requireProjectAdmin(request.principal!, team);
      return teamBody(ctx, await deleteSecretTokenBackup(ctx, request.principal!, team), request.principal!);
    });
  }
};
