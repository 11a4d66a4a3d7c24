/**
 * The surveys posthog-js is served, per project: PostHog's `get_surveys_response` (every survey
 * that is not archived, in SurveyAPISerializer's shape, and the environment's `survey_config`).
 * Read by the public `/api/surveys/` and by the remote config, so it is held in memory and
 * dropped when a `surveys` change is announced (here or in another process); a short lifetime
 * heals a missed notice.
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { SharedLookups } from '../lib/shared-lookups.js';
import { serializePublicSurvey, SurveyLookups } from './serializers.js';
import { SURVEYS_TOPIC } from './service.js';
import { listUnarchivedSurveys } from './store.js';

const TTL_MS = 30_000;

export type PublicSurvey = Awaited<ReturnType<typeof serializePublicSurvey>>;

/** Per project; a change notice drops the project's (or, for everything, all of them). */
class PublicSurveysCache {
  private readonly projects = new SharedLookups<number, PublicSurvey[]>({ lifetimeMs: TTL_MS });

  constructor(private readonly ctx: AppContext) {
    ctx.changes.on(SURVEYS_TOPIC, (change) => {
      if (change.everything) this.projects.clear();
      else this.projects.forget(Number(change.id));
    });
  }

  get(projectId: number): Promise<PublicSurvey[]> {
    const { db } = this.ctx.database;
    return this.projects.get(projectId, () =>
      listUnarchivedSurveys(db, projectId).then((surveys) => {
        const lookups = new SurveyLookups(db, projectId);
        return Promise.all(surveys.map((survey) => serializePublicSurvey(survey, lookups)));
      }),
    );
  }
}

const caches = new WeakMap<AppContext, PublicSurveysCache>();

function cacheOf(ctx: AppContext): PublicSurveysCache {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new PublicSurveysCache(ctx)));
  return cache;
}

/** `get_surveys_response`: `{surveys, survey_config}`. */
export async function publicSurveysResponse(ctx: AppContext, team: Team): Promise<{ surveys: PublicSurvey[]; survey_config: unknown }> {
  return { surveys: await cacheOf(ctx).get(team.projectId), survey_config: team.settings.survey_config ?? null };
}

/**
 * What the remote config says of surveys (PostHog's RemoteConfig.build_config): for an environment
 * that opted in (`surveys_opt_in`) and has surveys, the surveys (and its `survey_config` when set);
 * otherwise false. Nothing is read for an environment that did not opt in.
 */
export async function remoteConfigSurveys(
  ctx: AppContext,
  team: Team,
): Promise<{ surveys: PublicSurvey[] | false; survey_config?: unknown }> {
  if (team.settings.surveys_opt_in !== true) return { surveys: false };
  const { surveys, survey_config } = await publicSurveysResponse(ctx, team);
  if (surveys.length === 0) return { surveys: false };
  return survey_config ? { surveys, survey_config } : { surveys };
}
