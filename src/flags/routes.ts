import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404 } from '../posthog/errors.js';
import { pathId } from '../http/path-id.js';
import { activityPage, readActivityPageParams } from '../activity/activity-page.js';
import { paginate, readPage } from '../http/pagination.js';
import type { Team } from '../environments/models.js';
import { applyListQuery, type ListQuery } from './list-filters.js';
import { checkKeyReachesTeam, teamForFeed, teamForProjectFlagRequest, teamForSecretKeyFeed } from './feed-auth.js';
import { localEvaluationResponse } from './local-evaluation.js';
import { remoteConfigFlag, remoteConfigPayload } from './remote-config-payload.js';
import { serializeFlag, UserDirectory } from './serializers.js';
import { cohortNamesOf, createFlag, editFlag } from './service.js';
import { getFlag, listProjectFlags, type FeatureFlag } from './store.js';
import { surveyFlagIds } from '../surveys/store.js';
import { featuresOfFlags } from '../early-access/store.js';

const TEAM = { from: 'project', param: 'project_id' } as const;
const READ = { access: { scope: 'feature_flag:read', team: TEAM } };
const WRITE = { access: { scope: 'feature_flag:write', team: TEAM } };
/** PostHog's `activity` actions declare `activity_log:read`, not the flag's own scope. */
const ACTIVITY = { access: { scope: 'activity_log:read', team: TEAM } };
/** What server SDKs read: the environment is resolved by the handler, and a project secret key is taken. */
const SDK_READ = { access: { scope: 'feature_flag:read', authenticateOnly: true, projectSecretKey: true } };

export const flagRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;
  const base = '/projects/:project_id/feature_flags';

  const loadFlag = (request: FastifyRequest): Promise<FeatureFlag> => loadOr404(getFlag(db, request.team!.projectId, pathId(request)));

  async function respond(flags: FeatureFlag[], projectId: number) {
    const users = new UserDirectory(db);
    const [names, features] = await Promise.all([
      cohortNamesOf(ctx, projectId),
      featuresOfFlags(
        db,
        projectId,
        flags.map((flag) => flag.id),
      ),
    ]);
    return Promise.all(flags.map((flag) => serializeFlag(flag, users, names, features.get(flag.id))));
  }

  app.get(`${base}/`, { config: READ }, async (request) => {
    const page = readPage(request.query);
    const query = request.query as ListQuery;
    // The flags surveys made for themselves are left out, as PostHog's list does.
    const [all, surveyFlags] = await Promise.all([
      listProjectFlags(db, request.team!.projectId),
      surveyFlagIds(db, request.team!.projectId),
    ]);
    const flags = applyListQuery(
      all.filter((flag) => !surveyFlags.has(flag.id)),
      query,
    );
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
  // team checks on whichever environment that is. A project secret API key is taken too.
  app.get(`${base}/local_evaluation/`, { config: SDK_READ }, async (request, reply) => {
    const team = await teamForProjectFlagRequest(ctx, request);
    return localEvaluationResponse(ctx, team, request, reply, 'django');
  });

  // posthog-node's getRemoteConfigPayload (PostHog's FeatureFlagViewSet.remote_config).
  app.get(`${base}/:id/remote_config/`, { config: SDK_READ }, async (request, reply) => {
    const team = await teamForProjectFlagRequest(ctx, request);
    const flag = await remoteConfigFlag(db, team.projectId, (request.params as { id: string }).id);
    // PostHog answers both with a bare 404, no body.
    if (!flag?.isRemoteConfiguration) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(remoteConfigPayload(flag)));
  });

  // The project's flag history, then one flag's (FeatureFlagViewSet's `activity` actions), newest first.
  app.get(`${base}/activity/`, { config: ACTIVITY }, async (request) => {
    const params = readActivityPageParams(request.query);
    return activityPage(request, db, { scope: 'FeatureFlag', teamId: request.team!.id }, params);
  });

  app.get(`${base}/:id/activity/`, { config: ACTIVITY }, async (request) => {
    const params = readActivityPageParams(request.query);
    const flag = await loadFlag(request);
    return activityPage(request, db, { scope: 'FeatureFlag', teamId: request.team!.id, itemId: String(flag.id) }, params);
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
  // The legacy feed address: the environment comes from `token` (else the user's current one, or
  // a project secret API key's project).
  app.get(
    '/feature_flag/local_evaluation/',
    { config: { access: { scope: 'feature_flag:read', projectSecretKey: true } } },
    async (request, reply) => {
      const token = (request.query as Record<string, string | undefined>).token;
      let team: Team;
      if (request.secretKeyTeam) {
        team = await teamForSecretKeyFeed(ctx, token, request.secretKeyTeam);
      } else {
        const principal = request.principal!;
        team = await teamForFeed(ctx, token, principal.user.currentTeamId);
        checkKeyReachesTeam(principal.key, principal.memberships, team);
      }
      return localEvaluationResponse(ctx, team, request, reply, 'django');
    },
  );

  // DELETE is answered 405 by the method-not-allowed routes (PostHog's ForbidDestroyModel).
};
