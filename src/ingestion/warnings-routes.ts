import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { warningDayCounts, warningExamples } from './warnings-store.js';
import { fromJson } from '../platform/db/values.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';

/** How far back the summary looks, as PostHog's ingestion warnings page does. */
const WINDOW_DAYS = 30;
/** PostHog sends at most this many example warnings per type (the count covers them all). */
const EXAMPLES_PER_TYPE = 50;

/** `?q=` as Django's `request.GET.get` reads it: the last value when repeated. */
function searchParam(query: unknown): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.q;
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof last === 'string' ? last : undefined;
}

interface Summary {
  type: string;
  lastSeen: string | null;
  /** `[count, day]` per day with warnings: PostHog's groupUniqArray((day_count, day)). */
  sparkline: [number, string][];
  warnings: { type: string; timestamp: string; details: unknown }[];
  count: number;
}

export const ingestionWarningRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/ingestion_warnings/`, { config: teamAccess('query:read', base) }, async (request) => {
      const since = new Date(Date.now() - WINDOW_DAYS * 86_400_000).toISOString();
      const q = searchParam(request.query);
      const scope = { teamId: request.team!.id, since, search: q };
      // Counts come from the database, so they cover every warning, not just the examples.
      const days = await warningDayCounts(ctx.database, scope);
      const examples = await warningExamples(ctx.database, scope, EXAMPLES_PER_TYPE);

      // Keys in PostHog's order: type, lastSeen, sparkline, warnings, count.
      const byType = new Map<string, Summary>();
      const summaryOf = (type: string) => {
        let summary = byType.get(type);
        if (!summary) byType.set(type, (summary = { type, lastSeen: null, sparkline: [], warnings: [], count: 0 }));
        return summary;
      };
      for (const row of days) {
        const summary = summaryOf(row.type);
        summary.sparkline.push([Number(row.n), row.day]);
        summary.count += Number(row.n);
      }
      for (const row of examples) {
        summaryOf(row.type).warnings.push({ type: row.type, timestamp: row.timestamp, details: fromJson(row.details) });
      }
      for (const summary of byType.values()) {
        // ClickHouse leaves the sparkline unordered; newest day first keeps answers stable.
        summary.sparkline.sort((a, b) => b[1].localeCompare(a[1]));
        summary.lastSeen = summary.warnings[0]?.timestamp ?? null;
      }
      return { results: [...byType.values()].sort((a, b) => (b.lastSeen ?? '').localeCompare(a.lastSeen ?? '')) };
    });
  }
};
