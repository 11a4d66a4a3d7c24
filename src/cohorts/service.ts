/**
 * Cohorts: property-based (nested AND/OR groups, negation) or static (members added by distinct
 * id, person uuid or CSV upload). Every change drops the cached flag definitions of the project.
 * A dynamic cohort is calculated (its `count`) in the background once created or updated
 * (calculator.ts), as PostHog's.
 */
import type { AppContext } from '../context.js';
import { FLAGS_TOPIC } from '../flags/service.js';
import { readString } from '../flags/validation.js';
import type { Team, User } from '../environments/models.js';
import { serializeUserBasic } from '../environments/serializers.js';
import { getUser } from '../environments/tenancy-store.js';
import { CALCULATION_TOPIC } from './calculator.js';
import { filtersFromLegacyGroups, filtersGiven, LegacyGroupsError } from './core/legacy-groups.js';
import { validateCohortFilters } from './filter-validation.js';
import { addMembers, hasMembers, membersFromBody, withCsvMembers } from './static-members.js';
import { insertCohort, updateCohort, type Cohort } from './store.js';
import { validationError } from '../posthog/errors.js';
import { readBoolean } from '../posthog/fields.js';

type Json = Record<string, unknown>;

/** PostHog's Cohort.name and description lengths. */
const MAX_NAME_LENGTH = 400;
const MAX_DESCRIPTION_LENGTH = 1000;

/**
 * The filters a body defines: its `filters`, else its deprecated `groups` when it has some (PostHog
 * reads them when `filters` is empty), else undefined.
 */
function definedFilters(body: Json): unknown {
  if (filtersGiven(body.filters)) return body.filters;
  const { groups } = body;
  if (groups === undefined || groups === null || (Array.isArray(groups) && groups.length === 0)) return body.filters;
  try {
    return filtersFromLegacyGroups(groups);
  } catch (error) {
    if (error instanceof LegacyGroupsError) throw validationError(error.message, 'groups');
    throw error;
  }
}

async function announce(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.changes.publish({ topic: FLAGS_TOPIC, id: projectId });
}

export async function createCohort(ctx: AppContext, team: Team, user: User, body: Json, csv?: Buffer | string): Promise<Cohort> {
  const isStatic = 'is_static' in body ? readBoolean(body.is_static, 'is_static')! : false;
  const name = 'name' in body ? readString(body.name, 'name', { allowBlank: true, maxLength: MAX_NAME_LENGTH }) : '';
  const description =
    'description' in body ? readString(body.description, 'description', { allowBlank: true, maxLength: MAX_DESCRIPTION_LENGTH }) : '';
  let filters: Json | null = null;
  if (!isStatic) {
    const defined = definedFilters(body) ?? { properties: { type: 'AND', values: [] } };
    filters = await validateCohortFilters(ctx, team.projectId, defined, null, 'POST');
  }
  const members = membersFromBody(body);
  // The upload is read before anything is stored, so a refused file leaves no empty cohort behind.
  const input = isStatic ? withCsvMembers(members, csv) : members;
  let cohort = await insertCohort(ctx.database.db, {
    projectId: team.projectId,
    teamId: team.id,
    name,
    description,
    filters,
    isStatic,
    userId: user.id,
  });
  if (isStatic) cohort = await addMembers(ctx, team, cohort, input);
  await announce(ctx, team.projectId);
  if (!isStatic) await ctx.changes.publish({ topic: CALCULATION_TOPIC, id: cohort.id });
  return cohort;
}

export async function editCohort(
  ctx: AppContext,
  team: Team,
  cohort: Cohort,
  body: Json,
  method: 'PATCH' | 'PUT',
  csv?: Buffer | string,
): Promise<Cohort> {
  const changes: Parameters<typeof updateCohort>[2] = {};
  if ('name' in body) changes.name = readString(body.name, 'name', { allowBlank: true, maxLength: MAX_NAME_LENGTH });
  if ('description' in body)
    changes.description = readString(body.description, 'description', { allowBlank: true, maxLength: MAX_DESCRIPTION_LENGTH });
  if ('deleted' in body) changes.deleted = readBoolean(body.deleted, 'deleted')!;
  const defined = definedFilters(body);
  if (defined !== undefined && !cohort.isStatic)
    changes.filters = await validateCohortFilters(ctx, team.projectId, defined, cohort, method);
  // As PostHog, any update of a dynamic cohort but its deletion calculates it again; restoring one
  // does too, as its count went stale while it was deleted (the calculator skips deleted cohorts).
  changes.calculate = !cohort.isStatic && !(changes.deleted ?? cohort.deleted);
  const members = membersFromBody(body);
  // PostHog reads an upload only for a static cohort that is not being deleted.
  const input = cohort.isStatic && changes.deleted !== true ? withCsvMembers(members, csv) : members;
  let updated = await updateCohort(ctx.database.db, cohort, changes);
  if (cohort.isStatic && hasMembers(input)) updated = await addMembers(ctx, team, updated, input);
  await announce(ctx, team.projectId);
  if (changes.calculate) await ctx.changes.publish({ topic: CALCULATION_TOPIC, id: cohort.id });
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
    is_calculating: cohort.isCalculating,
    created_by: creator ? serializeUserBasic(creator) : null,
    created_at: cohort.createdAt,
    last_calculation: cohort.lastCalculation,
    errors_calculating: cohort.errorsCalculating,
    last_error_at: cohort.lastErrorAt,
    count: cohort.count,
    is_static: cohort.isStatic,
    cohort_type: cohortType(cohort),
    experiment_set: [],
  };
}
