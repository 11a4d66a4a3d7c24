/**
 * The local-evaluation feed (spec posthog-flags.md §1.5): `GET /flags/definitions`,
 * `GET /api/feature_flag/local_evaluation/` and `/api/projects/:id/feature_flags/local_evaluation/`.
 * SDKs with a personal API key poll it and evaluate flags themselves; `If-None-Match` gets a 304.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { findPersonalApiKey } from '../auth/guard.js';
import { findActiveKeyHolder, touchKey } from '../auth/keys-store.js';
import { keyGrantsScope } from '../auth/scopes.js';
import { listGroupTypes } from '../groups/store.js';
import {
  ApiError,
  invalidPersonalApiKey,
  missingScope,
  notAuthenticated,
  permissionDenied,
} from '../http/errors.js';
import type { Team } from '../tenancy/models.js';
import { getMemberships } from '../tenancy/store.js';
import { cohortDefinition, flagDefinitionsCache } from './definitions-cache.js';
import { effectiveFilters, minimalFlag } from './serializers.js';
import type { FeatureFlag } from './store.js';

type Json = Record<string, unknown>;

export const invalidProjectApiKey = () =>
  new ApiError(
    401,
    'authentication_error',
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in your project settings.',
  );

function flagReferences(filters: Json): Json[] {
  const conditions = [...(Array.isArray(filters.groups) ? filters.groups : []), ...(Array.isArray(filters.super_groups) ? filters.super_groups : [])];
  return conditions.flatMap((c: Json) => (Array.isArray(c?.properties) ? (c.properties as Json[]) : [])).filter((p) => p?.type === 'flag');
}

/**
 * Evaluation order of `target`'s transitive dependencies, ending with `target` itself; empty when
 * a dependency is missing or a cycle is met (the SDK then defers to the server).
 */
function dependencyChain(target: FeatureFlag, byId: ReadonlyMap<string, FeatureFlag>): string[] {
  const chain: string[] = [];
  const done = new Set<string>();
  const visit = (flag: FeatureFlag, path: Set<string>): boolean => {
    if (path.has(flag.key)) return false;
    if (done.has(flag.key)) return true;
    path.add(flag.key);
    for (const reference of flagReferences(effectiveFilters(flag.filters))) {
      const dependency = byId.get(String(reference.key));
      if (!dependency || !visit(dependency, path)) return false;
    }
    path.delete(flag.key);
    done.add(flag.key);
    chain.push(flag.key);
    return true;
  };
  return visit(target, new Set()) ? chain : [];
}

/** Flag properties name their target by id in storage; the feed names it by key, with its chain. */
function feedFilters(flag: FeatureFlag, byId: ReadonlyMap<string, FeatureFlag>): Json {
  const filters = structuredClone(effectiveFilters(flag.filters));
  for (const property of flagReferences(filters)) {
    const target = byId.get(String(property.key));
    if (target) {
      property.key = target.key;
      property.dependency_chain = dependencyChain(target, byId);
    } else {
      property.dependency_chain = [];
    }
  }
  return filters;
}

function referencedCohortIds(group: unknown, into: Set<string>): void {
  if (!group || typeof group !== 'object') return;
  const value = group as Json;
  if (Array.isArray(value.values)) for (const child of value.values) referencedCohortIds(child, into);
  else if (Array.isArray(value.groups)) for (const child of value.groups) referencedCohortIds({ values: (child as Json)?.properties ?? [] }, into);
  else if (value.type === 'cohort') into.add(String(value.value));
}

export async function buildLocalEvaluationFeed(ctx: AppContext, team: Team, sendCohorts: boolean): Promise<Json> {
  const project = await flagDefinitionsCache(ctx).get(team.projectId);
  const byId = new Map(project.flags.map((flag) => [String(flag.id), flag]));
  const flags = project.flags
    .filter((flag) => !flag.isRemoteConfiguration)
    .map((flag) => minimalFlag(flag, feedFilters(flag, byId)));
  const groupTypes = await listGroupTypes(ctx.database.db, team.id);
  const feed: Json = {
    flags,
    group_type_mapping: Object.fromEntries(groupTypes.map((g) => [String(g.groupTypeIndex), g.groupType])),
    cohorts: {},
  };
  if (sendCohorts) {
    // Every live dynamic cohort the flags reference, with the cohorts those reference in turn.
    const live = new Map(project.cohorts.filter((c) => !c.deleted && !c.isStatic).map((c) => [String(c.id), c]));
    const wanted = new Set<string>();
    for (const flag of flags) referencedCohortIds(flag.filters, wanted);
    const cohorts: Json = {};
    const queue = [...wanted];
    while (queue.length > 0) {
      const id = queue.shift()!;
      const cohort = live.get(id);
      if (!cohort || id in cohorts) continue;
      const definition = cohortDefinition(cohort);
      cohorts[id] = definition ?? { type: 'AND', values: [] };
      const nested = new Set<string>();
      referencedCohortIds(definition, nested);
      queue.push(...nested);
    }
    feed.cohorts = cohorts;
  }
  return feed;
}

/** `?send_cohorts` with no value means true. */
function wantsCohorts(query: Json): boolean {
  if (!('send_cohorts' in query)) return false;
  const value = Array.isArray(query.send_cohorts) ? query.send_cohorts[0] : query.send_cohorts;
  return value === '' || value === 'true' || value === 'True' || value === '1';
}

/** Answers with the feed, or 304 when the client's ETag still matches. */
export async function localEvaluationResponse(ctx: AppContext, team: Team, request: FastifyRequest, reply: FastifyReply) {
  const feed = await buildLocalEvaluationFeed(ctx, team, wantsCohorts(request.query as Json));
  const body = JSON.stringify(feed);
  const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
  const sent = request.headers['if-none-match'];
  const tags = typeof sent === 'string' ? sent.split(',').map((t) => t.trim().replace(/^W\//, '')) : [];
  if (tags.includes(etag.replace(/^W\//, ''))) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(body);
}

/** The environment a feed request names with `token`, or (without one) the user's current one. */
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
 * Authentication of the public `/flags/definitions`: a personal API key with `feature_flag:read`
 * that reaches the token's environment (the same checks as the /api guard).
 */
export async function authorizeFeedRequest(ctx: AppContext, request: FastifyRequest): Promise<Team> {
  const { db } = ctx.database;
  const found = findPersonalApiKey(request);
  if (!found) throw notAuthenticated();
  const holder = await findActiveKeyHolder(db, found.value);
  if (!holder) throw invalidPersonalApiKey(found.source);
  const { key, user } = holder;
  await touchKey(db, key);
  const team = await teamForFeed(ctx, (request.query as Json).token, user.currentTeamId);
  checkKeyReachesTeam(key, await getMemberships(db, user.id), team);
  return team;
}

export function checkKeyReachesTeam(
  key: { scopes: string[]; scopedTeams: number[] | null; scopedOrganizations: string[] | null },
  memberships: Map<string, number>,
  team: Team,
): void {
  if (key.scopedTeams && !key.scopedTeams.includes(team.id)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${team.id}.`);
  }
  if (key.scopedOrganizations && !key.scopedOrganizations.includes(team.organizationId)) {
    throw permissionDenied(`API key does not have access to the requested organization: ID ${team.organizationId}.`);
  }
  if (!keyGrantsScope(key.scopes, 'feature_flag:read')) throw missingScope('feature_flag:read');
  if (!memberships.has(team.organizationId)) throw permissionDenied("You don't have access to the project.");
}
