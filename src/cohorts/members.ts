/**
 * A cohort's members (PostHog's CohortViewSet `persons` action, `GET …/cohorts/:id/persons/`).
 *
 * A static cohort's are its member list, read through the persons list's cohort filter. PostHog
 * reads a dynamic cohort's from its last calculation; Hoglet calculates none ahead (see
 * persons/person-cohorts.ts), so the environment's persons are judged now against the cohort's
 * definition, as `/flags` judges a cohort-targeted flag: by their stored properties, a batch at a
 * time. That reads every person of the environment, so it is refused past MAX_JUDGED persons
 * rather than left to run for minutes.
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { liveCohortInputs } from '../flags/definitions-cache.js';
import { createCohortResolver, FlagEvaluationError, isCohortMember } from '../flags/engine/index.js';
import { listPersons } from '../persons/list-store.js';
import type { Person } from '../persons/store.js';
import { validationError } from '../posthog/errors.js';
import { listProjectCohorts, personsBatch, staticMembershipsOfPersons, type Cohort } from './store.js';

export const MAX_JUDGED = 200_000;
const BATCH = 1000;

export async function cohortMembers(
  ctx: AppContext,
  team: Team,
  cohort: Cohort,
  page: { limit: number; offset: number },
): Promise<{ count: number; persons: Person[] }> {
  if (cohort.isStatic) {
    return listPersons(ctx.database, team, { properties: [], cohorts: [{ cohortId: cohort.id, negated: false }] }, page);
  }
  const { db } = ctx.database;
  const cohorts = await listProjectCohorts(db, team.projectId);
  const { dynamic, staticIds } = liveCohortInputs(cohorts);
  // A deleted cohort is still shown with its definition.
  if (!(String(cohort.id) in dynamic))
    dynamic[String(cohort.id)] = liveCohortInputs([{ ...cohort, deleted: false }]).dynamic[String(cohort.id)]!;
  const base = createCohortResolver(dynamic, staticIds, []);
  const env = { timezone: typeof team.settings.timezone === 'string' ? team.settings.timezone : 'UTC', now: new Date() };

  const members: Person[] = [];
  let count = 0;
  let judged = 0;
  let before: number | null = null;
  for (;;) {
    const batch = await personsBatch(db, team.id, before, BATCH);
    if (batch.length === 0) break;
    judged += batch.length;
    if (judged > MAX_JUDGED) {
      throw validationError(
        `This environment has more than ${MAX_JUDGED} persons: Hoglet does not list a dynamic cohort's members at that size.`,
      );
    }
    const memberships = await staticMembershipsOfPersons(
      db,
      batch.map((p) => p.id),
      staticIds,
    );
    for (const person of batch) {
      const resolver = { ...base, staticMemberships: new Set((memberships.get(person.id) ?? []).map(String)), memberships: new Map() };
      let member: boolean;
      try {
        member = isCohortMember(String(cohort.id), person.properties, env, resolver);
      } catch (error) {
        if (!(error instanceof FlagEvaluationError)) throw error;
        return { count: 0, persons: [] }; // a missing or cyclic reference: no members, as in flags
      }
      if (!member) continue;
      if (count >= page.offset && members.length < page.limit) members.push(person);
      count++;
    }
    before = batch[batch.length - 1]!.id;
  }
  return { count, persons: members };
}
