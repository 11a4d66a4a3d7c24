/**
 * The local-evaluation feed (docs/posthog-parity.md): `GET /flags/definitions`,
 * `GET /api/feature_flag/local_evaluation/` and `/api/projects/:id/feature_flags/local_evaluation/`.
 * SDKs with a personal API key poll it and evaluate flags themselves; `If-None-Match` gets a 304.
 * The payload follows PostHog's builder (products/feature_flags/backend/local_evaluation.py);
 * who may read it is in feed-auth.ts.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Cohort } from '../cohorts/store.js';
import { listGroupTypes } from '../groups/store.js';
import type { Team } from '../environments/models.js';
import { expandSimpleCohort } from './cohort-expansion.js';
import { cohortDefinition, flagDefinitionsCache } from './definitions-cache.js';
import { effectiveFilters, evaluationFlag } from './serializers.js';
import type { FeatureFlag } from './store.js';
import { isJsonObject } from '../lib/json-object.js';

// sdk/flags/config-routes.ts and sdk/flags/flags-routes.ts read these from here.
export { authorizeFeedRequest, invalidProjectApiKey } from './feed-auth.js';

type Json = Record<string, unknown>;

function flagReferences(filters: Json): Json[] {
  const conditions = [
    ...(Array.isArray(filters.groups) ? filters.groups : []),
    ...(Array.isArray(filters.super_groups) ? filters.super_groups : []),
  ];
  return conditions
    .flatMap((c: unknown) => (isJsonObject(c) && Array.isArray(c.properties) ? (c.properties as unknown[]) : []))
    .filter((p): p is Json => isJsonObject(p) && p.type === 'flag');
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

/**
 * Flag properties name their target by id in storage; the feed names it by key, with its chain.
 * Without cohort definitions, a flag on one simple cohort gets person-property conditions instead.
 */
function feedFilters(flag: FeatureFlag, byId: ReadonlyMap<string, FeatureFlag>, expandCohorts: ReadonlyMap<number, Cohort> | null): Json {
  const filters = structuredClone(effectiveFilters(flag.filters));
  if (expandCohorts && Array.isArray(filters.groups) && filters.groups.every(isJsonObject))
    filters.groups = expandSimpleCohort(filters.groups as Json[], expandCohorts);
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
  else if (Array.isArray(value.groups))
    for (const child of value.groups) referencedCohortIds({ values: (child as Json)?.properties ?? [] }, into);
  else if (value.type === 'cohort') into.add(String(value.value));
}

/** Every live dynamic cohort the flags reference, with the cohorts those reference in turn. */
function cohortDefinitions(flags: Array<{ filters: Json }>, cohorts: Cohort[]): Json {
  const live = new Map(cohorts.filter((c) => !c.deleted && !c.isStatic).map((c) => [String(c.id), c]));
  const wanted = new Set<string>();
  for (const flag of flags) referencedCohortIds(flag.filters, wanted);
  const found: Json = {};
  const queue = [...wanted];
  while (queue.length > 0) {
    const id = queue.shift()!;
    const cohort = live.get(id);
    if (!cohort || id in found) continue;
    const definition = cohortDefinition(cohort);
    found[id] = definition ?? { type: 'AND', values: [] };
    const nested = new Set<string>();
    referencedCohortIds(definition, nested);
    queue.push(...nested);
  }
  return found;
}

// Team rollout settings PostHog keeps in TeamFeatureFlagsConfig, written only by PostHog staff;
// a team without that row (every self-hosted one) gets these defaults in the feed.
const MINIMAL_FLAG_CALLED_EVENTS = false;
const PROPERTY_MATCHING_VERSION_LEGACY = 1;

export async function buildLocalEvaluationFeed(ctx: AppContext, team: Team, sendCohorts: boolean): Promise<Json> {
  const project = await flagDefinitionsCache(ctx).get(team.projectId);
  // Remote-configuration flags stay out (their payloads are read through remote_config; the
  // newest PostHog serves unencrypted ones, the version docs/posthog-parity.md pins does not);
  // sorted by key as PostHog loads them, so the ETag does not move with edit order.
  const eligible = project.flags.filter((flag) => !flag.isRemoteConfiguration).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // Dependencies resolve among the served flags only, as PostHog's flag_id_to_key does.
  const byId = new Map(eligible.map((flag) => [String(flag.id), flag]));
  const expand = sendCohorts ? null : new Map(project.cohorts.filter((c) => !c.deleted).map((c) => [c.id, c]));
  const flags = eligible.map((flag) => evaluationFlag(flag, feedFilters(flag, byId, expand)));
  const groupTypes = await listGroupTypes(ctx.database.db, team.id);
  return {
    flags,
    group_type_mapping: Object.fromEntries(groupTypes.map((g) => [String(g.groupTypeIndex), g.groupType])),
    cohorts: sendCohorts ? cohortDefinitions(flags, project.cohorts) : {},
    minimal_flag_called_events: MINIMAL_FLAG_CALLED_EVENTS,
    property_matching_version: PROPERTY_MATCHING_VERSION_LEGACY,
  };
}

/** `?send_cohorts` with no value means true. */
function wantsCohorts(query: Json): boolean {
  if (!('send_cohorts' in query)) return false;
  const value = Array.isArray(query.send_cohorts) ? query.send_cohorts[0] : query.send_cohorts;
  return value === '' || value === 'true' || value === 'True' || value === '1';
}

/**
 * The ETag a client sent, as Rust's `extract_etag_from_header` reads it: trimmed, a `W/` prefix
 * dropped only before a quote, surrounding quotes stripped, so a bare value matches too.
 */
function sentEtag(value: string): string | null {
  const trimmed = value.trim();
  const etag = (trimmed.startsWith('W/"') ? trimmed.slice(2) : trimmed).replace(/^"+|"+$/g, '');
  return etag === '' ? null : etag;
}

/**
 * Which service answers: `/flags/definitions` is the Rust flags service; the `/api/...` addresses
 * are Django's actions, which keep their own headers and also accept a list of ETags.
 */
export type FeedService = 'rust' | 'django';

/** Answers with the feed, or 304 when the client's ETag still matches. */
export async function localEvaluationResponse(
  ctx: AppContext,
  team: Team,
  request: FastifyRequest,
  reply: FastifyReply,
  service: FeedService = 'rust',
) {
  const feed = await buildLocalEvaluationFeed(ctx, team, wantsCohorts(request.query as Json));
  const body = JSON.stringify(feed);
  const raw = createHash('sha256').update(body).digest('hex').slice(0, 32);
  const header = request.headers['if-none-match'];
  // Rust compares the whole header as one ETag; Django's actions take a comma-separated list.
  const candidates = typeof header !== 'string' ? [] : service === 'rust' ? [header] : header.split(',');
  const matches = candidates.some((candidate) => sentEtag(candidate) === raw);
  reply.header('ETag', `W/"${raw}"`).header('Cache-Control', service === 'rust' ? 'private, must-revalidate' : 'private, no-cache');
  if (matches) return reply.code(304).send();
  // Rust's axum sends a bare `application/json`; fastify appends a charset to JSON strings, not to bytes.
  if (service === 'rust') return reply.type('application/json').send(Buffer.from(body));
  return reply.type('application/json; charset=utf-8').send(body);
}
