/**
 * The checks of PostHog's SurveySerializerCreateUpdateOnly.validate and update that look at
 * several fields at once, in its order and with its messages, as pure functions of the values
 * (the service looks up what they need: the linked flag, the clock).
 */
import { SurveyRuleError, truthy } from './questions.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The variant keys of a flag's filters (`FeatureFlag.variants`). */
export function flagVariants(filters: Json): string[] {
  const multivariate = isObject(filters.multivariate) ? filters.multivariate : {};
  const variants = Array.isArray(multivariate.variants) ? multivariate.variants : [];
  return variants.filter(isObject).map((variant) => String(variant.key));
}

/**
 * `conditions.linkedFlagVariant`: "any" or one of the linked flag's variants; only with a linked
 * flag. `linkedFlag` is the flag the request names (undefined when it names none).
 */
export function checkLinkedFlagVariant(
  conditions: Json | null,
  linkedFlagId: number | null,
  linkedFlag: { filters: Json } | undefined,
): void {
  const variant = conditions?.linkedFlagVariant;
  if (truthy(variant) && linkedFlag && variant !== 'any') {
    const available = flagVariants(linkedFlag.filters);
    if (!available.includes(variant as string)) {
      throw new SurveyRuleError(
        available.length > 0
          ? `Feature flag variant '${String(variant)}' does not exist. Available variants: ${available.join(', ')}`
          : `Feature flag variant '${String(variant)}' specified but the linked feature flag has no variants`,
      );
    }
  } else if (truthy(variant) && !truthy(linkedFlagId)) {
    throw new SurveyRuleError('linkedFlagVariant can only be used when a linked_flag_id is specified');
  }
}

/** Targeting that every user passes is refused: a survey without targeting does the same. */
export function checkTargetingFilters(filters: unknown): void {
  if (!truthy(filters) || !isObject(filters)) return;
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const fullRollout = groups.some((group) => {
    if (!isObject(group)) return false;
    const rollout = group.rollout_percentage;
    const properties = group.properties;
    return (rollout === 100 || rollout === null || rollout === undefined) && (!Array.isArray(properties) || properties.length === 0);
  });
  if (fullRollout) {
    throw new SurveyRuleError(
      'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
    );
  }
}

/** Python's `str()` of an aware UTC datetime: `YYYY-MM-DD HH:MM:SS[.ffffff]+00:00`. */
function pythonUtc(iso: string): string {
  const date = new Date(iso);
  const micros = date.getUTCMilliseconds() * 1000;
  const base = date.toISOString().slice(0, 19).replace('T', ' ');
  return `${base}${micros ? `.${String(micros).padStart(6, '0')}` : ''}+00:00`;
}

export interface SamplingFields {
  responseSamplingStartDate: string | null;
  responseSamplingInterval: number | null;
  responseSamplingLimit: number | null;
}

/** The response-sampling checks, given `now` (ISO). Only fields the request sets are checked (as `data.get`). */
export function checkSampling(fields: Partial<SamplingFields>, nowIso: string): void {
  const start = fields.responseSamplingStartDate ?? null;
  if (start !== null) {
    const today = `${nowIso.slice(0, 10)}T00:00:00.000Z`;
    if (new Date(start).getTime() < new Date(today).getTime()) {
      throw new SurveyRuleError(
        `Response sampling start date must be today or a future date in UTC. Got ${pythonUtc(start)} when current time is ${pythonUtc(today)}`,
        'response_sampling_start_date',
      );
    }
  }
  const interval = fields.responseSamplingInterval ?? null;
  if (interval !== null && interval <= 0) {
    throw new SurveyRuleError('Response sampling interval must be greater than 0.', 'response_sampling_interval');
  }
  const limit = fields.responseSamplingLimit === undefined ? 0 : fields.responseSamplingLimit;
  // PostHog compares a missing interval with 0 here and fails with a server error; Hoglet reads it as not set.
  if (limit !== null && limit > 0 && interval !== null && interval > 0 && start === null) {
    throw new SurveyRuleError(
      'Response sampling start date should be set if response_sampling_start_date is not zero.',
      'response_sampling_start_date',
    );
  }
}

const EXTERNAL_FIELDS = ['linked_flag_id', 'targeting_flag_filters'] as const;
const EXTERNAL_CONDITION_FIELDS = [
  'url',
  'urlMatchType',
  'selector',
  'seenSurveyWaitPeriodInDays',
  'linkedFlagVariant',
  'deviceTypes',
  'deviceTypesMatchType',
];

/**
 * An `external_survey` (a hosted survey page) takes no display conditions, targeting or delay.
 * `data` holds the request's values under their API names. PostHog reports every problem at
 * once as a dict; its envelope names the first field.
 */
export function checkExternalSurvey(data: Json): void {
  if (data.type !== 'external_survey') return;
  const errors: Array<[string, string]> = [];
  for (const field of EXTERNAL_FIELDS) {
    if (data[field] !== undefined && data[field] !== null) errors.push([field, `${field} is not allowed for external surveys`]);
  }
  const conditions = data.conditions;
  if (truthy(conditions) && isObject(conditions)) {
    const found = EXTERNAL_CONDITION_FIELDS.filter((field) => field in conditions && conditions[field] !== null);
    for (const field of ['actions', 'events']) {
      const value = conditions[field];
      if (isObject(value) && truthy(value.values)) found.push(field);
    }
    if (found.length > 0)
      errors.push(['conditions', `The following condition fields are not allowed for external surveys: ${found.join(', ')}`]);
  }
  const appearance = data.appearance;
  if (isObject(appearance) && 'surveyPopupDelaySeconds' in appearance && appearance.surveyPopupDelaySeconds !== null) {
    errors.push(['appearance', 'surveyPopupDelaySeconds is not allowed for external surveys']);
  }
  if (errors.length > 0) throw new SurveyRuleError(errors[0]![1], errors[0]![0]);
}

/** `update`: the recurrence cannot drop below the iteration a survey has reached. */
export function checkIterationCount(currentIteration: number | null, iterationCount: number | null | undefined): void {
  if (
    currentIteration !== null &&
    iterationCount !== null &&
    iterationCount !== undefined &&
    currentIteration > iterationCount &&
    iterationCount > 0
  ) {
    throw new SurveyRuleError(`Cannot change survey recurrence to ${iterationCount}, should be at least ${currentIteration}`);
  }
}
