/**
 * The feature flags a survey makes for itself (PostHog's SurveySerializerCreateUpdateOnly):
 * the targeting flag built from `targeting_flag_filters`, and the internal targeting flag that
 * hides the survey from a person who has dismissed or answered it (posthog-js sets
 * `$survey_dismissed/<id>` and `$survey_responded/<id>` on the person when they do).
 */
type Json = Record<string, unknown>;

/** PostHog's SURVEY_TARGETING_FLAG_PREFIX; `/flags?only_evaluate_survey_feature_flags` keeps these. */
export const SURVEY_TARGETING_FLAG_PREFIX = 'survey-targeting-';

/**
 * A new flag key: the prefix, ten random hex digits (nanoid over `1234567890abcdef`) and an
 * optional suffix (`-custom` for the internal targeting flag), slugified (already a slug).
 */
export function surveyFlagKey(randomHex: string, suffix = ''): string {
  return `${SURVEY_TARGETING_FLAG_PREFIX}${randomHex}${suffix}`;
}

export const INTERNAL_FLAG_SUFFIX = '-custom';

/** The name PostHog gives a survey's flags. */
export function surveyFlagName(surveyName: string): string {
  return `Targeting flag for survey ${surveyName}`;
}

/**
 * The key of the person properties posthog-js sets for this survey: the survey id, and the
 * current iteration (1 when not started) for a recurring survey.
 */
export function interactionKey(survey: { id: string; iterationCount: number | null; currentIteration: number | null }): string {
  return survey.iterationCount !== null && survey.iterationCount > 0 ? `${survey.id}/${survey.currentIteration || 1}` : survey.id;
}

/**
 * `_add_user_survey_interacted_filters`: everyone who has neither dismissed nor answered; with a
 * wait period (`conditions.seenSurveyWaitPeriodInDays`), also only those who have not seen a survey
 * (`$survey_last_seen_date`, which posthog-js sets on `survey shown`) within that many days.
 */
export function interactedFilters(key: string, waitPeriodDays: number | null = null): Json {
  const notSet = (property: string) => ({ key: property, value: 'is_not_set', operator: 'is_not_set', type: 'person' });
  const base = [notSet(`$survey_dismissed/${key}`), notSet(`$survey_responded/${key}`)];
  const group = (properties: Json[]) => ({ variant: '', rollout_percentage: 100, properties });
  if (waitPeriodDays === null || waitPeriodDays <= 0) return { groups: [group(base)] };
  const days = Math.trunc(waitPeriodDays);
  return {
    groups: [
      group([...base, notSet(LAST_SEEN_DATE)]),
      group([...base, { key: LAST_SEEN_DATE, value: `${days}d`, operator: 'is_date_before', type: 'person' }]),
    ],
  };
}

const LAST_SEEN_DATE = '$survey_last_seen_date';

/** The wait period a survey's conditions ask for, in days (null without one). */
export function waitPeriodDays(conditions: Json | null): number | null {
  const days = conditions?.seenSurveyWaitPeriodInDays;
  return typeof days === 'number' && Number.isFinite(days) ? days : null;
}

/**
 * The internal targeting flag's filters on a save: the stored ones with the interaction filters
 * laid over them (PostHog puts the new ones last, so a new iteration's keys replace the old).
 */
export function internalFlagFilters(key: string, stored: Json | undefined, waitDays: number | null = null): Json {
  return { ...(stored ?? {}), ...interactedFilters(key, waitDays) };
}

/** Whether the internal flag is on: a launched survey, unless this save ends it (`end_date` in the request). */
export function internalFlagActive(startDate: string | null, requestEndDate: string | null | undefined): boolean {
  return startDate !== null && !requestEndDate;
}
