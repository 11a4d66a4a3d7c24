import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { loadOr404, notFound } from '../posthog/errors.js';
import { paginate, readPage } from '../http/pagination.js';
import { TEAM_ROUTE_BASES, teamAccess } from '../http/team-routes.js';
import { pathId } from '../http/path-id.js';
import { PageLookups } from '../insights/service.js';
import { listDeliveries } from './deliveries-store.js';
import { SMTP_NOT_CONFIGURED } from './delivery/email.js';
import { sendTestDelivery } from './manual-delivery.js';
import { serializeDelivery, serializeSubscription } from './serializers.js';
import { createSubscription, editSubscription } from './service.js';
import { getSubscription, listSubscriptions, type Subscription, type SubscriptionListFilter } from './store.js';
import { strToBool } from '../posthog/python-values.js';

/**
 * The warning an e-mail subscription saved on a server without SMTP carries, as an HTTP Warning
 * header (RFC 7234's code 299, "miscellaneous persistent warning", as Kubernetes sends its own):
 * PostHog's serializer has no field for it, and a header leaves the body as PostHog's clients know it.
 */
export const NO_SMTP_WARNING = `299 - "${SMTP_NOT_CONFIGURED}: the e-mails of this subscription will fail until it is"`;

/** An integer query filter; anything else matches nothing, as a failed pk lookup would. */
function idFilter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : -1;
}

export const subscriptionRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { db } = ctx.database;

  const load = (request: FastifyRequest): Promise<Subscription> => loadOr404(getSubscription(db, request.team!.id, pathId(request)));

  async function respond(subscription: Subscription, users = new PageLookups(db)) {
    return serializeSubscription(subscription, await users.get(subscription.createdById));
  }

  /** A create or update answer, with the no-SMTP warning when it applies. */
  async function saved(reply: FastifyReply, subscription: Subscription) {
    if (subscription.targetType === 'email' && !subscription.deleted && !ctx.config.smtpUrl) reply.header('warning', NO_SMTP_WARNING);
    return respond(subscription);
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
      return saved(reply, subscription);
    });

    app.get(`${url}/:id/`, read, async (request) => respond(await load(request)));

    app.patch(`${url}/:id/`, write, async (request, reply) =>
      saved(reply, await editSubscription(ctx, request.team!, request.principal!.user, await load(request), request.body)),
    );

    // ModelViewSet's update: a full update, every required field in the body.
    app.put(`${url}/:id/`, write, async (request, reply) =>
      saved(
        reply,
        await editSubscription(ctx, request.team!, request.principal!.user, await load(request), request.body, { partial: false }),
      ),
    );

    // Hoglet's own: the subscription's deliveries, newest first, each with its attempts.
    app.get(`${url}/:id/deliveries/`, read, async (request) => {
      const subscription = await load(request);
      const page = readPage(request.query);
      const { count, deliveries } = await listDeliveries(db, { subscriptionId: subscription.id }, page);
      return paginate(request, page, count, deliveries.map(serializeDelivery));
    });

    // PostHog routes its `test_delivery` action at `test-delivery/` (202, no body); both paths answer
    // 202 with the delivery, sent by then.
    for (const action of ['test-delivery', 'test_delivery']) {
      app.post(`${url}/:id/${action}/`, write, async (request, reply) => {
        const subscription = await load(request);
        if (subscription.deleted) throw notFound();
        const delivery = await sendTestDelivery(ctx, subscription);
        reply.code(202);
        return serializeDelivery(delivery);
      });
    }

    // ForbidDestroyModel: 405 with an empty body, after the scope check. Soft delete is PATCH `deleted: true`.
    app.delete(`${url}/:id/`, write, async (_request, reply) => reply.code(405).send());
  }
};
