/**
 * `/decide` (v1–v4) and `/flags` (v1, v2) as a transport-independent handler: decode the request
 * document (like capture's: JSON, gzip, base64, form `data=`, lz64), evaluate the flags, answer
 * in the protocol the endpoint and version ask for. The fast lane (src/sdk/router.ts) serves
 * it; CORS comes from the public CORS policy (src/http/cors.ts).
 */
import type { AppContext } from '../../context.js';
import { flagDefinitionsCache } from '../../flags/definitions-cache.js';
import { invalidProjectApiKey } from '../../flags/local-evaluation.js';
import {
  projectFlagsResponse,
  type FlagSetEvaluation,
  type FlagsResponseProtocol,
  type ProjectionExtras,
} from '../../flags/engine/index.js';
import { flagsResponseJson } from '../../flags/engine/response-json.js';
import type { PublicRequest, PublicResponse, PublicRoute } from '../public-endpoint.js';
import { decodePublicBody } from '../public-responses.js';
import { DECIDE_LIMITS } from '../decode-body.js';
import type { Team } from '../../environments/models.js';
import { evaluateFlagsRequest } from './evaluate-request.js';
import { requestRuntime } from './evaluation-runtime.js';
import { readFlagsRequest } from './flag-request.js';
import { geoipAddress } from './geoip-address.js';
import { minimalAnswerVersion, readFlagsQuery } from './query-params.js';
import { decideConfigFields, SUPPORTED_COMPRESSION } from './remote-config.js';
import { flagsRequestId } from './request-id.js';
import { errorEnvelope } from '../../posthog/errors.js';
import { remoteConfigSurveys } from '../../surveys/public-cache.js';

export type FlagsEndpoint = 'decide' | 'flags';

const MALFORMED_DATA = errorEnvelope('validation_error', 'malformed_data', 'Malformed request data: expected a JSON object.');

const MISSING_DISTINCT_ID = errorEnvelope('validation_error', 'missing_distinct_id', 'Decide requires a distinct_id.');

export async function answerFlagsRequest(ctx: AppContext, endpoint: FlagsEndpoint, request: PublicRequest): Promise<PublicResponse> {
  // PostHog answers GET (and HEAD, whose body the transport leaves out) before reading anything
  // but the query: no token, no evaluation (api/endpoint.rs).
  if (request.method === 'GET') return { status: 200, body: minimalAnswer(request) };
  const decoded = decodePublicBody(request, DECIDE_LIMITS);
  if (!decoded.ok) return { status: decoded.status, body: { ...decoded.error, attr: null } };
  const flagsRequest = readFlagsRequest(decoded.value);
  if (!flagsRequest) return { status: 400, body: MALFORMED_DATA };
  const token = flagsRequest.token;
  // A cached environment is taken without awaiting (see TeamCache.cachedByApiToken).
  const team = token ? (ctx.teams.cachedByApiToken(token) ?? (await ctx.teams.byApiToken(token))) : undefined;
  if (!team) return { status: 401, body: invalidProjectApiKey().toEnvelope() };
  // With flags disabled nothing is evaluated, so nobody need be named (handler/authentication.rs):
  // SDKs send disable_flags to load only the config.
  if (flagsRequest.distinctId === null && !flagsRequest.disableFlags) return { status: 400, body: MISSING_DISTINCT_ID };

  const query = readFlagsQuery(endpoint, request.query);
  const runtime = requestRuntime(flagsRequest.evaluationRuntime, request.headers);
  const ip = geoipAddress(request.headers['x-forwarded-for'], request.ip);
  const input = { request: flagsRequest, ip, runtime, onlySurveyFlags: query.onlySurveyFlags };
  // The public endpoints log through the root logger: they log nothing per request.
  const evaluation = await evaluateFlagsRequest(ctx, team, input, ctx.log);
  // Every version of PostHog's answer carries both (api/types.rs: the decide v1/v2, legacy and
  // detailed responses); SDKs put the id on `$feature_flag_called` events.
  const extras = { requestId: flagsRequestId(request.headers['x-request-id']), evaluatedAt: Date.now() };
  const head = query.withConfig ? (cachedConfigHead(ctx, team) ?? (await configHeadWithSurveys(ctx, team))) : '{';
  return { status: 200, body: flagsResponseText(query.protocol, evaluation, extras, head) };
}

/**
 * PostHog's get_minimal_flags_response: no flags, a fixed config, the detailed body for v >= 2
 * and the legacy one otherwise (on /decide too). supportedCompression is Hoglet's list
 * (docs/decisions/0005-decide-supported-compression.md), as in every other decide answer.
 */
function minimalAnswer(request: PublicRequest): object {
  const flags = minimalAnswerVersion(request.query) >= 2 ? { flags: {} } : { featureFlags: {}, featureFlagPayloads: {} };
  return {
    errorsWhileComputingFlags: false,
    ...flags,
    requestId: flagsRequestId(request.headers['x-request-id']),
    evaluatedAt: Date.now(),
    supportedCompression: SUPPORTED_COMPRESSION,
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
    sessionRecording: false,
  };
}

/**
 * The answer's JSON text for an evaluation, in the endpoint's protocol, after `head` (`{`, or the
 * environment's config members when the SDK asks for them: see objectHead).
 */
function flagsResponseText(protocol: FlagsResponseProtocol, evaluation: FlagSetEvaluation, extras: ProjectionExtras, head: string): string {
  // The legacy and detailed bodies (what SDKs ask for on every page load) are written directly,
  // after the config members; the other versions are small and go through the projection.
  // decide v1/v2 bodies always hold `featureFlags`, so their text never is the empty `{}`.
  return (
    flagsResponseJson(evaluation, protocol, extras, head) ??
    head + JSON.stringify(projectFlagsResponse(evaluation, protocol, extras)).slice(1)
  );
}

/** `/decide` and `/flags` as fast-lane routes. */
export function flagsRoutes(ctx: AppContext): PublicRoute[] {
  return (['decide', 'flags'] as const).map((endpoint) => ({
    path: `/${endpoint}`,
    maxBodyBytes: DECIDE_LIMITS.maxBodyBytes,
    handle: (request: PublicRequest) => answerFlagsRequest(ctx, endpoint, request),
    gatherAnswers: true,
    allow: 'GET, POST, OPTIONS, HEAD',
  }));
}

export async function hasActiveFlags(ctx: AppContext, team: Team): Promise<boolean> {
  try {
    return (await flagDefinitionsCache(ctx).get(team.projectId)).hasActiveFlags;
  } catch {
    return true; // let the SDK ask /flags; it will learn about the failure there
  }
}

/**
 * The answer's opening with the config fields, `{` + their members + `,`, as text made once per
 * cached environment object (a settings change replaces the object in the team cache) and per
 * answer of hasActiveFlags: it is the same on every request.
 */
const configHeads = new WeakMap<Team, [string | undefined, string | undefined]>();

function configHead(team: Team, hasFlags: boolean): string {
  let heads = configHeads.get(team);
  if (!heads) configHeads.set(team, (heads = [undefined, undefined]));
  const slot = hasFlags ? 1 : 0;
  return (heads[slot] ??= objectHead(JSON.stringify(decideConfigFields(team, hasFlags))));
}

/**
 * The config head when it can be had without waiting: the environment has not opted in to
 * surveys and its flag definitions are loaded. Else undefined (configHeadWithSurveys).
 */
function cachedConfigHead(ctx: AppContext, team: Team): string | undefined {
  if (team.settings.surveys_opt_in === true) return undefined;
  const project = flagDefinitionsCache(ctx).loaded(team.projectId);
  return project && configHead(team, project.hasActiveFlags);
}

/**
 * The config head, with the environment's surveys when it opted in and has some: that part
 * changes with every survey edit, so such heads are written per request (only when opted in).
 */
async function configHeadWithSurveys(ctx: AppContext, team: Team): Promise<string> {
  const hasFlags = await hasActiveFlags(ctx, team);
  if (team.settings.surveys_opt_in !== true) return configHead(team, hasFlags);
  const surveys = await remoteConfigSurveys(ctx, team).catch(() => ({ surveys: false as const }));
  if (surveys.surveys === false) return configHead(team, hasFlags);
  return objectHead(JSON.stringify(decideConfigFields(team, hasFlags, surveys)));
}

/** `{"a":1}` → `{"a":1,` (ready for more members); `{}` → `{`. */
function objectHead(json: string): string {
  return json === '{}' ? '{' : `${json.slice(0, -1)},`;
}
