/** `/api/users/@me/`: the signed-in user (or the key's user), read and changed. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { getMemberships } from '../environments/tenancy-store.js';
import { serializeMe, updateMe } from './me-service.js';

export const meRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/users/@me/', { config: { access: { scope: 'user:read' } } }, async (request) => serializeMe(ctx, request.principal!));

  app.patch('/users/@me/', { config: { access: { scope: 'user:write' } } }, async (request) => {
    const principal = request.principal!;
    const user = await updateMe(ctx, principal, request.body);
    return serializeMe(ctx, { ...principal, user, memberships: await getMemberships(ctx.database.db, user.id) }, user);
  });
};
