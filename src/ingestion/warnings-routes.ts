import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { fromJson } from '../db/values.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';

/** How far back the summary looks, as PostHog's ingestion warnings page does. */
const WINDOW_DAYS = 30;

export const ingestionWarningRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    app.get(`${base.base}/ingestion_warnings/`, { config: teamAccess('query:read', base) }, async (request) => {
      const since = new Date(Date.now() - WINDOW_DAYS * 86_400_000).toISOString();
      const rows = await ctx.database.db
        .selectFrom('ingestion_warnings')
        .select(['type', 'details', 'timestamp'])
        .where('team_id', '=', request.team!.id)
        .where('timestamp', '>=', since)
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(10_000)
        .execute();
      // PostHog's shape: one summary per warning type, newest warnings first.
      const byType = new Map<string, { type: string; lastSeen: string; warnings: unknown[]; count: number }>();
      for (const row of rows) {
        const summary = byType.get(row.type) ?? { type: row.type, lastSeen: row.timestamp, warnings: [], count: 0 };
        summary.count += 1;
        if (summary.warnings.length < 50) summary.warnings.push({ type: row.type, timestamp: row.timestamp, details: fromJson(row.details) });
        byType.set(row.type, summary);
      }
      return { results: [...byType.values()].sort((a, b) => b.lastSeen.localeCompare(a.lastSeen)) };
    });
  }
};
