import type { FastifyPluginAsync } from 'fastify';
import { methodNotAllowed } from '../posthog/errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * For every /api path, answers the methods it does not support with PostHog's 405 envelope
 * (after authentication, as DRF does). Registered after all feature routes inside the /api
 * context, so it sees every path.
 */
export const methodNotAllowedRoutes: FastifyPluginAsync<{ apiPrefix: string }> = async (app, { apiPrefix: prefix }) => {
  const byUrl = new Map<string, Set<string>>();
  const keyManagement = new Set<string>();
  for (const route of app.routeTable) {
    if (!route.url.startsWith(prefix + '/') || route.config?.methodNotAllowed) continue;
    const methods = byUrl.get(route.url) ?? new Set<string>();
    methods.add(route.method);
    byUrl.set(route.url, methods);
    if (route.config?.access?.personalApiKeys) keyManagement.add(route.url);
  }
  for (const [url, methods] of byUrl) {
    const missing = METHODS.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    // DRF runs a view's own permission before it refuses a method: the key management view
    // refuses a key that may not manage keys (403) before the 405.
    const personalApiKeys = keyManagement.has(url) ? { personalApiKeys: 'manage' as const } : {};
    app.route({
      method: missing,
      url: url.slice(prefix.length),
      config: { methodNotAllowed: true, access: { scope: null, authenticateOnly: true, ...personalApiKeys } },
      handler: async (request) => {
        throw methodNotAllowed(request.method);
      },
    });
  }
};
