import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RegisteredRoute {
  method: string;
  url: string;
  config: RouteOptions['config'];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the server answers, as registered (HEAD twins of GET routes left out). */
    routeTable: RegisteredRoute[];
  }
  interface FastifyContextConfig {
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
