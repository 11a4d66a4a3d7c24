/**
 * The cohorts a person is in (PostHog's PersonViewSet `cohorts`, `GET …/persons/cohorts/?person_id=`).
 *
 * PostHog reads the memberships its cohort calculation wrote. Hoglet computes no memberships of
 * dynamic cohorts ahead (see the persons list's cohort filter), so a person's are judged now, as
 * `/decide` judges them for a cohort-targeted flag: a static cohort by its member list, a dynamic
 * one by its property definition against the person's stored properties (behavioural filters match
 * no one, as in flags). A cohort that names a missing or cyclic cohort has no members.
 */
import type { Kysely } from 'kysely';
import { listProjectCohorts, staticMembershipsOf } from '../cohorts/store.js';
import type { Schema } from '../platform/db/schema.js';
import { liveCohortInputs } from '../flags/definitions-cache.js';
import { createCohortResolver, FlagEvaluationError, isCohortMember, judgedPersonProperties } from '../flags/engine/index.js';
import type { Team } from '../environments/models.js';
import type { Person } from './store.js';

type Db = Kysely<Schema>;

/**
 * PostHog's CohortMinimalSerializer, and the state of the cohort's calculation, so that a page can
 * say "Calculating…" without reading each cohort again.
 */
export interface MinimalCohort {
  id: number;
  name: string;
  count: number | null;
  is_calculating: boolean;
  errors_calculating: number;
}

export async function cohortsOfPerson(db: Db, team: Team, person: Person): Promise<MinimalCohort[]> {
  const cohorts = await listProjectCohorts(db, team.projectId);
  const { dynamic, staticIds } = liveCohortInputs(cohorts);
  const resolver = createCohortResolver(dynamic, staticIds, await staticMembershipsOf(db, person.id, staticIds));
  const env = { timezone: typeof team.settings.timezone === 'string' ? team.settings.timezone : 'UTC', now: new Date() };
  const properties = judgedPersonProperties(person);
  const isMember = (id: number) => {
    try {
      return isCohortMember(String(id), properties, env, resolver);
    } catch (error) {
      if (error instanceof FlagEvaluationError) return false;
      throw error;
    }
  };
  return cohorts
    .filter((cohort) => !cohort.deleted && isMember(cohort.id))
    .map((cohort) => ({
      id: cohort.id,
      name: cohort.name,
      count: cohort.count,
      is_calculating: cohort.isCalculating,
      errors_calculating: cohort.errorsCalculating,
    }));
}
