/**
 * `/api/personal_api_keys/`: PostHog's PersonalAPIKeyViewSet (list as a plain array, create,
 * retrieve with `@current`, PATCH/PUT, DELETE, `roll/`). Who may call which is declared per route
 * (`personalApiKeys` in the guard's ApiRouteAccess); the service does the rest.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ApiRouteAccess } from './guard.js';
import type { AppContext } from '../context.js';
import {
  createPersonalApiKey,
  deleteCallersKey,
  listPersonalApiKeys,
  retrievePersonalApiKey,
  rollPersonalApiKey,
  updatePersonalApiKey,
  type KeyCaller,
} from './keys-service.js';
import { serializePersonalApiKey } from './keys-serializer.js';

const MANAGE = { access: { scope: null, personalApiKeys: 'manage' } satisfies ApiRouteAccess };
const RETRIEVE = { access: { scope: null, personalApiKeys: 'retrieve' } satisfies ApiRouteAccess };

const callerOf = (request: FastifyRequest): KeyCaller => ({ userId: request.principal!.user.id, key: request.principal!.key });
const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

export const personalApiKeyRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const { database } = ctx;

  app.get('/personal_api_keys/', { config: MANAGE }, async (request) =>
    (await listPersonalApiKeys(database, callerOf(request).userId)).map((key) => serializePersonalApiKey(key)),
  );

  app.post('/personal_api_keys/', { config: MANAGE }, async (request, reply) => {
    const { key, rawValue } = await createPersonalApiKey(database, callerOf(request).userId, request.body);
    reply.code(201);
    return serializePersonalApiKey(key, rawValue);
  });

  app.get('/personal_api_keys/:id/', { config: RETRIEVE }, async (request) =>
    serializePersonalApiKey(await retrievePersonalApiKey(database, callerOf(request), idOf(request))),
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/personal_api_keys/:id/',
      config: MANAGE,
      handler: async (request) =>
        serializePersonalApiKey(await updatePersonalApiKey(database, callerOf(request), idOf(request), request.body, method === 'PATCH')),
    });
  }

  app.delete('/personal_api_keys/:id/', { config: MANAGE }, async (request, reply) => {
    await deleteCallersKey(database, callerOf(request), idOf(request));
    return reply.code(204).send();
  });

  app.post('/personal_api_keys/:id/roll/', { config: MANAGE }, async (request) => {
    const { key, rawValue } = await rollPersonalApiKey(database, callerOf(request), idOf(request));
    return serializePersonalApiKey(key, rawValue);
  });
};
