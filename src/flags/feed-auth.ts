/**
 * Who may read the local-evaluation feed, and for which environment. Two families answer it:
 * the Rust flags service behind `/flags/definitions` (rust/feature-flags/src/api/
 * flag_definitions.rs and auth.rs), and Django's `/api/...` actions, whose environment comes from
 * the URL unless a `token` names one (posthog/api/routing.py `_get_team_from_request`). Both take a
 * personal API key or the environment's project secret API key (`phs_…`); a secret key reaches
 * its own environment only (Django's ProjectSecretAPITokenPermission, posthog/permissions.py).
 */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { findPersonalApiKey, type Principal } from '../auth/guard.js';
import { findActiveKeyHolder, touchKey } from '../auth/keys-store.js';
import { bearerSecretKey, teamOfSecretKey } from '../auth/project-secret-key.js';
import { keyGrantsScope } from '../auth/scopes.js';
import { ApiError, missingScope, permissionDenied, projectNotFound, validationError } from '../posthog/errors.js';
import type { Team } from '../environments/models.js';
import { getMemberships, getTeam } from '../environments/tenancy-store.js';

type Json = Record<string, unknown>;

export const invalidProjectApiKey = () =>
  new ApiError(
    401,
    'authentication_error',
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in your project settings.',
  );

// The Rust service's bodies (api/errors.rs). It sends no WWW-Authenticate header.
const rustTokenInvalid = () =>
  new ApiError(
    401,
    'authentication_error',
    'authentication_failed',
    'The provided API key is invalid or has expired. Please check your API key and try again.',
  );
const rustKeyInvalid = () => new ApiError(401, 'authentication_error', 'authentication_failed', 'Personal API key is invalid.');
const rustSecretKeyInvalid = () => new ApiError(401, 'authentication_error', 'authentication_failed', 'Secret API token is invalid.');
const rustNoCredentials = () =>
  new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');
/**
 * Rust answers this 400 with the bare sentence as text/plain; Hoglet's error handling only emits
 * PostHog's JSON envelope, so the same sentence travels as its `detail`.
 */
const rustTokenRequired = () =>
  validationError(
    "The 'token' query parameter is required when authenticating with a personal API key. It can be omitted only when using a project secret API key (phs_).",
  );

/** DRF's `AuthenticationFailed()`, raised by `_get_team_from_request` for a token that names no environment. */
const incorrectCredentials = () =>
  new ApiError(401, 'authentication_error', 'authentication_failed', 'Incorrect authentication credentials.', null, {
    'WWW-Authenticate': 'Bearer',
  });

function firstValue(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Authentication of `/flags/definitions`, in the Rust handler's order: the `token` names the
 * environment first (an unknown one fails before any key is looked at), then the key must reach
 * it. A project secret key in the header is tried before any personal key and must be that
 * environment's (current or backup); without a `token` only a secret key can say which
 * environment it means, its own.
 */
export async function authorizeFeedRequest(ctx: AppContext, request: FastifyRequest): Promise<Team> {
  const { db } = ctx.database;
  const query = request.query as Json;
  const secretKey = bearerSecretKey(request);
  const keyTeam = secretKey === undefined ? undefined : await teamOfSecretKey(ctx.database, secretKey);
  const found = secretKey === undefined ? findPersonalApiKey(request) : undefined;
  if (!('token' in query)) {
    if (secretKey === undefined) throw found ? rustTokenRequired() : rustNoCredentials();
    if (!keyTeam) throw rustSecretKeyInvalid();
    return keyTeam;
  }
  const token = firstValue(query.token);
  const team = typeof token === 'string' && token !== '' ? await ctx.teams.byApiToken(token) : undefined;
  if (!team) throw rustTokenInvalid();
  // validate_secret_api_token_for_team: another environment's key is as invalid as an unknown one.
  if (secretKey !== undefined) {
    if (keyTeam?.id !== team.id) throw rustSecretKeyInvalid();
    return team;
  }
  if (!found) throw rustNoCredentials();
  const holder = await findActiveKeyHolder(db, found.value);
  if (!holder) throw rustKeyInvalid();
  const { key, user } = holder;
  // auth.rs validate_personal_key_metadata: every limit the key puts on where it reaches makes
  // the key "invalid" for this environment, so a key never learns another project exists.
  // Limits read as the /api guard reads them (an empty list reaches nothing).
  if (key.scopedTeams && !key.scopedTeams.includes(team.id)) throw rustKeyInvalid();
  if (!keyGrantsScope(key.scopes, 'feature_flag:read')) throw missingScope('feature_flag:read');
  if (key.scopedOrganizations && !key.scopedOrganizations.includes(team.organizationId)) {
    throw rustKeyInvalid();
  }
  if (!(await getMemberships(db, user.id)).has(team.organizationId)) throw rustKeyInvalid();
  await touchKey(db, key);
  return team;
}

/** The environment a legacy feed request names with `token`, or (without one) the user's current one. */
export async function teamForFeed(ctx: AppContext, token: unknown, currentTeamId: number | null): Promise<Team> {
  if (typeof token === 'string' && token !== '') {
    const team = await ctx.teams.byApiToken(token);
    if (!team) throw invalidProjectApiKey();
    return team;
  }
  const team = currentTeamId === null ? undefined : await ctx.teams.byId(currentTeamId);
  if (!team) throw invalidProjectApiKey();
  return team;
}

/**
 * The legacy feed for a project secret API key. Without a `token` PostHog resolves the key's
 * project (a project view: the project's first environment), as it resolves a user's current one.
 */
export async function teamForSecretKeyFeed(ctx: AppContext, token: unknown, keyTeam: Team): Promise<Team> {
  const team = await teamForFeed(ctx, token, keyTeam.projectId);
  if (team.id !== keyTeam.id) throw permissionDenied();
  return team;
}

/** `_get_team_from_request`'s override: a `token` (else `api_key`) query parameter names the environment. */
function environmentTokenOf(request: FastifyRequest): string | undefined {
  const query = request.query as Json;
  const given = [firstValue(query.token), firstValue(query.api_key)].find((v) => typeof v === 'string' && v !== '');
  return typeof given === 'string' ? given.trim() : undefined;
}

async function teamOfEnvironmentToken(ctx: AppContext, token: string): Promise<Team> {
  const team = await ctx.teams.byApiToken(token);
  if (!team) throw incorrectCredentials();
  return team;
}

/**
 * The environment of a project-scoped flag request from SDKs (`/api/projects/:id/feature_flags/
 * local_evaluation/` and `…/:id/remote_config/`), for either credential the route takes.
 */
export async function teamForProjectFlagRequest(ctx: AppContext, request: FastifyRequest): Promise<Team> {
  if (request.secretKeyTeam) return teamForSecretKeyProjectRequest(ctx, request, request.secretKeyTeam);
  return teamForProjectFeed(ctx, request, request.principal!);
}

/**
 * A `token` (else `api_key`) query parameter overrides the URL, as `_get_team_from_request` does
 * for every project-scoped view; otherwise the URL's project is resolved as the /api guard
 * resolves it. Either way the key's limits and the user's membership are then checked against
 * that environment.
 */
async function teamForProjectFeed(ctx: AppContext, request: FastifyRequest, principal: Principal): Promise<Team> {
  const given = environmentTokenOf(request);
  let team: Team | undefined;
  if (given !== undefined) {
    team = await teamOfEnvironmentToken(ctx, given);
  } else {
    const id = projectIdOf(request, principal.user.currentTeamId);
    team = id === null ? undefined : await getTeam(ctx.database.db, id);
    // Under /api/projects/:id/ the id names a project, whose primary environment shares its id.
    if (!team || team.projectId !== team.id) throw projectNotFound();
  }
  checkKeyReachesTeam(principal.key, principal.memberships, team);
  return team;
}

/** The URL's project id; `@current` is `current`. Null when the segment cannot be one. */
function projectIdOf(request: FastifyRequest, current: number | null): number | null {
  const raw = (request.params as { project_id?: string }).project_id;
  return raw === '@current' ? current : raw && /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/**
 * ProjectSecretAPITokenPermission: the environment the request resolves to (token, else the URL's
 * project, `@current` being the key's) must be the key's own. Another project in the URL is refused
 * before it is looked up, so a key cannot even learn whether it exists.
 */
async function teamForSecretKeyProjectRequest(ctx: AppContext, request: FastifyRequest, keyTeam: Team): Promise<Team> {
  const given = environmentTokenOf(request);
  let team: Team | undefined;
  if (given !== undefined) {
    team = await teamOfEnvironmentToken(ctx, given);
  } else {
    const id = projectIdOf(request, keyTeam.projectId);
    if (id === null) throw projectNotFound();
    if (id !== keyTeam.projectId) throw permissionDenied();
    team = await getTeam(ctx.database.db, id);
    if (!team) throw projectNotFound();
  }
  if (team.id !== keyTeam.id) throw permissionDenied();
  return team;
}

/** The /api guard's checks, in its order, for an environment the route resolved itself. */
export function checkKeyReachesTeam(
  key: { scopes: string[]; scopedTeams: number[] | null; scopedOrganizations: string[] | null } | undefined,
  memberships: Map<string, number>,
  team: Team,
): void {
  // A browser session (no key) has every scope and no limits: membership alone decides.
  if (!key) {
    if (!memberships.has(team.organizationId)) throw permissionDenied("You don't have access to the project.");
    return;
  }
  if (key.scopedTeams && !key.scopedTeams.includes(team.id)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${team.id}.`);
  }
  if (key.scopedOrganizations && !key.scopedOrganizations.includes(team.organizationId)) {
    throw permissionDenied(`API key does not have access to the requested organization: ID ${team.organizationId}.`);
  }
  if (!keyGrantsScope(key.scopes, 'feature_flag:read')) throw missingScope('feature_flag:read');
  if (!memberships.has(team.organizationId)) throw permissionDenied("You don't have access to the project.");
}
