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

/** `_add_user_survey_interacted_filters`: everyone who has neither dismissed nor answered. */
export function interactedFilters(key: string): Json {
  const notSet = (property: string) => ({ key: `${property}/${key}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' });
  return {
    groups: [{ variant: '', rollout_percentage: 100, properties: [notSet('$survey_dismissed'), notSet('$survey_responded')] }],
  };
}

/**
 * The internal targeting flag's filters on a save: an existing flag keeps its own filters (PostHog
 * merges the new ones under the stored ones), a new one gets `interactedFilters`.
 */
export function internalFlagFilters(key: string, stored: Json | undefined): Json {
  return { ...interactedFilters(key), ...(stored ?? {}) };
}

/** Whether the internal flag is on: a launched survey, unless this save ends it (`end_date` in the request). */
export function internalFlagActive(startDate: string | null, requestEndDate: string | null | undefined): boolean {
  return startDate !== null && !requestEndDate;
}
