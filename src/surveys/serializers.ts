/**
 * A survey in PostHog's three shapes: SurveySerializer (list and retrieve),
 * SurveySerializerCreateUpdateOnly (the answer to a create or an update) and SurveyAPISerializer
 * (what posthog-js is served, without the description).
 */
import type { Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { formatDrfDateTime } from '../posthog/drf-datetime.js';
import { minimalFlag, UserDirectory } from '../flags/serializers.js';
import { listProjectFlags, type FeatureFlag } from '../flags/store.js';
import { serializeUserBasic } from '../environments/serializers.js';
import type { Survey } from './store.js';

type Db = Kysely<Schema>;

/** The flags and users a page of surveys names, read once per page. */
export class SurveyLookups {
  private flags?: Promise<Map<number, FeatureFlag>>;
  readonly users: UserDirectory;
  constructor(
    private readonly db: Db,
    private readonly projectId: number,
  ) {
    this.users = new UserDirectory(db);
  }
  async flag(id: number | null): Promise<FeatureFlag | undefined> {
    if (id === null) return undefined;
    this.flags ??= listProjectFlags(this.db, this.projectId, { includeDeleted: true }).then((all) => new Map(all.map((f) => [f.id, f])));
    return (await this.flags).get(id);
  }
}

const drfDate = (iso: string | null) => (iso === null ? null : formatDrfDateTime(new Date(iso)));

async function common(survey: Survey, lookups: SurveyLookups) {
  const [linked, targeting, internal, creator] = await Promise.all([
    lookups.flag(survey.linkedFlagId),
    lookups.flag(survey.targetingFlagId),
    lookups.flag(survey.internalTargetingFlagId),
    lookups.users.get(survey.createdById),
  ]);
  return { linked, targeting, internal, createdBy: creator ? serializeUserBasic(creator) : null };
}

function samplingAndIterations(survey: Survey) {
  return {
    iteration_count: survey.iterationCount,
    iteration_frequency_days: survey.iterationFrequencyDays,
    iteration_start_dates: survey.iterationStartDates && survey.iterationStartDates.map((d) => drfDate(d)),
    current_iteration: survey.currentIteration,
    current_iteration_start_date: drfDate(survey.currentIterationStartDate),
    response_sampling_start_date: drfDate(survey.responseSamplingStartDate),
    response_sampling_interval_type: survey.responseSamplingIntervalType,
    response_sampling_interval: survey.responseSamplingInterval,
    response_sampling_limit: survey.responseSamplingLimit,
    response_sampling_daily_limits: survey.responseSamplingDailyLimits,
    enable_partial_responses: survey.enablePartialResponses,
  };
}

/** The fields SurveySerializer and SurveySerializerCreateUpdateOnly share, in PostHog's order. */
function sharedFields(survey: Survey, { linked, targeting, internal, createdBy }: Awaited<ReturnType<typeof common>>) {
  return {
    id: survey.id,
    name: survey.name,
    description: survey.description,
    type: survey.type,
    schedule: survey.schedule,
    linked_flag: linked ? minimalFlag(linked) : null,
    targeting_flag: targeting ? minimalFlag(targeting) : null,
    internal_targeting_flag: internal ? minimalFlag(internal) : null,
    questions: survey.questions,
    conditions: survey.conditions,
    appearance: survey.appearance,
    created_at: drfDate(survey.createdAt),
    created_by: createdBy,
    start_date: drfDate(survey.startDate),
    end_date: drfDate(survey.endDate),
    archived: survey.archived,
    responses_limit: survey.responsesLimit,
  };
}

/** SurveySerializer: the shared fields with `linked_flag_id`, `feature_flag_keys` and the access level. */
export async function serializeSurvey(survey: Survey, lookups: SurveyLookups) {
  const flags = await common(survey, lookups);
  const { linked, targeting, internal } = flags;
  return {
    ...sharedFields(survey, flags),
    linked_flag_id: linked ? linked.id : null,
    feature_flag_keys: [
      { key: 'linked_flag_key', value: linked?.key ?? null },
      { key: 'targeting_flag_key', value: targeting?.key ?? null },
      { key: 'internal_targeting_flag_key', value: internal?.key ?? null },
      { key: 'internal_response_sampling_flag_key', value: null },
    ],
    ...samplingAndIterations(survey),
    user_access_level: 'editor',
  };
}

/** SurveySerializerCreateUpdateOnly's answer: no `linked_flag_id`, `feature_flag_keys` or access level. */
export async function serializeWrittenSurvey(survey: Survey, lookups: SurveyLookups) {
  return { ...sharedFields(survey, await common(survey, lookups)), ...samplingAndIterations(survey) };
}

/** SurveyAPISerializer: what posthog-js reads. Missing flags are left out, as DRF skips a null source. */
export async function serializePublicSurvey(survey: Survey, lookups: SurveyLookups) {
  const [linked, targeting, internal] = await Promise.all([
    lookups.flag(survey.linkedFlagId),
    lookups.flag(survey.targetingFlagId),
    lookups.flag(survey.internalTargetingFlagId),
  ]);
  return {
    id: survey.id,
    name: survey.name,
    type: survey.type,
    ...(linked ? { linked_flag_key: linked.key } : {}),
    ...(targeting ? { targeting_flag_key: targeting.key } : {}),
    ...(internal ? { internal_targeting_flag_key: internal.key } : {}),
    questions: survey.questions,
    conditions: survey.conditions,
    appearance: survey.appearance,
    start_date: drfDate(survey.startDate),
    end_date: drfDate(survey.endDate),
    current_iteration: survey.currentIteration,
    current_iteration_start_date: drfDate(survey.currentIterationStartDate),
    schedule: survey.schedule,
    enable_partial_responses: survey.enablePartialResponses,
  };
}
