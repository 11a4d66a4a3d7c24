/**
 * The public flag endpoints: `/decide` (v1–v4), `/flags` (v1, v2), the remote config at
 * `/array/<token>/config[.js]`, and the local-evaluation feed `/flags/definitions`. Bodies are
 * decoded like capture's (JSON, gzip, base64, form `data=`, lz64). CORS comes from the server's
 * public CORS policy (server.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { flagDefinitionsCache } from '../flags/definitions-cache.js';
import { authorizeFeedRequest, invalidProjectApiKey, localEvaluationResponse } from '../flags/local-evaluation.js';
import { projectFlagsResponse, selectResponseProtocol, type FlagSetEvaluation } from '../flags/engine/index.js';
import { DECIDE_LIMITS, type QueryParams } from '../ingestion/core/decode-body.js';
import { acceptRawBodies, decodeRequestBody, firstHeader } from '../http/public-responses.js';
import { uuidv7 } from '../lib/uuid.js';
import type { Team } from '../tenancy/models.js';
import { evaluateFlagsRequest } from './evaluate-request.js';
import { requestRuntime } from './evaluation-runtime.js';
import { readFlagsRequest } from './flag-request.js';
import { buildRemoteConfig, decideConfigFields, remoteConfigScript } from './remote-config.js';

type Json = Record<string, unknown>;


function firstQuery(query: QueryParams, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The legacy map carries payloads as JSON text, which is what posthog-js parses. */
function payloadsAsText(body: Json): Json {
  const payloads = body.featureFlagPayloads as Json | undefined;
  if (!payloads) return body;
  for (const [key, value] of Object.entries(payloads)) if (typeof value !== 'string') payloads[key] = JSON.stringify(value);
  return body;
}

/**
 * The config fields as JSON text, per cached environment object (a settings change replaces the
 * object in the team cache) and per answer of hasActiveFlags: they are the same on every request.
 */
const configJson = new WeakMap<Team, [string | undefined, string | undefined]>();

function configFieldsJson(team: Team, hasFlags: boolean): string {
  let texts = configJson.get(team);
  if (!texts) configJson.set(team, (texts = [undefined, undefined]));
  const slot = hasFlags ? 1 : 0;
  return (texts[slot] ??= JSON.stringify(decideConfigFields(team, hasFlags)));
}

/** JSON of `{...a, ...b}` for two objects with no key in common, from their JSON texts. */
function mergedJson(a: string, b: string): string {
  if (a === '{}') return b;
  if (b === '{}') return a;
  return `${a.slice(0, -1)},${b.slice(1)}`;
}

async function hasActiveFlags(ctx: AppContext, team: Team): Promise<boolean> {
  try {
    return (await flagDefinitionsCache(ctx).get(team.projectId)).flags.some((f) => f.active);
  } catch {
    return true; // let the SDK ask /flags; it will learn about the failure there
  }
}

export const decideRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Raw bytes whatever the declared type: posthog-js sends gzip with no hint.
  acceptRawBodies(app);

  async function handle(endpoint: 'decide' | 'flags', request: FastifyRequest, reply: FastifyReply) {
    const query = (request.query ?? {}) as QueryParams;
    const decoded = decodeRequestBody(request, DECIDE_LIMITS);
    if (!decoded.ok) return reply.code(decoded.status).send({ ...decoded.error, attr: null });
    const flagsRequest = readFlagsRequest(decoded.value);
    if (!flagsRequest) {
      return reply.code(400).send({
        type: 'validation_error',
        code: 'malformed_data',
        detail: 'Malformed request data: expected a JSON object.',
        attr: null,
      });
    }
    const team = flagsRequest.token ? await ctx.teams.byApiToken(flagsRequest.token) : undefined;
    if (!team) return reply.code(401).send(invalidProjectApiKey().toEnvelope());
    if (flagsRequest.distinctId === null) {
      return reply.code(400).send({
        type: 'validation_error',
        code: 'missing_distinct_id',
        detail: 'Decide requires a distinct_id.',
        attr: null,
      });
    }

    const evaluation: FlagSetEvaluation = await evaluateFlagsRequest(ctx, team, { request: flagsRequest, ip: request.ip, runtime: requestRuntime(flagsRequest.evaluationRuntime, request.headers) }, request.log);
    const version = firstQuery(query, 'v');
    const protocol = selectResponseProtocol(endpoint, version);
    const detailed = protocol === 'flags_v2';
    const extras = endpoint === 'flags' && detailed ? { requestId: uuidv7(), evaluatedAt: Date.now() } : {};
    const body = projectFlagsResponse(evaluation, protocol, extras) as unknown as Json;
    const withConfig =
      endpoint === 'decide' || firstQuery(query, 'config') === 'true' || (version === undefined && firstQuery(query, 'config') === undefined);
    // Written as text so the unchanging config part is not serialised again on every request.
    const config = withConfig ? configFieldsJson(team, await hasActiveFlags(ctx, team)) : '{}';
    return reply.type('application/json; charset=utf-8').send(mergedJson(config, JSON.stringify(payloadsAsText(body))));
  }

  app.route({ method: ['GET', 'POST'], url: '/decide', bodyLimit: DECIDE_LIMITS.maxBodyBytes, handler: (req, reply) => handle('decide', req, reply) });
  app.route({ method: ['GET', 'POST'], url: '/flags', bodyLimit: DECIDE_LIMITS.maxBodyBytes, handler: (req, reply) => handle('flags', req, reply) });

  app.get('/flags/definitions', async (request, reply) => {
    const team = await authorizeFeedRequest(ctx, request);
    return localEvaluationResponse(ctx, team, request, reply);
  });

  async function teamOf(request: FastifyRequest): Promise<Team> {
    const team = await ctx.teams.byApiToken((request.params as { token: string }).token);
    if (!team) throw invalidProjectApiKey();
    return team;
  }

  app.get('/array/:token/config', async (request) => {
    const team = await teamOf(request);
    return buildRemoteConfig(team, await hasActiveFlags(ctx, team));
  });

  app.get('/array/:token/config.js', async (request, reply) => {
    const team = await teamOf(request);
    return reply.type('application/javascript; charset=utf-8').send(remoteConfigScript(team, await hasActiveFlags(ctx, team)));
  });
};
