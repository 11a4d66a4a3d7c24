/**
 * A cohort's members (PostHog's CohortViewSet `persons` action, `GET …/cohorts/:id/persons/`),
 * and a dynamic cohort's size (its calculation, calculator.ts).
 *
 * A static cohort's are its member list, read through the persons list's cohort filter. A dynamic
 * cohort's are judged now: the environment's persons against the cohort's definition, as `/flags`
 * judges a cohort-targeted flag, by their stored properties, a batch at a time. That reads every
 * person of the environment, so it is refused past MAX_JUDGED persons rather than left to run for
 * minutes (the listing answers 400; a calculation records an error).
 */
import type { AppContext } from '../context.js';
import type { Team } from '../environments/models.js';
import { liveCohortInputs } from '../flags/definitions-cache.js';
import { createCohortResolver, FlagEvaluationError, isCohortMember, judgedPersonProperties } from '../flags/engine/index.js';
import { listPersons } from '../persons/list-store.js';
import type { Person } from '../persons/store.js';
import { validationError } from '../posthog/errors.js';
import { listProjectCohorts, personsBatch, staticMembershipsOfPersons, teamPersonCount, type Cohort } from './store.js';

export const MAX_JUDGED = 200_000;
const BATCH = 1000;

/** An environment with more persons than a dynamic cohort may be judged against. */
export class TooManyPersonsError extends Error {
  constructor(readonly maxJudged: number) {
    super(`This environment has more than ${maxJudged} persons: Hoglet does not judge a dynamic cohort's members at that size.`);
  }
}

export interface JudgeOptions {
  /** The most persons judged (MAX_JUDGED unless given). */
  maxJudged?: number;
  /** Called after each batch: may throw to stop (a calculation given up), or renew a claim. */
  afterBatch?: () => Promise<void>;
}

/**
 * Judges every person of the environment against a dynamic cohort's definition, newest first, and
 * hands each member to `onMember`. False when the definition names a missing or cyclic cohort: it
 * has no members then, as in flags. Throws TooManyPersonsError past `maxJudged` persons.
 */
async function judgeMembers(
  ctx: AppContext,
  team: Team,
  cohort: Cohort,
  onMember: (person: Person) => void,
  options: JudgeOptions = {},
): Promise<boolean> {
  const { db } = ctx.database;
  const maxJudged = options.maxJudged ?? MAX_JUDGED;
  // Counted first (one indexed read), so a large environment is refused before any batch is read.
  if ((await teamPersonCount(db, team.id)) > maxJudged) throw new TooManyPersonsError(maxJudged);
  const cohorts = await listProjectCohorts(db, team.projectId);
  const { dynamic, staticIds } = liveCohortInputs(cohorts);
  // A deleted cohort is still shown with its definition.
  if (!(String(cohort.id) in dynamic))
    dynamic[String(cohort.id)] = liveCohortInputs([{ ...cohort, deleted: false }]).dynamic[String(cohort.id)]!;
  const base = createCohortResolver(dynamic, staticIds, []);
  const env = { timezone: typeof team.settings.timezone === 'string' ? team.settings.timezone : 'UTC', now: new Date() };

  let judged = 0;
  let before: number | null = null;
  for (;;) {
    const batch = await personsBatch(db, team.id, before, BATCH);
    if (batch.length === 0) return true;
    judged += batch.length;
    // Persons may arrive while the batches are read.
    if (judged > maxJudged) throw new TooManyPersonsError(maxJudged);
    const memberships = await staticMembershipsOfPersons(
      db,
      batch.map((p) => p.id),
      staticIds,
    );
    for (const person of batch) {
      const resolver = { ...base, staticMemberships: new Set((memberships.get(person.id) ?? []).map(String)), memberships: new Map() };
      try {
        if (isCohortMember(String(cohort.id), judgedPersonProperties(person), env, resolver)) onMember(person);
      } catch (error) {
        if (!(error instanceof FlagEvaluationError)) throw error;
        return false;
      }
    }
    before = batch[batch.length - 1]!.id;
    await options.afterBatch?.();
  }
}

/** How many persons of the environment a dynamic cohort's definition matches now. */
export async function countDynamicCohort(ctx: AppContext, team: Team, cohort: Cohort, options: JudgeOptions = {}): Promise<number> {
  let count = 0;
  const valid = await judgeMembers(ctx, team, cohort, () => count++, options);
  return valid ? count : 0;
}

export async function cohortMembers(
  ctx: AppContext,
  team: Team,
  cohort: Cohort,
  page: { limit: number; offset: number },
): Promise<{ count: number; persons: Person[] }> {
  if (cohort.isStatic) {
    return listPersons(ctx.database, team, { properties: [], cohorts: [{ cohortId: cohort.id, negated: false }] }, page);
  }
  const members: Person[] = [];
  let count = 0;
  const onMember = (person: Person) => {
    if (count >= page.offset && members.length < page.limit) members.push(person);
    count++;
  };
  try {
    const valid = await judgeMembers(ctx, team, cohort, onMember);
    return valid ? { count, persons: members } : { count: 0, persons: [] };
  } catch (error) {
    if (error instanceof TooManyPersonsError) {
      throw validationError(
        `This environment has more than ${MAX_JUDGED} persons: Hoglet does not list a dynamic cohort's members at that size.`,
      );
    }
    throw error;
  }
}
