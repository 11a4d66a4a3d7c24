import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { fromJson } from '../db/values.js';
import { ApiError } from '../http/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import {
  listSessionPropertyDefinitions,
  SessionAccumulator,
  sessionPropertyValues,
  type CustomChannelRule,
  type SessionProperties,
} from '../recordings/core/index.js';
import type { Team } from '../tenancy/models.js';

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
  let before: { timestamp: string; uuid: string } | undefined;
  for (let read = 0; read < SESSION_EVENTS_SCAN_LIMIT; ) {
    let query = database.db
      .selectFrom('events')
      .select(['uuid', 'event', 'timestamp', 'session_id', 'properties'])
      .where('team_id', '=', team.id)
      .where('session_id', 'is not', null);
    if (before) {
      const { timestamp, uuid } = before;
      query = query.where((eb) => eb.or([eb('timestamp', '<', timestamp), eb.and([eb('timestamp', '=', timestamp), eb('uuid', '<', uuid)])]));
    }
    const rows = await query.orderBy('timestamp', 'desc').orderBy('uuid', 'desc').limit(PAGE_SIZE).execute();
    for (const row of rows) {
      const id = row.session_id!;
      let acc = sessions.get(id);
      if (!acc) sessions.set(id, (acc = new SessionAccumulator(id)));
      acc.add({ event: row.event, timestamp: row.timestamp, uuid: row.uuid, properties: fromJson(row.properties) ?? {} });
    }
    read += rows.length;
    if (rows.length < PAGE_SIZE) break;
    const last = rows[rows.length - 1]!;
    before = { timestamp: last.timestamp, uuid: last.uuid };
  }
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
 * keys with `query:read` may call them (spec README decision 6).
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
        customChannelTypes: customChannelRules(team).map((r) => r.channel_type).filter((t) => typeof t === 'string'),
      });
      if (!result.ok) {
        const { type, code, detail, attr } = result.body;
        throw new ApiError(result.status, type, code, detail, attr);
      }
      return result.body;
    });
  }
};
