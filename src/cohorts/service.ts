/**
 * Cohorts: property-based (nested AND/OR groups, negation) or static (members added by distinct
 * id, person uuid or CSV upload). Every change drops the cached flag definitions of the project.
 */
import type { AppContext } from '../context.js';
import { FLAGS_TOPIC } from '../flags/service.js';
import { readBoolean, readString } from '../flags/validation.js';
import { validationError } from '../http/errors.js';
import type { Team, User } from '../tenancy/models.js';
import { serializeUserBasic } from '../tenancy/serializers.js';
import { getUser } from '../tenancy/store.js';
import {
  addCohortMembers,
  getCohort,
  insertCohort,
  personIdsForDistinctIds,
  personIdsForUuids,
  updateCohort,
  type Cohort,
} from './store.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a request may carry to add static members. */
export interface StaticMembersInput {
  distinctIds?: string[];
  personUuids?: string[];
}

function checkGroup(group: unknown, depth = 0): void {
  if (!isObject(group)) throw validationError("Must contain a 'properties' key with type and values", 'filters');
  if (Array.isArray(group.values)) {
    if (group.type !== 'AND' && group.type !== 'OR') {
      throw validationError("Must contain a 'properties' key with type and values", 'filters');
    }
    for (const value of group.values) checkGroup(value, depth + 1);
    return;
  }
  if (depth === 0 || typeof group.key !== 'string' && typeof group.key !== 'number') {
    throw validationError("Must contain a 'properties' key with type and values", 'filters');
  }
}

function cohortReferences(group: unknown, into: number[] = []): number[] {
  if (!isObject(group)) return into;
  if (Array.isArray(group.values)) for (const value of group.values) cohortReferences(value, into);
  else if (group.type === 'cohort') into.push(Number(group.value));
  return into;
}

/** Filters of a property cohort: `{properties: {type: AND|OR, values: [...]}}`, with no cohort loop. */
async function validateCohortFilters(ctx: AppContext, projectId: number, raw: unknown, selfId: number | null): Promise<Json> {
  if (!isObject(raw) || !isObject(raw.properties)) {
    throw validationError("Must contain a 'properties' key with type and values", 'filters');
  }
  checkGroup(raw.properties);
  const seen = new Set<number>();
  const queue = cohortReferences(raw.properties);
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (selfId !== null && id === selfId) throw validationError('Cohorts cannot reference other cohorts in a loop.', 'filters');
    if (seen.has(id)) continue;
    seen.add(id);
    const cohort = await getCohort(ctx.database.db, projectId, id);
    if (!cohort) throw validationError(`Invalid Cohort ID in filter: ${id}`, 'filters');
    queue.push(...cohortReferences(cohort.filters?.properties));
  }
  return raw;
}

async function addMembers(ctx: AppContext, team: Team, cohort: Cohort, input: StaticMembersInput): Promise<Cohort> {
  const { db } = ctx.database;
  const personIds = [
    ...(await personIdsForDistinctIds(db, team.id, input.distinctIds ?? [])),
    ...(await personIdsForUuids(db, team.id, input.personUuids ?? [])),
  ];
  const count = await addCohortMembers(db, cohort.id, personIds);
  return updateCohort(db, cohort, { count });
}

function stringList(value: unknown, attr: string): string[] {
  if (!Array.isArray(value)) throw validationError(`Expected a list of items but got type "${typeof value}".`, attr, 'not_a_list');
  return value.map(String);
}

/** Members a body names: `_create_static_person_ids` (person uuids, PostHog) or `distinct_ids`. */
export function membersFromBody(body: Json): StaticMembersInput {
  const input: StaticMembersInput = {};
  if ('distinct_ids' in body) input.distinctIds = stringList(body.distinct_ids, 'distinct_ids');
  if ('_create_static_person_ids' in body) input.personUuids = stringList(body._create_static_person_ids, '_create_static_person_ids');
  if ('person_ids' in body) input.personUuids = stringList(body.person_ids, 'person_ids');
  return input;
}

async function announce(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.changes.publish({ topic: FLAGS_TOPIC, id: projectId });
}

export async function createCohort(ctx: AppContext, team: Team, user: User, body: Json, members: StaticMembersInput): Promise<Cohort> {
  const isStatic = 'is_static' in body ? readBoolean(body.is_static, 'is_static')! : false;
  const name = 'name' in body ? readString(body.name, 'name', { allowBlank: true }) : '';
  const description = 'description' in body ? readString(body.description, 'description', { allowBlank: true }) : '';
  let filters: Json | null = null;
  if (!isStatic) {
    filters = await validateCohortFilters(ctx, team.projectId, body.filters ?? { properties: { type: 'AND', values: [] } }, null);
  }
  let cohort = await insertCohort(ctx.database.db, { projectId: team.projectId, teamId: team.id, name, description, filters, isStatic, userId: user.id });
  if (isStatic) cohort = await addMembers(ctx, team, cohort, members);
  await announce(ctx, team.projectId);
  return cohort;
}

export async function editCohort(ctx: AppContext, team: Team, cohort: Cohort, body: Json, members: StaticMembersInput): Promise<Cohort> {
  const changes: Parameters<typeof updateCohort>[2] = {};
  if ('name' in body) changes.name = readString(body.name, 'name', { allowBlank: true });
  if ('description' in body) changes.description = readString(body.description, 'description', { allowBlank: true });
  if ('deleted' in body) changes.deleted = readBoolean(body.deleted, 'deleted')!;
  if ('filters' in body && !cohort.isStatic) changes.filters = await validateCohortFilters(ctx, team.projectId, body.filters, cohort.id);
  let updated = await updateCohort(ctx.database.db, cohort, changes);
  if (cohort.isStatic && (members.distinctIds?.length || members.personUuids?.length)) updated = await addMembers(ctx, team, updated, members);
  await announce(ctx, team.projectId);
  return updated;
}

export async function addStaticMembers(ctx: AppContext, team: Team, cohort: Cohort, members: StaticMembersInput): Promise<Cohort> {
  if (!cohort.isStatic) throw validationError('Can only add users to static cohorts');
  const updated = await addMembers(ctx, team, cohort, members);
  await announce(ctx, team.projectId);
  return updated;
}

/** PostHog's cohort types: static lists, property-only definitions, or ones with event filters. */
function cohortType(cohort: Cohort): string {
  if (cohort.isStatic) return 'static';
  return JSON.stringify(cohort.filters ?? {}).includes('"behavioral"') ? 'behavioral' : 'person_property';
}

/** CohortSerializer, in PostHog's field order. */
export async function serializeCohort(ctx: AppContext, cohort: Cohort) {
  const creator = cohort.createdById === null ? undefined : await getUser(ctx.database.db, cohort.createdById);
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    groups: [],
    deleted: cohort.deleted,
    filters: cohort.filters,
    query: null,
    version: cohort.version,
    pending_version: null,
    is_calculating: false,
    created_by: creator ? serializeUserBasic(creator) : null,
    created_at: cohort.createdAt,
    last_calculation: cohort.lastCalculation,
    errors_calculating: 0,
    last_error_at: null,
    count: cohort.count,
    is_static: cohort.isStatic,
    cohort_type: cohortType(cohort),
    experiment_set: [],
  };
}
