/**
 * CohortSerializer.validate_filters: the shape of `{properties: {type, values}}` (PostHog checks
 * it with pydantic models, core/filter-models.ts), the feature-flag rule for cohorts
 * flags use (`_validate_feature_flag_constraints`), then references to other cohorts.
 */
import type { AppContext } from '../context.js';
import { listProjectFlags } from '../flags/store.js';
import { validationError } from '../posthog/errors.js';
import { isJsonObject } from '../lib/json-object.js';
import { cohortErrorMessage, cohortFilterErrors } from './core/filter-models.js';
import { getCohort, type Cohort } from './store.js';

type Json = Record<string, unknown>;

const SHAPE_ERROR = "Must contain a 'properties' key with type and values";

const isGroup = (node: Json) => Array.isArray(node.values);

/** Every leaf filter under a group, depth first in document order (PostHog's `property_groups.flat`). */
function leaves(node: unknown, into: Json[] = []): Json[] {
  if (!isJsonObject(node)) return into;
  if (isGroup(node)) for (const value of node.values as unknown[]) leaves(value, into);
  else into.push(node);
  return into;
}

/** What the models leave out: members that are no objects, `values` that are no list, keys that are no text. */
function checkGroup(group: unknown): void {
  if (!isJsonObject(group)) throw validationError(SHAPE_ERROR, 'filters');
  if (isGroup(group)) for (const value of group.values as unknown[]) checkGroup(value);
  else if (typeof group.key !== 'string' && typeof group.key !== 'number') throw validationError(SHAPE_ERROR, 'filters');
}

/**
 * The shape check: PostHog's pydantic models (core/filter-models.ts), their errors worded as
 * `_cohort_error_message` words them (a missing key by name, else pydantic's raw list); then
 * what they leave out, refused as a shape error.
 */
/** Groups nested deeper than this are refused before any check walks them (each walk recurses). */
export const MAX_FILTER_DEPTH = 100;

/** How deeply `node`'s groups nest, counted without recursion, stopping past MAX_FILTER_DEPTH. */
function depthOf(node: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[node, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (!isJsonObject(current) || !Array.isArray(current.values)) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_FILTER_DEPTH) return deepest;
    for (const value of current.values as unknown[]) stack.push([value, depth + 1]);
  }
  return deepest;
}

function checkShape(raw: unknown): asserts raw is { properties: Json } {
  if (!isJsonObject(raw) || !isJsonObject(raw.properties)) throw validationError(SHAPE_ERROR, 'filters');
  if (depthOf(raw.properties) > MAX_FILTER_DEPTH) {
    throw validationError(`Filters may nest groups ${MAX_FILTER_DEPTH} deep at most.`, 'filters');
  }
  const message = cohortErrorMessage(cohortFilterErrors(raw));
  if (message !== undefined) throw validationError(message, 'filters');
  checkGroup(raw.properties);
}

function cohortReferences(group: unknown): number[] {
  return leaves(group)
    .filter((leaf) => leaf.type === 'cohort')
    .map((leaf) => Number(leaf.value));
}

/** The cohort and every cohort it reaches through cohort filters; static cohorts end the walk. */
async function withDependencies(ctx: AppContext, projectId: number, start: Cohort): Promise<Cohort[]> {
  const found = new Map<number, Cohort>([[start.id, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const cohort = queue.shift()!;
    if (cohort.isStatic) continue;
    for (const id of cohortReferences(cohort.filters?.properties)) {
      if (found.has(id)) continue;
      const next = await getCohort(ctx.database.db, projectId, id);
      if (!next) continue;
      found.set(id, next);
      queue.push(next);
    }
  }
  return [...found.values()];
}

/** Whether an active flag of the project reaches this cohort (FeatureFlag.get_cohort_ids). */
async function usedInActiveFlag(ctx: AppContext, projectId: number, cohortId: number): Promise<boolean> {
  const flags = (await listProjectFlags(ctx.database.db, projectId)).filter((flag) => flag.active);
  const seen = new Set<number>();
  for (const flag of flags) {
    const groups = Array.isArray(flag.filters.groups) ? flag.filters.groups : [];
    for (const group of groups) {
      const properties = isJsonObject(group) && Array.isArray(group.properties) ? group.properties : [];
      for (const property of properties) {
        if (!isJsonObject(property) || property.type !== 'cohort') continue;
        const id = Number(property.value);
        if (id === cohortId) return true;
        if (seen.has(id)) continue;
        seen.add(id);
        const cohort = await getCohort(ctx.database.db, projectId, id);
        if (cohort && (await withDependencies(ctx, projectId, cohort)).some((c) => c.id === cohortId)) return true;
      }
    }
  }
  return false;
}

const behavioural = (cohort: Cohort) => leaves(cohort.filters?.properties).some((leaf) => leaf.type === 'behavioral');

/**
 * `_validate_feature_flag_constraints`, PATCH only: a cohort an active flag uses may not gain an
 * event (behavioural) filter, directly or through a non-static cohort it references, because a
 * flag cannot evaluate one and would silently stop matching.
 */
async function checkFlagConstraints(ctx: AppContext, projectId: number, self: Cohort, properties: Json): Promise<void> {
  if (!(await usedInActiveFlag(ctx, projectId, self.id))) return;
  for (const leaf of leaves(properties)) {
    if (leaf.type === 'behavioral') {
      throw validationError('Behavioral filters cannot be added to cohorts used in feature flags.', 'filters', 'behavioral_cohort_found');
    }
    if (leaf.type !== 'cohort') continue;
    const nested = await getCohort(ctx.database.db, projectId, Number(leaf.value));
    if (!nested) continue; // reported by the reference check
    const offender = (await withDependencies(ctx, projectId, nested)).find((c) => !c.isStatic && behavioural(c));
    if (offender) {
      throw validationError(
        `A cohort dependency (${offender.name}) has filters based on events. These cohorts can't be used in feature flags.`,
        'filters',
        'behavioral_cohort_found',
      );
    }
  }
}

/** Referenced cohorts must exist, and the references must not loop back to this cohort. */
async function checkReferences(ctx: AppContext, projectId: number, properties: Json, selfId: number | null): Promise<void> {
  const seen = new Set<number>();
  const queue = cohortReferences(properties);
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (selfId !== null && id === selfId) throw validationError('Cohorts cannot reference other cohorts in a loop.', 'filters');
    if (seen.has(id)) continue;
    seen.add(id);
    const cohort = await getCohort(ctx.database.db, projectId, id);
    if (!cohort) throw validationError(`Invalid Cohort ID in filter: ${id}`, 'filters');
    queue.push(...cohortReferences(cohort.filters?.properties));
  }
}

/**
 * Filters of a property cohort. `self` is the cohort being edited (null on create); `method` matters
 * because PostHog applies the feature-flag rule to PATCH only.
 */
export async function validateCohortFilters(
  ctx: AppContext,
  projectId: number,
  raw: unknown,
  self: Cohort | null,
  method: 'POST' | 'PATCH' | 'PUT',
): Promise<Json> {
  checkShape(raw);
  if (self && method === 'PATCH') await checkFlagConstraints(ctx, projectId, self, raw.properties);
  await checkReferences(ctx, projectId, raw.properties, self?.id ?? null);
  return raw;
}
