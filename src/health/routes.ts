import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { isDatabaseUnavailable } from '../platform/db/availability.js';
import { pingDatabase } from '../platform/db/database.js';

/** Liveness and readiness, for load balancers and orchestrators; no credentials. */
export const healthRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/_health', async () => ({ status: 'ok' }));

  app.get('/_readiness', async (request, reply) => {
    try {
      await pingDatabase(ctx.database);
      return { status: 'ok', database: 'ok' };
    } catch (error) {
      // An outage is logged once (DatabaseAvailability), not per probe.
      if (!isDatabaseUnavailable(error)) request.log.warn({ err: error }, 'readiness check: database unreachable');
      return reply.code(503).send({ status: 'error', database: 'unreachable' });
    }
  });
};
