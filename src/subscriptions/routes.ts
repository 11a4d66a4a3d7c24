import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notFound } from '../http/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { pathId } from '../insights/routes.js';
import { PageLookups } from '../insights/service.js';
import { serializeSubscription } from './serializers.js';
import { createSubscription, editSubscription } from './service.js';
import { getSubscription, listSubscriptions, type Subscription, type SubscriptionListFilter } from './store.js';

/** Django's str_to_bool, as PostHog reads the `deleted` query parameter. */
function strToBool(value: string): boolean {
  return ['y', 'yes', 't', 'true', 'on', '1'].includes(value.toLowerCase());
}

/** An integer query filter; anything else matches nothing, as a failed pk lookup would. */
function idFilter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : -1;
}

export const subscriptionRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  async function load(request: FastifyRequest): Promise<Subscription> {
    const subscription = await getSubscription(db, request.team!.id, pathId(request));
    if (!subscription) throw notFound();
    return subscription;
  }

  async function respond(subscription: Subscription, users = new PageLookups(db)) {
    return serializeSubscription(subscription, await users.get(subscription.createdById));
  }

  for (const base of TEAM_ROUTE_BASES) {
    const url = `${base.base}/subscriptions`;
    const read = { config: teamAccess('subscription:read', base) };
    const write = { config: teamAccess('subscription:write', base) };

    app.get(`${url}/`, read, async (request) => {
      const page = readPage(request.query);
      const query = request.query as Record<string, string | undefined>;
      const filter: SubscriptionListFilter = {
        deleted: query.deleted === undefined ? undefined : strToBool(query.deleted),
        insightId: idFilter(query.insight),
        dashboardId: idFilter(query.dashboard),
      };
      const { count, subscriptions } = await listSubscriptions(db, request.team!.id, filter, page);
      const users = new PageLookups(db);
      return paginate(request, page, count, await Promise.all(subscriptions.map((s) => respond(s, users))));
    });

    app.post(`${url}/`, write, async (request, reply) => {
      const subscription = await createSubscription(ctx, request.team!, request.principal!.user, request.body);
      reply.code(201);
      return respond(subscription);
    });

    app.get(`${url}/:id/`, read, async (request) => respond(await load(request)));

    app.patch(`${url}/:id/`, write, async (request) =>
      respond(await editSubscription(ctx, request.team!, request.principal!.user, await load(request), request.body)),
    );

    // ModelViewSet's update: a full update, every required field in the body.
    app.put(`${url}/:id/`, write, async (request) =>
      respond(await editSubscription(ctx, request.team!, request.principal!.user, await load(request), request.body, { partial: false })),
    );

    // ForbidDestroyModel: 405 with an empty body, after the scope check. Soft delete is PATCH `deleted: true`.
    app.delete(`${url}/:id/`, write, async (_request, reply) => reply.code(405).send());
  }
};
