import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { pingDatabase } from '../db/database.js';

/** Liveness and readiness, for load balancers and orchestrators; no credentials. */
export const healthRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/_health', async () => ({ status: 'ok' }));

  app.get('/_readiness', async (request, reply) => {
    try {
      await pingDatabase(ctx.database);
      return { status: 'ok', database: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check: database unreachable');
      return reply.code(503).send({ status: 'error', database: 'unreachable' });
    }
  });
};
