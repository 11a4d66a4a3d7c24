/**
 * Signing in and out, and passwords by token: PostHog's `/api/login/`, `/api/logout/` and
 * `/api/reset/` (PasswordResetViewSet, PasswordResetCompleteViewSet). Open to anyone; the guard
 * checks that an unsafe request from a browser comes from this server's origin.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { ApiRouteAccess } from './guard.js';
import { validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';
import { readEmail, readNewPassword } from './account-fields.js';
import { authenticateLogin } from './login-service.js';
import { PasswordRefused, setPasswordWithToken } from './password-service.js';
import { requestPasswordReset, type Mailer } from './reset-mail.js';
import { checkCsrf, currentSession, endSession, startSession } from './sessions.js';
import { passwordTokenIsValid } from './sessions-store.js';
import { getUserByUuid } from './users-store.js';

const PUBLIC = { access: { scope: null, public: true } satisfies ApiRouteAccess };

const invalidToken = () => validationError('This reset token is invalid or has expired.', 'token', 'invalid_token');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function userOfReset(ctx: AppContext, request: FastifyRequest) {
  const uuid = (request.params as { user_uuid: string }).user_uuid;
  const user = UUID.test(uuid) ? await getUserByUuid(ctx.database.db, uuid.toLowerCase()) : undefined;
  return user?.isActive ? user : undefined;
}

/** The base of links put in e-mails: SITE_URL, else the address this request reached. */
export const siteUrlOf = (ctx: AppContext, request: FastifyRequest) => ctx.config.siteUrl ?? `${request.protocol}://${request.host}`;

export const accountSessionRoutes: FastifyPluginAsync<{ ctx: AppContext; mailer: Mailer }> = async (app, { ctx, mailer }) => {
  const { database } = ctx;

  app.post('/login/', { config: PUBLIC }, async (request, reply) => {
    const user = await authenticateLogin(database, request.body, request.ip);
    // A login replaces the session the browser had, if any (Django's session key rotation).
    if (await currentSession(database, request, reply)) await endSession(database, request, reply);
    await startSession(database, request, reply, user);
    return { success: true };
  });

  app.post('/logout/', { config: PUBLIC }, async (request: FastifyRequest, reply: FastifyReply) => {
    const session = await currentSession(database, request, reply);
    // Django's logout is CSRF-protected: a session is ended only by a request of its own pages.
    if (session) checkCsrf(request, session.token);
    await endSession(database, request, reply);
    return { success: true };
  });

  app.post('/reset/', { config: PUBLIC }, async (request, reply) => {
    const email = readEmail(serializerData(request.body));
    await requestPasswordReset(ctx, mailer, email, siteUrlOf(ctx, request));
    return reply.code(204).send();
  });

  app.get('/reset/:user_uuid/', { config: PUBLIC }, async (request, reply) => {
    const token = (request.query as Record<string, unknown>).token;
    if (typeof token !== 'string' || !token) throw validationError(DRF_MESSAGES.required, 'token', 'required');
    const user = await userOfReset(ctx, request);
    if (!user || !(await passwordTokenIsValid(database.db, user.id, token, new Date()))) throw invalidToken();
    return reply.code(204).send();
  });

  app.post('/reset/:user_uuid/', { config: PUBLIC }, async (request, reply) => {
    const data = serializerData(request.body);
    if (typeof data.token !== 'string' || !data.token) throw validationError(DRF_MESSAGES.required, 'token', 'required');
    const user = await userOfReset(ctx, request);
    if (!user) throw invalidToken();
    const password = readNewPassword(data);
    let used: boolean;
    try {
      used = await setPasswordWithToken(database, user.id, data.token, password);
    } catch (error) {
      if (error instanceof PasswordRefused) throw validationError(error.message, 'password', 'invalid');
      throw error;
    }
    if (!used) throw invalidToken();
    // PostHog signs the user in once the password is set.
    await startSession(database, request, reply, user);
    return reply.code(204).send();
  });
};
