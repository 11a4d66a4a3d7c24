import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { checkKeyReachesTeam, localEvaluationResponse, teamForFeed } from './local-evaluation.js';
import { serializeFlag, UserDirectory } from './serializers.js';
import { cohortNamesOf, createFlag, editFlag } from './service.js';
import { getFlag, listProjectFlags, type FeatureFlag } from './store.js';

const TEAM = { from: 'project', param: 'project_id' } as const;
const READ = { access: { scope: 'feature_flag:read', team: TEAM } };
const WRITE = { access: { scope: 'feature_flag:write', team: TEAM } };

type ListQuery = Record<string, string | undefined>;

/** The list endpoint's filters (PostHog `_apply_filters`): active, search, type, created_by_id, evaluation_runtime. */
function matchesListFilters(flag: FeatureFlag, query: ListQuery): boolean {
  if (query.active === 'true' && !flag.active) return false;
  if (query.active === 'false' && flag.active) return false;
  if (query.search) {
    const needle = query.search.toLowerCase();
    if (!flag.key.toLowerCase().includes(needle) && !flag.name.toLowerCase().includes(needle)) return false;
  }
  const multivariate = flag.filters.multivariate;
  switch (query.type) {
    case 'boolean':
      if (multivariate) return false;
      break;
    case 'multivariant':
      if (!multivariate) return false;
      break;
    case 'experiment':
      return false; // Hoglet has no experiments
    case 'remote_config':
      if (!flag.isRemoteConfiguration) return false;
      break;
  }
  if (query.created_by_id && String(flag.createdById) !== query.created_by_id) return false;
  if (query.evaluation_runtime && query.evaluation_runtime !== 'both' && flag.evaluationRuntime !== query.evaluation_runtime) {
    return false;
  }
  if (query.excluded_properties) {
    try {
      const excluded = JSON.parse(query.excluded_properties) as unknown;
      if (Array.isArray(excluded) && excluded.includes(flag.key)) return false;
    } catch {
      // unreadable: ignored, as PostHog does
    }
  }
  return true;
}

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
    const flags = (await listProjectFlags(db, request.team!.projectId)).filter((flag) => matchesListFilters(flag, query));
    const slice = flags.slice(page.offset, page.offset + page.limit);
    return paginate(request, page, flags.length, await respond(slice, request.team!.projectId));
  });

  app.post(`${base}/`, { config: WRITE }, async (request, reply) => {
    const flag = await createFlag(ctx, request.team!, request.principal!.user, request.body);
    reply.code(201);
    return (await respond([flag], flag.projectId))[0];
  });

  // Registered before `:id` so the static segment wins; the project-scoped twin of the legacy feed.
  app.get(`${base}/local_evaluation/`, { config: READ }, async (request, reply) =>
    localEvaluationResponse(ctx, request.team!, request, reply),
  );

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
    const team = await teamForFeed(ctx, (request.query as ListQuery).token, principal.user.currentTeamId);
    checkKeyReachesTeam(principal.key, principal.memberships, team);
    return localEvaluationResponse(ctx, team, request, reply);
  });

  // DELETE is answered 405 by the method-not-allowed routes (PostHog's ForbidDestroyModel).
};
