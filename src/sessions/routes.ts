import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Database } from '../platform/db/database.js';
import { forEachSessionEventPage } from './store.js';
import { fromJson } from '../platform/db/values.js';
import { ApiError } from '../posthog/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import {
  listSessionPropertyDefinitions,
  SessionAccumulator,
  sessionPropertyValues,
  type CustomChannelRule,
  type SessionProperties,
} from '../recordings/core/index.js';
import type { Team } from '../environments/models.js';

/** Events read per query while computing sessions. */
const PAGE_SIZE = 5_000;
/**
 * At most this many of the newest session events are read for `values/`: PostHog samples the latest
 * 100 000 sessions; a bound on events keeps the answer fast on a single process.
 */
export const SESSION_EVENTS_SCAN_LIMIT = 200_000;

function customChannelRules(team: Team): CustomChannelRule[] {
  const modifiers = team.settings.modifiers as { customChannelTypeRules?: unknown } | null | undefined;
  const rules = modifiers?.customChannelTypeRules;
  return Array.isArray(rules) ? (rules as CustomChannelRule[]) : [];
}

/**
 * The environment's sessions, computed from its events grouped by `$session_id` (newest events
 * first, paged by timestamp), newest sessions first.
 */
async function latestSessions(database: Database, team: Team): Promise<SessionProperties[]> {
  const sessions = new Map<string, SessionAccumulator>();
  await forEachSessionEventPage(database, team.id, { pageSize: PAGE_SIZE, maxRows: SESSION_EVENTS_SCAN_LIMIT }, (rows) => {
    for (const row of rows) {
      let acc = sessions.get(row.session_id);
      if (!acc) sessions.set(row.session_id, (acc = new SessionAccumulator(row.session_id)));
      acc.add({ event: row.event, timestamp: row.timestamp, uuid: row.uuid, properties: fromJson(row.properties) ?? {} });
    }
  });
  const rules = customChannelRules(team);
  const out: SessionProperties[] = [];
  for (const acc of sessions.values()) {
    const result = acc.result(rules);
    if (result) out.push(result);
  }
  return out.sort((a, b) => (a.$start_timestamp < b.$start_timestamp ? 1 : a.$start_timestamp > b.$start_timestamp ? -1 : 0));
}

/** Keys whose values come straight from the definitions, without reading any session. */
const NO_SESSIONS_NEEDED = new Set(['', '$channel_type', '$is_bounce']);

/**
 * `sessions/property_definitions/` and `sessions/values/` (PostHog's SessionViewSet). Personal
 * keys with `query:read` may call them (docs/decisions/0007-personal-keys-on-unscoped-actions.md).
 */
export const sessionRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  for (const base of TEAM_ROUTE_BASES) {
    const access = teamAccess('query:read', base);

    app.get(`${base.base}/sessions/property_definitions/`, { config: access }, async (request) => {
      const q = (request.query ?? {}) as Record<string, unknown>;
      return listSessionPropertyDefinitions({ search: q.search, is_numerical: q.is_numerical });
    });

    app.get(`${base.base}/sessions/values/`, { config: access }, async (request) => {
      const q = (request.query ?? {}) as Record<string, unknown>;
      const team = request.team!;
      const key = typeof q.key === 'string' ? q.key : '';
      const result = sessionPropertyValues({
        key,
        value: q.value,
        sessions: NO_SESSIONS_NEEDED.has(key) ? [] : await latestSessions(ctx.database, team),
        customChannelTypes: customChannelRules(team)
          .map((r) => r.channel_type)
          .filter((t) => typeof t === 'string'),
      });
      if (!result.ok) {
        const { type, code, detail, attr } = result.body;
        throw new ApiError(result.status, type, code, detail, attr);
      }
      return result.body;
    });
  }
};
