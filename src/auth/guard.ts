import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../platform/db/database.js';
import {
  invalidPersonalApiKey,
  missingScope,
  notAuthenticated,
  notFound,
  permissionDenied,
  projectNotFound,
  type KeySource,
} from '../posthog/errors.js';
import type { Organization, Team, User } from '../environments/models.js';
import { getMemberships, getOrganization, getTeam } from '../environments/tenancy-store.js';
import { mayManageKeys, SELF_ACCESS_ONLY } from './keys-service.js';
import { findActiveKeyHolder, touchKey, type PersonalApiKey } from './keys-store.js';
import { findProjectSecretKey, teamOfSecretKey } from './project-secret-key.js';
import { keyGrantsScope } from './scopes.js';
import { checkCsrf, checkOrigin, currentSession } from './sessions.js';
import type { ApiRouteAccess } from '../http/route-registry.js';

// Declared by the route registry, which refuses an /api route without one.
export type { ApiRouteAccess };

/**
 * Who makes an /api request: a user, through one of their personal API keys (`key`) or a browser
 * session (`session`, the sha256 of its cookie). A session acts as the user with every scope, within
 * the user's organization memberships (PostHog's session auth skips scope checks).
 */
export interface Principal {
  user: User;
  key?: PersonalApiKey | undefined;
  session?: { tokenHash: string } | undefined;
  /** Organization id → membership level. */
  memberships: Map<string, number>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    team?: Team;
    /** The organization an `organization` route names, and the caller's level in it. */
    organization?: { organization: Organization; level: number };
    /** The environment of the project secret API key the request came with (no principal then). */
    secretKeyTeam?: Team;
  }
}

const BEARER = /^Bearer\s+(\S.*)$/i;

/** PostHog tries one place only: the header, else the body, else the query string. */
export function findPersonalApiKey(request: FastifyRequest): { value: string; source: KeySource } | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string') {
    const match = BEARER.exec(header.trim());
    // `pha_` tokens are OAuth access tokens, which Hoglet does not issue.
    if (match && !match[1]!.startsWith('pha_')) return { value: match[1]!.trim(), source: 'Authorization header' };
  }
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body) && typeof body.personal_api_key === 'string') {
    return { value: body.personal_api_key, source: 'body' };
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query.personal_api_key === 'string') {
    return { value: query.personal_api_key, source: 'query string' };
  }
  return undefined;
}

/**
 * A personal API key when the request carries one (never CSRF-checked: a browser does not add it
 * on its own), else the session cookie, whose unsafe requests must pass Django's CSRF check.
 */
async function authenticate(database: Database, request: FastifyRequest, reply: FastifyReply): Promise<Principal> {
  const found = findPersonalApiKey(request);
  if (found) {
    const holder = await findActiveKeyHolder(database.db, found.value);
    if (!holder) throw invalidPersonalApiKey(found.source);
    const { key, user } = holder;
    await touchKey(database.db, key);
    return { user, key, memberships: await getMemberships(database.db, user.id) };
  }
  const session = await currentSession(database, request, reply);
  if (!session) throw notAuthenticated();
  checkCsrf(request, session.token);
  return { user: session.user, session: { tokenHash: session.tokenHash }, memberships: await getMemberships(database.db, session.user.id) };
}

async function resolveTeam(
  database: Database,
  principal: Principal,
  from: 'project' | 'environment',
  raw: string | undefined,
): Promise<Team> {
  let id: number | null = null;
  if (raw === '@current') id = principal.user.currentTeamId;
  else if (raw && /^\d{1,15}$/.test(raw)) id = Number(raw);
  const team = id === null ? undefined : await getTeam(database.db, id);
  // Under /api/projects/:id/ the id names a project, whose primary environment shares its id.
  if (!team || (from === 'project' && team.projectId !== team.id)) throw projectNotFound();
  return team;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function resolveOrganization(database: Database, principal: Principal, raw: string | undefined): Promise<Organization> {
  const id = raw === '@current' ? principal.user.currentOrganizationId : raw;
  const organization = id && UUID.test(id) ? await getOrganization(database.db, id.toLowerCase()) : undefined;
  if (!organization) throw notFound();
  return organization;
}

/**
 * The checks of PostHog's permission classes, in PostHog's order: credentials (401; a session's
 * CSRF check, 403), an action without a scope (403), the key's project and organization limits
 * (404 / 403), the scope itself (403 naming it), then membership of the project's organization
 * (403). The key management routes have a permission of their own instead, after the credentials.
 * Sessions have every scope; a key's limits and scopes apply to keys only.
 */
export function apiGuard(database: Database) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const access = request.routeOptions.config.access;
    if (!access) throw new Error(`route ${request.routeOptions.url} declares no access rule`);
    if (access.public) {
      checkOrigin(request);
      return;
    }
    if (access.projectSecretKey) {
      const secretKey = findProjectSecretKey(request);
      const keyTeam = secretKey ? await teamOfSecretKey(database, secretKey) : undefined;
      if (keyTeam) {
        request.secretKeyTeam = keyTeam;
        return;
      }
    }
    const principal = await authenticate(database, request, reply);
    request.principal = principal;
    const { key } = principal;
    // The view's own permission runs before DRF refuses a method, so it comes before authenticateOnly.
    if (access.personalApiKeys === 'manage' && key && !mayManageKeys(key)) throw permissionDenied(SELF_ACCESS_ONLY);
    if (access.authenticateOnly || access.personalApiKeys) return;
    if (access.scope === null && key) throw permissionDenied('This action does not support personal API key access');

    let team: Team | undefined;
    if (access.team) {
      const params = request.params as Record<string, string | undefined>;
      team = await resolveTeam(database, principal, access.team.from, params[access.team.param]);
      if (key?.scopedTeams && !key.scopedTeams.includes(team.id)) {
        throw permissionDenied(`API key does not have access to the requested project: ID ${team.id}.`);
      }
      if (key?.scopedOrganizations && !key.scopedOrganizations.includes(team.organizationId)) {
        throw permissionDenied(`API key does not have access to the requested organization: ID ${team.organizationId}.`);
      }
    }
    let organization: Organization | undefined;
    if (access.organization) {
      const params = request.params as Record<string, string | undefined>;
      organization = await resolveOrganization(database, principal, params[access.organization.param]);
      if (key?.scopedOrganizations && !key.scopedOrganizations.includes(organization.id)) {
        throw permissionDenied(`API key does not have access to the requested organization: ID ${organization.id}.`);
      }
    }
    if (key && access.scope !== null) {
      const missing = (typeof access.scope === 'string' ? [access.scope] : access.scope).find(
        (scope) => !keyGrantsScope(key.scopes, scope),
      );
      if (missing !== undefined) throw missingScope(missing);
    }
    if (team) {
      if (!principal.memberships.has(team.organizationId)) throw permissionDenied("You don't have access to the project.");
      request.team = team;
    }
    if (organization) {
      const level = principal.memberships.get(organization.id);
      if (level === undefined) throw permissionDenied("You don't belong to the organization.");
      request.organization = { organization, level };
    }
  };
}

/** The environments a principal may see in lists, narrowed by the key's limits (a session has none). */
export function visibleScope(principal: Principal): { organizationIds: string[]; teamIds?: number[] } {
  const { key } = principal;
  let organizationIds = [...principal.memberships.keys()];
  if (key?.scopedOrganizations) organizationIds = organizationIds.filter((id) => key.scopedOrganizations!.includes(id));
  return key?.scopedTeams ? { organizationIds, teamIds: key.scopedTeams } : { organizationIds };
}

/** Whether a principal's key and memberships reach this environment. */
export function canSeeTeam(principal: Principal, team: Team): boolean {
  const scope = visibleScope(principal);
  return scope.organizationIds.includes(team.organizationId) && (!scope.teamIds || scope.teamIds.includes(team.id));
}
