import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { forEachWebVitalsPage } from './store.js';
import { ApiError } from '../posthog/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import {
  checkWebVitalsQuery,
  WEB_VITALS_EVENT,
  WEB_VITALS_PROPERTY_KEYS,
  WebVitalsSamples,
  type PathCleaningFilter,
} from '../recordings/core/index.js';

const DAY_MS = 86_400_000;

/**
 * `web_vitals/?pathname=`: the p90 of INP, LCP, CLS and FCP over the last 7 days, in PostHog's
 * trends response shape (recordings/core/web-vitals.ts). Only the window's `$web_vitals` events are
 * read, through the (team, event, timestamp) index.
 */
export const webVitalsRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/web_vitals/`, { config: teamAccess('query:read', base) }, async (request) => {
      const check = checkWebVitalsQuery((request.query ?? {}) as Record<string, unknown>);
      if (!check.ok) {
        const { type, code, detail, attr } = check.body;
        throw new ApiError(check.status, type, code, detail, attr);
      }
      const team = request.team!;
      const now = new Date();
      // The core keeps whole days from 7 days back; a day more of rows covers it whatever the hour.
      const since = new Date(now.getTime() - 8 * DAY_MS).toISOString();
      const weekStart = team.settings.week_start_day === 1 ? 1 : 0;
      const filters = Array.isArray(team.settings.path_cleaning_filters)
        ? (team.settings.path_cleaning_filters as PathCleaningFilter[])
        : [];
      // A page of events at a time, each with only the properties the core reads: a busy site
      // sends one for most page views, more than the process should hold at once.
      const samples = new WebVitalsSamples({ pathname: check.pathname, now, weekStartDay: weekStart, pathCleaningFilters: filters });
      const query = {
        teamId: team.id,
        event: WEB_VITALS_EVENT,
        since,
        // Without cleaning rules the path compares as sent, so other pages' events need not be read
        // (events without `$pathname` are kept: the core falls back to `$current_url`).
        pathname: filters.length === 0 ? check.pathname : undefined,
        propertyKeys: WEB_VITALS_PROPERTY_KEYS,
      };
      await forEachWebVitalsPage(ctx.database, query, (rows) => {
        for (const row of rows) samples.add({ event: WEB_VITALS_EVENT, timestamp: row.timestamp, properties: row.properties });
      });
      return samples.response();
    });
  }
};
