/**
 * `/api/organizations/:organization_id/members/` and `…/invites/` (PostHog's viewsets;
 * `@current` names the user's current organization), and `/api/signup/<invite id>/`, where an
 * invite is accepted. Scopes for personal keys: organization_member:read / :write.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { ApiRouteAccess } from './guard.js';
import { paginate, readPage } from '../http/pagination.js';
import { notFound } from '../posthog/errors.js';
import { serializeUserBasic } from '../environments/serializers.js';
import { getOrganization, getUser } from '../environments/tenancy-store.js';
import {
  acceptInvite,
  createInvite,
  createInvites,
  memberOf,
  removeMember,
  serializeInvite,
  serializeMember,
  updateMember,
  validInvite,
} from './members-service.js';
import { deleteInvite, listInvites, listMembers } from './members-store.js';
import type { Mailer } from './reset-mail.js';
import { siteUrlOf } from './session-routes.js';
import { checkCsrf, currentSession, startSession } from './sessions.js';

const org = { param: 'organization_id' };
const READ = { access: { scope: 'organization_member:read', organization: org } satisfies ApiRouteAccess };
const WRITE = { access: { scope: 'organization_member:write', organization: org } satisfies ApiRouteAccess };
const PUBLIC = { access: { scope: null, public: true } satisfies ApiRouteAccess };

const BASE = '/organizations/:organization_id';

export const organizationMemberRoutes: FastifyPluginAsync<{ ctx: AppContext; mailer: Mailer }> = async (app, { ctx, mailer }) => {
  const { db } = ctx.database;
  const requesterOf = async (request: FastifyRequest) => {
    const { organization } = request.organization!;
    return memberOf(ctx, organization, request.principal!.user, '@me');
  };
  const targetOf = (request: FastifyRequest) =>
    memberOf(ctx, request.organization!.organization, request.principal!.user, (request.params as { user_uuid: string }).user_uuid);

  app.get(`${BASE}/members/`, { config: READ }, async (request) => {
    const page = readPage(request.query);
    const email = (request.query as Record<string, unknown>).email;
    const { count, members } = await listMembers(
      db,
      request.organization!.organization.id,
      page,
      typeof email === 'string' ? email : undefined,
    );
    return paginate(request, page, count, members.map(serializeMember));
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: `${BASE}/members/:user_uuid/`,
      config: WRITE,
      handler: async (request) => {
        const target = await targetOf(request);
        const updated = await updateMember(ctx, request.organization!.organization, await requesterOf(request), target, request.body);
        return serializeMember(updated);
      },
    });
  }

  app.delete(`${BASE}/members/:user_uuid/`, { config: WRITE }, async (request, reply) => {
    const target = await targetOf(request);
    await removeMember(ctx, request.organization!.organization, await requesterOf(request), target);
    return reply.code(204).send();
  });

  app.get(`${BASE}/invites/`, { config: READ }, async (request) => {
    const page = readPage(request.query);
    const { count, invites } = await listInvites(db, request.organization!.organization.id, page);
    const now = new Date();
    return paginate(
      request,
      page,
      count,
      invites.map(({ invite, createdBy }) => serializeInvite(invite, createdBy, now)),
    );
  });

  app.post(`${BASE}/invites/`, { config: WRITE }, async (request, reply) => {
    const { organization, level } = request.organization!;
    const user = request.principal!.user;
    const invite = await createInvite(ctx, mailer, organization, { user, level }, request.body, siteUrlOf(ctx, request));
    reply.code(201);
    return serializeInvite(invite, user);
  });

  app.post(`${BASE}/invites/bulk/`, { config: WRITE }, async (request, reply) => {
    const { organization, level } = request.organization!;
    const user = request.principal!.user;
    const invites = await createInvites(ctx, mailer, organization, { user, level }, request.body, siteUrlOf(ctx, request));
    reply.code(201);
    return invites.map((invite) => serializeInvite(invite, user));
  });

  app.delete(`${BASE}/invites/:invite_id/`, { config: WRITE }, async (request, reply) => {
    const id = (request.params as { invite_id: string }).invite_id;
    if (!(await deleteInvite(db, request.organization!.organization.id, id.toLowerCase()))) throw notFound();
    return reply.code(204).send();
  });

  // Sign-up by invite: anyone holding the link. A signed-in browser joins with its own account.
  app.get('/signup/:invite_id/', { config: PUBLIC }, async (request, reply) => {
    const session = await currentSession(ctx.database, request, reply);
    const invite = await validInvite(ctx, (request.params as { invite_id: string }).invite_id, session?.user);
    const organization = await getOrganization(db, invite.organizationId);
    return { id: invite.id, target_email: invite.targetEmail, first_name: invite.firstName, organization_name: organization?.name ?? '' };
  });

  app.post('/signup/:invite_id/', { config: PUBLIC }, async (request, reply) => {
    const session = await currentSession(ctx.database, request, reply);
    if (session) checkCsrf(request, session.token);
    const user = await acceptInvite(ctx, (request.params as { invite_id: string }).invite_id, session?.user, request.body);
    if (!session) await startSession(ctx.database, request, reply, user);
    const fresh = (await getUser(db, user.id)) ?? user;
    reply.code(201);
    // The new user as UserBasicSerializer prints it, then where to go next.
    return { ...serializeUserBasic(fresh), redirect_url: '/' };
  });
};
