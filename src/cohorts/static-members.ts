/**
 * Members of static cohorts: who a request names (body lists, an uploaded CSV), turning those ids
 * into persons, and PostHog's two member actions, `add_persons_to_static_cohort` and
 * `remove_person_from_static_cohort`, with their checks and `{"success": true}` answers.
 */
import { pyTruthy } from '../posthog/python-values.js';
import { canonicalUuid } from '../lib/uuid.js';
import type { AppContext } from '../context.js';
import { FLAGS_TOPIC } from '../flags/service.js';
import { loadOr404, validationError } from '../posthog/errors.js';
import { getPersonByUuid } from '../persons/store.js';
import type { Team } from '../environments/models.js';
import { membersFromCsv } from './csv-members.js';
import {
  addCohortMembers,
  personIdsForDistinctIds,
  personIdsForEmails,
  personIdsForUuids,
  removeCohortMember,
  updateCohort,
  type Cohort,
} from './store.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';

type Json = Record<string, unknown>;

/** PostHog's DEFAULT_COHORT_INSERT_BATCH_SIZE, the most persons one add request may name. */
const MAX_ADDED_PERSONS = 1000;

/** Who a request adds to a static cohort. */
export interface StaticMembersInput {
  distinctIds?: string[];
  personUuids?: string[];
  emails?: string[];
}

const validUuids = (items: unknown[]) =>
  items.flatMap((item) => {
    const uuid = typeof item === 'string' ? canonicalUuid(item) : undefined;
    return uuid ? [uuid] : [];
  });

function stringList(value: unknown, attr: string): string[] {
  if (!Array.isArray(value)) throw validationError(DRF_MESSAGES.notAList(value), attr, 'not_a_list');
  return value.map(String);
}

/** Members a create/update body names: `_create_static_person_ids` (PostHog), `person_ids` or `distinct_ids` (Hoglet's). */
export function membersFromBody(body: Json): StaticMembersInput {
  const input: StaticMembersInput = {};
  if ('distinct_ids' in body) input.distinctIds = stringList(body.distinct_ids, 'distinct_ids');
  if ('_create_static_person_ids' in body) input.personUuids = stringList(body._create_static_person_ids, '_create_static_person_ids');
  if ('person_ids' in body) input.personUuids = stringList(body.person_ids, 'person_ids');
  return input;
}

/** Adds the members an uploaded CSV lists (a 400 under `csv` for a file PostHog refuses). */
export function withCsvMembers(input: StaticMembersInput, csv: Buffer | string | undefined): StaticMembersInput {
  if (csv === undefined) return input;
  const { idType, ids } = membersFromCsv(csv);
  const field = idType === 'person_id' ? 'personUuids' : idType === 'email' ? 'emails' : 'distinctIds';
  return { ...input, [field]: [...(input[field] ?? []), ...ids] };
}

export const hasMembers = (input: StaticMembersInput) =>
  Boolean(input.distinctIds?.length || input.personUuids?.length || input.emails?.length);

async function announce(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.changes.publish({ topic: FLAGS_TOPIC, id: projectId });
}

/** Adds the persons behind the input to a static cohort (unknown ids are skipped) and stores the new size. */
export async function addMembers(ctx: AppContext, team: Team, cohort: Cohort, input: StaticMembersInput): Promise<Cohort> {
  const { db } = ctx.database;
  const personIds = [
    ...(await personIdsForDistinctIds(db, team.id, input.distinctIds ?? [])),
    ...(await personIdsForUuids(db, team.id, validUuids(input.personUuids ?? []))),
    ...(await personIdsForEmails(ctx.database, team.id, input.emails ?? [])),
  ];
  const count = await addCohortMembers(db, cohort.id, personIds);
  return updateCohort(db, cohort, { count });
}

/** PATCH …/add_persons_to_static_cohort/ with `{person_ids: [uuid, …]}`. */
export async function addPersonsToStaticCohort(ctx: AppContext, team: Team, cohort: Cohort, body: Json): Promise<{ success: true }> {
  if (!cohort.isStatic) throw validationError('Can only add users to static cohorts');
  const personIds = body.person_ids;
  if (!Array.isArray(personIds)) throw validationError('person_ids must be a list');
  if (personIds.length === 0) throw validationError('person_ids cannot be empty');
  if (personIds.length > MAX_ADDED_PERSONS) throw validationError('List size exceeds limit');
  const known = await personIdsForUuids(ctx.database.db, team.id, validUuids(personIds));
  if (known.length === 0) throw validationError('No valid users to add to cohort');
  const count = await addCohortMembers(ctx.database.db, cohort.id, known);
  await updateCohort(ctx.database.db, cohort, { count });
  await announce(ctx, team.projectId);
  return { success: true };
}

/** PATCH …/remove_person_from_static_cohort/ with `{person_id: uuid}`; removing a non-member succeeds too. */
export async function removePersonFromStaticCohort(ctx: AppContext, team: Team, cohort: Cohort, body: Json): Promise<{ success: true }> {
  if (!cohort.isStatic) throw validationError('Can only remove users from static cohorts');
  const personId = body.person_id;
  if (!pyTruthy(personId)) throw validationError('person_id is required');
  if (typeof personId !== 'string') throw validationError('person_id must be a string');
  const uuid = canonicalUuid(personId);
  if (!uuid) throw validationError('person_id must be a valid UUID');
  const person = await loadOr404(
    getPersonByUuid(ctx.database.db, team.id, uuid),
    "Person with this UUID does not exist in the cohort's team",
  );
  const count = await removeCohortMember(ctx.database.db, cohort.id, person.id);
  await updateCohort(ctx.database.db, cohort, { count });
  await announce(ctx, team.projectId);
  return { success: true };
}
