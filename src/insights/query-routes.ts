import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { validationError } from '../posthog/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { isJsonObject } from '../lib/json-object.js';
import { effectiveTimezone } from '../lib/zoned-time.js';
import { readFunnelsQuery } from './funnels.js';
import { TrendsQueryError } from './query-error.js';
import { funnelsAnswer, retentionAnswer, trendsAnswer } from './answers.js';
import { zoneOfTeam } from './query-window.js';
import { readTrendsQuery } from './trends.js';
import { EventsQueryError, readEventsQuery } from '../events/events-query.js';
import { runEventsQuery } from '../events/events-query-store.js';
import { WEB_ANALYTICS_RUNNERS } from '../web-analytics/runners.js';
import { SURVEY_RUNNERS } from '../surveys/results/query-runner.js';
import { readActorsQuery } from './actors-query.js';
import { readRetentionQuery } from './retention.js';
import { actorsAnswer } from './actors-service.js';
import { runLifecycle } from './lifecycle-store.js';
import { runStickiness } from './stickiness-store.js';

/** The query kinds `query/` runs, each from its body's `query` to PostHog's response fields. */
type Runner = (ctx: AppContext, team: Team, query: Record<string, unknown>, now: Date) => Promise<Record<string, unknown>>;

const runFunnels: Runner = async (ctx, team, source, now) => {
  const { results, window } = await funnelsAnswer(ctx.analytics, team.id, readFunnelsQuery(source), now, zoneOfTeam(team));
  return {
    results,
    timezone: window.timezone,
    resolved_date_range: { date_from: window.from.toISOString(), date_to: window.to.toISOString() },
    isUdf: false,
  };
};

const runTrends: Runner = async (ctx, team, source, now) => {
  const query = readTrendsQuery(source);
  const { results, window } = await trendsAnswer(ctx.analytics, team.id, query, now, zoneOfTeam(team));
  return {
    results,
    timezone: window.timezone,
    resolved_date_range: { date_from: window.from.toISOString(), date_to: window.to.toISOString() },
  };
};

const runEvents: Runner = async (ctx, team, source) => {
  const query = readEventsQuery(source);
  return { ...(await runEventsQuery(ctx, team.id, effectiveTimezone(team.settings.timezone), query)) };
};

const runRetention: Runner = async (ctx, team, source, now) => {
  const { results, window } = await retentionAnswer(ctx.analytics, team.id, readRetentionQuery(source), now, zoneOfTeam(team));
  return {
    results,
    timezone: window.timezone,
    resolved_date_range: { date_from: window.from.toISOString(), date_to: window.to.toISOString() },
  };
};

const runActors: Runner = (ctx, team, source, now) => actorsAnswer(ctx, team, readActorsQuery(source), now);

export const QUERY_RUNNERS: Record<string, Runner> = {
  ActorsQuery: runActors,
  EventsQuery: runEvents,
  RetentionQuery: runRetention,
  TrendsQuery: runTrends,
  LifecycleQuery: runLifecycle,
  FunnelsQuery: runFunnels,
  StickinessQuery: runStickiness,
  ...WEB_ANALYTICS_RUNNERS,
  ...SURVEY_RUNNERS,
};

/**
 * PostHog's query endpoint: `POST …/query/` with `{query: {kind, …}}`, answered in PostHog's
 * response shape. Every query runs in the environment of the URL: the runners take the team from
 * the route, never from the body.
 */
export const queryRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    app.post(`${base.base}/query/`, { config: teamAccess('query:read', base) }, async (request) => {
      const body = request.body;
      if (!isJsonObject(body) || !isJsonObject(body.query)) throw validationError('This field is required.', 'query');
      const query = body.query;
      const kind = query.kind;
      const runner = typeof kind === 'string' && Object.hasOwn(QUERY_RUNNERS, kind) ? QUERY_RUNNERS[kind] : undefined;
      if (!runner) {
        throw validationError(
          `Query kind ${JSON.stringify(kind ?? null)} is not supported; supported: ${Object.keys(QUERY_RUNNERS).join(', ')}.`,
          'query__kind',
        );
      }
      const now = new Date();
      try {
        const answer = await runner(ctx, request.team!, query, now);
        return { ...answer, is_cached: false, last_refresh: now.toISOString(), timings: [], hogql: null, modifiers: {} };
      } catch (error) {
        if (error instanceof TrendsQueryError || error instanceof EventsQueryError) throw validationError(error.message, error.attr);
        throw error;
      }
    });
  }
};
