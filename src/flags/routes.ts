import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { applyListQuery, type ListQuery } from './list-filters.js';
import { checkKeyReachesTeam, teamForFeed, teamForProjectFeed } from './feed-auth.js';
import { localEvaluationResponse } from './local-evaluation.js';
import { serializeFlag, UserDirectory } from './serializers.js';
import { cohortNamesOf, createFlag, editFlag } from './service.js';
import { getFlag, listProjectFlags, type FeatureFlag } from './store.js';

const TEAM = { from: 'project', param: 'project_id' } as const;
const READ = { access: { scope: 'feature_flag:read', team: TEAM } };
const WRITE = { access: { scope: 'feature_flag:write', team: TEAM } };

function flagId(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id;
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

export const flagRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  const base = '/projects/:project_id/feature_flags';

  async function loadFlag(request: FastifyRequest): Promise<FeatureFlag> {
    const flag = await getFlag(db, request.team!.projectId, flagId(request));
    if (!flag) throw notFound();
    return flag;
  }

  async function respond(flags: FeatureFlag[], projectId: number) {
    const users = new UserDirectory(db);
    const names = await cohortNamesOf(ctx, projectId);
    return Promise.all(flags.map((flag) => serializeFlag(flag, users, names)));
  }

  app.get(`${base}/`, { config: READ }, async (request) => {
    const page = readPage(request.query);
    const query = request.query as ListQuery;
    const flags = applyListQuery(await listProjectFlags(db, request.team!.projectId), query);
    const slice = flags.slice(page.offset, page.offset + page.limit);
    return paginate(request, page, flags.length, await respond(slice, request.team!.projectId));
  });

  app.post(`${base}/`, { config: WRITE }, async (request, reply) => {
    const flag = await createFlag(ctx, request.team!, request.principal!.user, request.body);
    reply.code(201);
    return (await respond([flag], flag.projectId))[0];
  });

  // Registered before `:id` so the static segment wins; the project-scoped twin of the legacy feed.
  // A `token` in the query names the environment instead of the URL (PostHog's
  // `_get_team_from_request`), so the guard only authenticates and the handler runs the guard's
  // team checks on whichever environment that is.
  app.get(`${base}/local_evaluation/`, { config: { access: { scope: 'feature_flag:read', authenticateOnly: true } } }, async (request, reply) => {
    const team = await teamForProjectFeed(ctx, request, request.principal!);
    return localEvaluationResponse(ctx, team, request, reply, 'django');
  });

  app.get(`${base}/:id/`, { config: READ }, async (request) => {
    const flag = await loadFlag(request);
    return (await respond([flag], flag.projectId))[0];
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: `${base}/:id/`,
      config: WRITE,
      handler: async (request) => {
        const flag = await loadFlag(request);
        const updated = await editFlag(ctx, request.team!, request.principal!.user, flag, request.body, method);
        return (await respond([updated], updated.projectId))[0];
      },
    });
  }
  // The legacy feed address: the environment comes from `token` (else the user's current one).
  app.get('/feature_flag/local_evaluation/', { config: { access: { scope: 'feature_flag:read' } } }, async (request, reply) => {
    const principal = request.principal!;
    const team = await teamForFeed(ctx, (request.query as Record<string, string | undefined>).token, principal.user.currentTeamId);
    checkKeyReachesTeam(principal.key, principal.memberships, team);
    return localEvaluationResponse(ctx, team, request, reply, 'django');
  });

  // DELETE is answered 405 by the method-not-allowed routes (PostHog's ForbidDestroyModel).
};
