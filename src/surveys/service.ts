/**
 * Surveys' operations, as PostHog's SurveySerializerCreateUpdateOnly and SurveyViewSet do them:
 * the cross-field rules, the flags a survey makes for itself (targeting and internal targeting,
 * core/targeting.ts), the activity log, and the change notices that drop cached flags and the
 * surveys served to posthog-js.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { recordActivity, type ActivityChange } from '../activity/store.js';
import type { AppContext } from '../context.js';
import type { Team, User } from '../environments/models.js';
import { FLAGS_TOPIC, flagValidationLookups } from '../flags/service.js';
import { getFlag, hardDeleteFlag, insertFlag, setFlagActive, updateFlag, type FeatureFlag } from '../flags/store.js';
import { validateFilters } from '../flags/validation.js';
import { validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import { readSurveyBody, type SurveyInput } from './body.js';
import { SurveyRuleError } from './core/questions.js';
import { checkExternalSurvey, checkIterationCount, checkLinkedFlagVariant, checkSampling, checkTargetingFilters } from './core/rules.js';
import { samplingDailyLimits, surveyIterations } from './core/schedule.js';
import {
  INTERNAL_FLAG_SUFFIX,
  interactionKey,
  internalFlagActive,
  internalFlagFilters,
  waitPeriodDays,
  surveyFlagKey,
  surveyFlagName,
} from './core/targeting.js';
import { deleteSurvey, getSurvey, insertSurvey, surveyNameTaken, updateSurvey, type Survey, type SurveyFields } from './store.js';

type Json = Record<string, unknown>;

/** Announced when a project's surveys change (the public list and the remote config are cached per project). */
export const SURVEYS_TOPIC = 'surveys';

async function announce(ctx: AppContext, projectId: number): Promise<void> {
  await ctx.changes.publish({ topic: FLAGS_TOPIC, id: projectId });
  await ctx.changes.publish({ topic: SURVEYS_TOPIC, id: projectId });
}

function rule<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof SurveyRuleError) throw validationError(error.detail, error.attr, error.code);
    throw error;
  }
}

function timezoneOf(team: Team): string {
  return typeof team.settings.timezone === 'string' ? team.settings.timezone : 'UTC';
}

/** PostHog's `create_flag_with_survey_errors`: a behavioural cohort's message speaks of surveys. */
async function surveyFlagErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const e = error as { code?: string; detail?: string };
    if (e.code === 'behavioral_cohort_found' && typeof e.detail === 'string') {
      throw validationError(e.detail.replace('feature flags', 'surveys'), null, 'behavioral_cohort_found');
    }
    throw error;
  }
}

/** Ten hex digits, as PostHog's `generate("1234567890abcdef", 10)`. */
const randomHex = () => randomBytes(5).toString('hex');

/** `_create_or_update_targeting_flag` for a new flag. */
async function createSurveyFlag(
  ctx: AppContext,
  team: Team,
  user: User,
  filters: Json,
  surveyName: string,
  active: boolean,
  suffix = '',
): Promise<FeatureFlag> {
  return surveyFlagErrors(async () => {
    const key = surveyFlagKey(randomHex(), suffix);
    const validated = await validateFilters(
      filters,
      { method: 'POST', currentKey: key, stored: undefined, timezone: timezoneOf(team) },
      flagValidationLookups(ctx, team.projectId),
    );
    return insertFlag(ctx.database.db, {
      projectId: team.projectId,
      teamId: team.id,
      key,
      name: surveyFlagName(surveyName),
      filters: validated,
      active,
      ensureExperienceContinuity: false,
      isRemoteConfiguration: false,
      evaluationRuntime: 'all',
      bucketingIdentifier: null,
      tags: [],
      userId: user.id,
    });
  });
}

/** `_create_or_update_targeting_flag` for an existing flag: its filters replaced (a partial flag update). */
async function updateSurveyFlagFilters(ctx: AppContext, team: Team, user: User, flag: FeatureFlag, filters: Json): Promise<FeatureFlag> {
  return surveyFlagErrors(async () => {
    const validated = await validateFilters(
      filters,
      { method: 'PATCH', currentKey: flag.key, stored: flag, timezone: timezoneOf(team) },
      flagValidationLookups(ctx, team.projectId),
    );
    return (await updateFlag(ctx.database.db, flag, { filters: validated }, user.id)) ?? flag;
  });
}

/** SurveySerializer.validate's checks, in its order, on the request's values. */
async function checkSurvey(ctx: AppContext, team: Team, input: SurveyInput, body: Json, existing: Survey | undefined): Promise<void> {
  const { db } = ctx.database;
  let linkedFlag: FeatureFlag | undefined;
  if (input.linkedFlagId !== undefined && input.linkedFlagId !== null) {
    linkedFlag = await getFlag(db, team.projectId, input.linkedFlagId);
    if (!linkedFlag || linkedFlag.deleted) throw validationError('Feature Flag with this ID does not exist');
  }
  rule(() => checkLinkedFlagVariant(input.conditions ?? null, input.linkedFlagId ?? null, linkedFlag));
  if (!existing && (await surveyNameTaken(db, team.projectId, input.name!))) {
    throw validationError('There is already a survey with this name.', null, 'unique');
  }
  if (
    existing &&
    input.name !== undefined &&
    input.name !== existing.name &&
    (await surveyNameTaken(db, team.projectId, input.name, existing.id))
  ) {
    throw validationError('There is already another survey with this name.', null, 'unique');
  }
  rule(() => checkTargetingFilters(input.targetingFlagFilters));
  rule(() => checkSampling(input, new Date().toISOString()));
  rule(() =>
    checkExternalSurvey({
      type: input.type,
      linked_flag_id: 'linked_flag_id' in body ? input.linkedFlagId : undefined,
      targeting_flag_filters: input.targetingFlagFilters,
      conditions: input.conditions,
      appearance: input.appearance,
    }),
  );
}

/** The fields every save recomputes (the model's pre_save): iterations, sampling limits, question ids. */
function onSave(fields: SurveyFields): SurveyFields {
  const iterations = surveyIterations(fields);
  const daily = samplingDailyLimits(fields);
  return {
    ...fields,
    ...iterations,
    responseSamplingDailyLimits: daily,
    questions: fields.questions && fields.questions.map((q) => (q.id ? q : { ...q, id: randomUUID() })),
  };
}

function storedFields(input: SurveyInput, base: SurveyFields): SurveyFields {
  const { targetingFlagFilters: _filters, removeTargetingFlag: _remove, ...fields } = input;
  const merged = { ...base };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  return merged;
}

const NEW_SURVEY: SurveyFields = {
  name: '',
  description: '',
  type: 'popover',
  schedule: 'once',
  linkedFlagId: null,
  targetingFlagId: null,
  internalTargetingFlagId: null,
  questions: null,
  conditions: null,
  appearance: null,
  startDate: null,
  endDate: null,
  archived: false,
  responsesLimit: null,
  iterationCount: null,
  iterationFrequencyDays: null,
  iterationStartDates: null,
  currentIteration: null,
  currentIterationStartDate: null,
  responseSamplingStartDate: null,
  responseSamplingIntervalType: 'week',
  responseSamplingInterval: null,
  responseSamplingLimit: null,
  responseSamplingDailyLimits: null,
  enablePartialResponses: false,
};

/**
 * `_add_user_survey_interacted_filters`: the internal targeting flag, made on first save, its
 * interaction filters renewed on every save and its activity following the survey's
 * (`requestEndDate`: the request's end date).
 */
async function syncInternalFlag(
  ctx: AppContext,
  team: Team,
  user: User,
  survey: Survey,
  requestEndDate: string | null | undefined,
): Promise<Survey> {
  const { db } = ctx.database;
  const key = interactionKey(survey);
  const active = internalFlagActive(survey.startDate, requestEndDate);
  const existing = survey.internalTargetingFlagId === null ? undefined : await getFlag(db, team.projectId, survey.internalTargetingFlagId);
  if (existing) {
    const filters = internalFlagFilters(key, existing.filters, waitPeriodDays(survey.conditions));
    const updated = await updateSurveyFlagFilters(ctx, team, user, existing, filters);
    if (updated.active !== active) await setFlagActive(db, team.projectId, updated.id, active);
    return survey;
  }
  const filters = internalFlagFilters(key, undefined, waitPeriodDays(survey.conditions));
  const flag = await createSurveyFlag(ctx, team, user, filters, survey.name, active, INTERNAL_FLAG_SUFFIX);
  return updateSurvey(db, survey, { internalTargetingFlagId: flag.id });
}

async function logSurvey(
  ctx: AppContext,
  team: Team,
  user: User,
  survey: Survey,
  activity: string,
  changes?: ActivityChange[],
): Promise<void> {
  await recordActivity(ctx.database.db, {
    organizationId: team.organizationId,
    teamId: team.id,
    scope: 'Survey',
    itemId: survey.id,
    activity,
    actor: { userId: user.id },
    name: survey.name,
    ...(changes ? { changes } : {}),
  });
}

export async function createSurvey(ctx: AppContext, team: Team, user: User, raw: unknown): Promise<Survey> {
  const body = serializerData(raw);
  const input = readSurveyBody(body, true);
  await checkSurvey(ctx, team, input, body, undefined);
  const { db } = ctx.database;
  const fields = storedFields(input, NEW_SURVEY);
  if (input.targetingFlagFilters && Object.keys(input.targetingFlagFilters).length > 0) {
    // PostHog makes the targeting flag inactive here; the first update turns it on.
    const flag = await createSurveyFlag(ctx, team, user, input.targetingFlagFilters, fields.name, false);
    fields.targetingFlagId = flag.id;
  }
  let survey = await insertSurvey(db, { projectId: team.projectId, teamId: team.id, userId: user.id, ...onSave(fields) });
  survey = await syncInternalFlag(ctx, team, user, survey, undefined);
  await logSurvey(ctx, team, user, survey, 'created');
  await announce(ctx, team.projectId);
  return survey;
}

/** The fields of a survey the activity log compares (PostHog's `changes_between` on the model). */
function loggedFields(survey: Survey): Json {
  return {
    name: survey.name,
    description: survey.description,
    type: survey.type,
    schedule: survey.schedule,
    linked_flag: survey.linkedFlagId,
    questions: survey.questions,
    conditions: survey.conditions,
    appearance: survey.appearance,
    start_date: survey.startDate,
    end_date: survey.endDate,
    archived: survey.archived,
    responses_limit: survey.responsesLimit,
    iteration_count: survey.iterationCount,
    iteration_frequency_days: survey.iterationFrequencyDays,
    enable_partial_responses: survey.enablePartialResponses,
  };
}

function diff(before: Json, after: Json): ActivityChange[] {
  return Object.keys(after)
    .filter((field) => JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field] ?? null))
    .map((field) => ({ type: 'Survey', action: 'changed' as const, field, before: before[field] ?? null, after: after[field] ?? null }));
}

export async function editSurvey(ctx: AppContext, team: Team, user: User, survey: Survey, raw: unknown): Promise<Survey> {
  const body = serializerData(raw);
  const input = readSurveyBody(body, false);
  await checkSurvey(ctx, team, input, body, survey);
  // Checked before any flag is touched: a refused edit changes nothing.
  rule(() => checkIterationCount(survey.currentIteration, input.iterationCount));
  const { db } = ctx.database;
  const changes: ActivityChange[] = [];
  let current = survey;

  if (input.removeTargetingFlag && current.targetingFlagId !== null) {
    const flag = await getFlag(db, team.projectId, current.targetingFlagId);
    changes.push({ type: 'Survey', action: 'deleted', field: 'targeting_flag', before: flag?.key ?? null, after: null });
    await hardDeleteFlag(db, team.projectId, current.targetingFlagId);
    current = await updateSurvey(db, current, { targetingFlagId: null });
  }

  const filters = input.targetingFlagFilters;
  let targetingFlagId = current.targetingFlagId;
  if (filters && Object.keys(filters).length > 0) {
    const existing = targetingFlagId === null ? undefined : await getFlag(db, team.projectId, targetingFlagId);
    if (existing) {
      changes.push({ type: 'Survey', action: 'changed', field: 'targeting_flag_filters', before: existing.filters, after: filters });
      await updateSurveyFlagFilters(ctx, team, user, existing, { ...existing.filters, ...filters });
    } else {
      const flag = await createSurveyFlag(ctx, team, user, filters, current.name, current.startDate !== null);
      changes.push({ type: 'Survey', action: 'created', field: 'targeting_flag_filters', before: null, after: filters });
      targetingFlagId = flag.id;
    }
  }

  // The targeting flag follows the survey: on while it runs, off once the request ends it.
  if (current.targetingFlagId !== null) await setFlagActive(db, team.projectId, current.targetingFlagId, !input.endDate);

  const fields = storedFields(input, current);
  if (input.iterationCount !== undefined && input.iterationCount !== null) {
    fields.iterationFrequencyDays = input.iterationFrequencyDays ?? null;
  }
  fields.targetingFlagId = targetingFlagId;
  const updated = await updateSurvey(db, current, onSave(fields));
  changes.push(...diff(loggedFields(survey), loggedFields(updated)));
  await logSurvey(ctx, team, user, updated, 'updated', changes);
  const synced = await syncInternalFlag(ctx, team, user, updated, input.endDate);
  await announce(ctx, team.projectId);
  return synced;
}

/** DELETE: the survey goes for good, and so do its targeting flags (PostHog's `destroy`). */
export async function removeSurvey(ctx: AppContext, team: Team, user: User, survey: Survey): Promise<void> {
  const { db } = ctx.database;
  if (survey.targetingFlagId !== null) await hardDeleteFlag(db, team.projectId, survey.targetingFlagId);
  if (survey.internalTargetingFlagId !== null) await hardDeleteFlag(db, team.projectId, survey.internalTargetingFlagId);
  await logSurvey(ctx, team, user, survey, 'deleted');
  await deleteSurvey(db, survey);
  await announce(ctx, team.projectId);
}

export { getSurvey };
