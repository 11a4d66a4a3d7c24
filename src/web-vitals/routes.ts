import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { webVitalsByWeek } from './store.js';
import { ApiError } from '../posthog/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import {
  checkWebVitalsQuery,
  WEB_VITALS_EVENT,
  webVitalsResponse,
  webVitalsWindow,
  type PathCleaningFilter,
} from '../recordings/core/index.js';

/**
 * `web_vitals/?pathname=`: the p90 of INP, LCP, CLS and FCP over the last 7 days, in PostHog's
 * trends response shape (recordings/core/web-vitals.ts). ClickHouse computes each week's p90 from
 * the window's `$web_vitals` events; the core shapes the answer.
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
      const weekStartDay = team.settings.week_start_day === 1 ? 1 : 0;
      const filters = Array.isArray(team.settings.path_cleaning_filters)
        ? (team.settings.path_cleaning_filters as PathCleaningFilter[])
        : [];
      const window = webVitalsWindow({ pathname: check.pathname, now: new Date(), weekStartDay, pathCleaningFilters: filters });
      const byWeek = await webVitalsByWeek(ctx.analytics, {
        teamId: team.id,
        event: WEB_VITALS_EVENT,
        from: window.dateFrom,
        to: window.dateTo,
        weekStartDay,
        target: window.target,
        filters,
      });
      return webVitalsResponse(
        window,
        (metric, week) => byWeek.get(new Date(window.weeks[week]!).toISOString().slice(0, 10))?.[metric] ?? 0,
      );
    });
  }
};
