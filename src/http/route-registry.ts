import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RegisteredRoute {
  method: string;
  url: string;
  config: RouteOptions['config'];
}

/** What an /api route declares about who may call it. Every /api route must declare one. */
export interface ApiRouteAccess {
  /**
   * The personal API key scope the route needs. `null`: the action takes no personal API key
   * (PostHog's "This action does not support personal API key access"). Several: each is needed,
   * as PostHog's `required_scopes` list (the first one missing is named).
   */
  scope: string | readonly string[] | null;
  /** Where the route's environment comes from; absent for routes that are not about one. */
  team?: { from: 'project' | 'environment'; param: string };
  /** Only authenticate: the route answers 405 (DRF authenticates before it refuses a method). */
  authenticateOnly?: boolean;
  /**
   * The route also takes a project secret API key (`phs_…`, PostHog's TeamSecretTokenAuthentication):
   * the local-evaluation feed and the remote-config payload only. A known key sets
   * `request.secretKeyTeam` and nothing else is checked here; the handler must refuse any other
   * environment than the key's. An unknown key is judged as a personal API key (and refused).
   */
  projectSecretKey?: boolean;
  /**
   * The personal API key management routes (PostHog's PersonalAPIKeyViewSet, which checks no
   * scope). `manage`: only a key that may manage its user's keys (keys-service `mayManageKeys`),
   * others get PersonalApiKeySelfAccessPermission's 403. `retrieve`: any key; the handler lets one
   * read only itself (docs/decisions/0001-personal-key-management.md). `scope` is null on these.
   */
  personalApiKeys?: 'retrieve' | 'manage';
  /**
   * Anyone may call the route, signed in or not (login, logout, password reset, sign-up by invite):
   * the guard checks only that an unsafe request from a browser comes from this server's origin.
   * `scope` is null on these; the handler reads the session itself where it matters.
   */
  public?: boolean;
  /**
   * Where the route's organization comes from (`@current`: the user's current one): the guard
   * applies the key's organization limit, the scope, then membership, and sets `request.organization`.
   */
  organization?: { param: string };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the server answers, as registered (HEAD twins of GET routes left out). */
    routeTable: RegisteredRoute[];
  }
  interface FastifyContextConfig {
    /** Who may call the route: every /api route must declare it (installRouteRegistry). */
    access?: ApiRouteAccess;
    /** Marks the synthetic routes that answer 405 for a method a path does not support. */
    methodNotAllowed?: boolean;
  }
}

/**
 * Records each route as it is registered, and refuses an /api route that does not say who may
 * call it: no route can forget its scope check.
 */
export function installRouteRegistry(app: FastifyInstance): void {
  const table: RegisteredRoute[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      if (route.url.startsWith('/api/') && !route.config?.access) {
        throw new Error(`route ${method} ${route.url} must declare config.access (its scope)`);
      }
      table.push({ method, url: route.url, config: route.config });
    }
  });
}
