/**
 * CohortSerializer.validate_filters: the shape of `{properties: {type, values}}` (PostHog checks
 * it with pydantic models and reports missing keys by name), the feature-flag rule for cohorts
 * flags use (`_validate_feature_flag_constraints`), then references to other cohorts.
 */
import type { AppContext } from '../context.js';
import { listProjectFlags } from '../flags/store.js';
import { validationError } from '../posthog/errors.js';
import { isJsonObject } from '../lib/json-object.js';
import { pythonRepr, pythonStr } from '../posthog/python-text.js';
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

/** Fields each filter model requires, in declaration order (pydantic reports the first missing one). */
const REQUIRED_FIELDS: Record<string, string[]> = {
  behavioral: ['key', 'value', 'event_type'],
  cohort: ['key', 'value'],
  person: ['key'],
};

/**
 * PostHog's "Missing required keys for <kind> filter: ..." for one leaf, if any. A person filter
 * also needs `operator`, and `value` unless the operator is is_set / is_not_set
 * (PersonValueValidationMixin); JSON null counts as missing there.
 */
function missingKeys(leaf: Json): string | undefined {
  const kind = typeof leaf.type === 'string' ? leaf.type : '';
  if (!Object.hasOwn(REQUIRED_FIELDS, kind)) return undefined;
  const required = REQUIRED_FIELDS[kind]!;
  const absent = required.find((field) => !(field in leaf));
  if (absent) return `Missing required keys for ${kind} filter: ${absent}`;
  if (kind !== 'person') return undefined;
  const missing: string[] = [];
  const operator = leaf.operator ?? null;
  if ((leaf.value ?? null) === null && operator !== 'is_set' && operator !== 'is_not_set') missing.push('value');
  if (operator === null) missing.push('operator');
  return missing.length > 0 ? `Missing required keys for ${kind} filter: ${missing.join(', ')}` : undefined;
}

function checkGroup(group: unknown, depth = 0): void {
  if (!isJsonObject(group)) throw validationError(SHAPE_ERROR, 'filters');
  if (isGroup(group)) {
    if (group.type !== 'AND' && group.type !== 'OR') throw validationError(SHAPE_ERROR, 'filters');
    for (const value of group.values as unknown[]) checkGroup(value, depth + 1);
    return;
  }
  if (depth === 0 || (typeof group.key !== 'string' && typeof group.key !== 'number')) throw validationError(SHAPE_ERROR, 'filters');
}

/**
 * The tags of PostHog's `FilterOrGroup` union, as pydantic lists them: a member of a group's
 * `values` whose `type` is none of these (or that has no `type`) is refused, so a filter kind
 * Hoglet cannot judge (`event`, a typo) never lands and silently matches no one.
 */
const MEMBER_TAGS: unknown[] = ['behavioral', 'cohort', 'person', 'person_metadata', 'AND', 'OR'];
const EXPECTED_TAGS = MEMBER_TAGS.map((tag) => `'${String(tag)}'`).join(', ');
/** PostHog pins pydantic 2.10; its error links name that minor version. */
const PYDANTIC_ERRORS = 'https://errors.pydantic.dev/2.10/v/';

interface Member {
  node: Json;
  loc: Array<string | number>;
}

/** Every object among a group's `values`, with pydantic's location; tagged unions add the tag. */
function members(group: Json, loc: Array<string | number> = ['properties'], into: Member[] = []): Member[] {
  if (!Array.isArray(group.values)) return into;
  group.values.forEach((node: unknown, index) => {
    if (!isJsonObject(node)) return;
    const at = [...loc, 'values', index];
    into.push({ node, loc: at });
    if (node.type === 'AND' || node.type === 'OR') members(node, [...at, node.type], into);
  });
  return into;
}

/** pydantic's error dict for a member the discriminator cannot place, as Python prints it. */
function tagError({ node, loc }: Member): string {
  const where = `'loc': (${loc.map(pythonRepr).join(', ')})`;
  if (!('type' in node)) {
    return `{'type': 'union_tag_not_found', ${where}, 'msg': "Unable to extract tag using discriminator 'type'", 'input': ${pythonRepr(node)}, 'ctx': {'discriminator': "'type'"}, 'url': '${PYDANTIC_ERRORS}union_tag_not_found'}`;
  }
  const tag = pythonStr(node.type);
  const msg = `Input tag '${tag}' found using 'type' does not match any of the expected tags: ${EXPECTED_TAGS}`;
  const ctx = pythonRepr({ discriminator: "'type'", tag, expected_tags: EXPECTED_TAGS });
  return `{'type': 'union_tag_invalid', ${where}, 'msg': ${pythonRepr(msg)}, 'input': ${pythonRepr(node)}, 'ctx': ${ctx}, 'url': '${PYDANTIC_ERRORS}union_tag_invalid'}`;
}

/**
 * The shape check. Missing-key messages win over other shape problems, as PostHog picks them out
 * first; then members of no known kind, which PostHog reports as `str(exc.errors())`, pydantic's
 * raw list (`_cohort_error_message`'s fallback). Hoglet lists the tag errors only: pydantic's other
 * complaints (extra keys, say) are not mirrored.
 */
function checkShape(raw: unknown): asserts raw is { properties: Json } {
  if (!isJsonObject(raw) || !isJsonObject(raw.properties)) throw validationError(SHAPE_ERROR, 'filters');
  // Filters sit inside the top group; a bare filter there is a shape error, not a missing key.
  const all = isGroup(raw.properties) ? members(raw.properties) : [];
  for (const { node } of all) {
    const message = missingKeys(node);
    if (message) throw validationError(message, 'filters');
  }
  const untagged = all.filter(({ node }) => !MEMBER_TAGS.includes(node.type));
  if (untagged.length > 0) throw validationError(`[${untagged.map(tagError).join(', ')}]`, 'filters');
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
