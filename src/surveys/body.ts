/**
 * Reading a survey's create or update body as PostHog's SurveySerializerCreateUpdateOnly does:
 * each field's DRF type first, in the serializer's field order, then its `validate_<field>`.
 * The first problem is answered, as PostHog's envelope names one field.
 */
import { DRF_MESSAGES, FieldError, parseBoolean, parseChoice, parseDateTime, parseInteger, parseString } from '../posthog/drf-fields.js';
import { validationError } from '../posthog/errors.js';
import { validateAppearance, validateConditions, validateQuestions, validateSchedule, SurveyRuleError } from './core/questions.js';
import { MAX_ITERATION_COUNT } from './core/schedule.js';
import type { SurveyFields } from './store.js';

type Json = Record<string, unknown>;

export const SURVEY_TYPES = ['popover', 'widget', 'external_survey', 'api'] as const;
const SAMPLING_INTERVAL_TYPES = ['day', 'week', 'month'] as const;
/** PositiveIntegerField's range on PostgreSQL. */
const MAX_POSITIVE = 2_147_483_647;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A survey body's validated values: stored fields, plus the write-only targeting instructions. */
export interface SurveyInput extends Partial<SurveyFields> {
  targetingFlagFilters?: Json | null;
  removeTargetingFlag?: boolean | null;
}

function field<T>(attr: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) throw validationError(error.detail, attr, error.code);
    if (error instanceof SurveyRuleError) throw validationError(error.detail, error.attr, error.code);
    throw error;
  }
}

function nullable<T>(attr: string, value: unknown, read: (value: unknown) => T): T | null {
  if (value === null) return null;
  return field(attr, () => read(value));
}

function notNull(attr: string, value: unknown): void {
  if (value === null) throw validationError(DRF_MESSAGES.null, attr, 'null');
}

/** A DRF JSONField: any JSON value (a JSON body holds nothing else). */
const json = (value: unknown) => value;

function dateTimeList(attr: string, value: unknown): string[] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || typeof value === 'string') {
    throw validationError(DRF_MESSAGES.notAList(value), attr, 'not_a_list');
  }
  return value.map((item) =>
    item === null ? (null as unknown as string) : field(attr, () => new Date(parseDateTime(item)).toISOString()),
  );
}

const isoDate = (value: unknown) => new Date(parseDateTime(value)).toISOString();

/**
 * The body's fields, checked. `creating`: name and type are required. The rules that look at
 * several fields (SurveySerializer.validate) are the service's.
 */
export function readSurveyBody(body: Json, creating: boolean): SurveyInput {
  const input: SurveyInput = {};
  const has = (name: string) => name in body;

  if (has('name')) {
    notNull('name', body.name);
    input.name = field('name', () => parseString(body.name, { allowBlank: false, maxLength: 400 }));
  } else if (creating) throw validationError(DRF_MESSAGES.required, 'name', 'required');
  if (has('description')) {
    notNull('description', body.description);
    input.description = field('description', () => parseString(body.description, { allowBlank: true }));
  }
  if (has('type')) {
    notNull('type', body.type);
    input.type = field('type', () => parseChoice(body.type, SURVEY_TYPES));
  } else if (creating) throw validationError(DRF_MESSAGES.required, 'type', 'required');
  if (has('schedule')) {
    const schedule = nullable('schedule', body.schedule, (v) => parseString(v, { allowBlank: false }));
    input.schedule = field('schedule', () => validateSchedule(schedule));
  }
  if (has('linked_flag_id')) {
    input.linkedFlagId = nullable('linked_flag_id', body.linked_flag_id, (v) => parseInteger(v, -MAX_SAFE, MAX_SAFE));
  }
  if (has('targeting_flag_filters')) {
    const filters = body.targeting_flag_filters;
    if (filters !== null && (typeof filters !== 'object' || Array.isArray(filters))) {
      throw validationError('Targeting flag filters must be an object of feature flag filters.', 'targeting_flag_filters');
    }
    input.targetingFlagFilters = filters as Json | null;
  }
  if (has('remove_targeting_flag')) input.removeTargetingFlag = nullable('remove_targeting_flag', body.remove_targeting_flag, parseBoolean);
  if (has('questions')) input.questions = field('questions', () => validateQuestions(json(body.questions)));
  if (has('conditions')) input.conditions = field('conditions', () => validateConditions(json(body.conditions)));
  if (has('appearance')) input.appearance = field('appearance', () => validateAppearance(json(body.appearance), true));
  if (has('start_date')) input.startDate = nullable('start_date', body.start_date, isoDate);
  if (has('end_date')) input.endDate = nullable('end_date', body.end_date, isoDate);
  if (has('archived')) {
    notNull('archived', body.archived);
    input.archived = field('archived', () => parseBoolean(body.archived));
  }
  const positive = (attr: string, max = MAX_POSITIVE) => nullable(attr, body[attr], (v) => parseInteger(v, 0, max));
  if (has('responses_limit')) input.responsesLimit = positive('responses_limit');
  if (has('iteration_count')) input.iterationCount = positive('iteration_count', MAX_ITERATION_COUNT);
  if (has('iteration_frequency_days')) input.iterationFrequencyDays = positive('iteration_frequency_days');
  if (has('iteration_start_dates')) input.iterationStartDates = dateTimeList('iteration_start_dates', body.iteration_start_dates);
  if (has('current_iteration')) input.currentIteration = positive('current_iteration');
  if (has('current_iteration_start_date')) {
    input.currentIterationStartDate = nullable('current_iteration_start_date', body.current_iteration_start_date, isoDate);
  }
  if (has('response_sampling_start_date')) {
    input.responseSamplingStartDate = nullable('response_sampling_start_date', body.response_sampling_start_date, isoDate);
  }
  if (has('response_sampling_interval_type')) {
    const value = body.response_sampling_interval_type;
    input.responseSamplingIntervalType =
      value === null || value === ''
        ? (value as null)
        : field('response_sampling_interval_type', () => parseChoice(value, SAMPLING_INTERVAL_TYPES));
  }
  if (has('response_sampling_interval')) input.responseSamplingInterval = positive('response_sampling_interval');
  if (has('response_sampling_limit')) input.responseSamplingLimit = positive('response_sampling_limit');
  if (has('response_sampling_daily_limits')) input.responseSamplingDailyLimits = json(body.response_sampling_daily_limits);
  if (has('enable_partial_responses'))
    input.enablePartialResponses = nullable('enable_partial_responses', body.enable_partial_responses, parseBoolean);
  return input;
}
