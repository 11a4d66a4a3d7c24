/**
 * The surveys posthog-js is served, per project: PostHog's `get_surveys_response` (every survey
 * that is not archived, in SurveyAPISerializer's shape, and the environment's `survey_config`).
 * Read by the public `/api/surveys/` and by the remote config, so it is held in memory and
 * dropped when a `surveys` change is announced (here or in another process); a short lifetime
 * heals a missed notice.
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { serializePublicSurvey, SurveyLookups } from './serializers.js';
import { SURVEYS_TOPIC } from './service.js';
import { listUnarchivedSurveys } from './store.js';

const TTL_MS = 30_000;

export type PublicSurvey = Awaited<ReturnType<typeof serializePublicSurvey>>;

class PublicSurveysCache {
  private readonly entries = new Map<number, { value: Promise<PublicSurvey[]>; expires: number; generation: number }>();
  private readonly generations = new Map<number, number>();

  constructor(private readonly ctx: AppContext) {
    ctx.changes.on(SURVEYS_TOPIC, (change) => {
      const ids = change.everything ? [...this.entries.keys()] : [Number(change.id)];
      for (const id of ids) {
        this.entries.delete(id);
        this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
      }
    });
  }

  get(projectId: number): Promise<PublicSurvey[]> {
    const now = Date.now();
    const generation = this.generations.get(projectId) ?? 0;
    const cached = this.entries.get(projectId);
    if (cached && cached.expires > now && cached.generation === generation) return cached.value;
    const { db } = this.ctx.database;
    const value = listUnarchivedSurveys(db, projectId).then((surveys) => {
      const lookups = new SurveyLookups(db, projectId);
      return Promise.all(surveys.map((survey) => serializePublicSurvey(survey, lookups)));
    });
    this.entries.set(projectId, { value, expires: now + TTL_MS, generation });
    value.catch(() => {
      if (this.entries.get(projectId)?.value === value) this.entries.delete(projectId);
    });
    return value;
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
