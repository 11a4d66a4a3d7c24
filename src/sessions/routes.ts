import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { topSessionValues } from './store.js';
import { ApiError } from '../posthog/errors.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import {
  listSessionPropertyDefinitions,
  SESSION_VALUE_KEYS,
  SESSION_VALUES_LIMIT,
  SESSION_VALUES_SAMPLE,
  sessionPropertyValues,
} from '../recordings/core/index.js';
import { readCustomChannelRules } from '../posthog/channel-type.js';

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
      // Counted in ClickHouse over the latest sessions PostHog samples; the core formats them.
      const search = typeof q.value === 'string' ? q.value : '';
      const topValues = SESSION_VALUE_KEYS.has(key)
        ? await topSessionValues(ctx.analytics, team.id, { key, search, sample: SESSION_VALUES_SAMPLE, limit: SESSION_VALUES_LIMIT })
        : [];
      const result = sessionPropertyValues({
        key,
        value: q.value,
        topValues,
        customChannelTypes: readCustomChannelRules(team.settings.modifiers)
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
