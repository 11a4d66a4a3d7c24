/**
 * The survey editor's form and PostHog's survey fields, both ways: questions of each type (choices
 * as rows, the open "Other" choice last, as posthog-js reads it), display conditions, appearance,
 * the linked flag and the person property filters that become the targeting flag.
 */
import type { FlagFilters } from '../../api/flags';
import type {
  QuestionType,
  Survey,
  SurveyAppearance,
  SurveyConditions,
  SurveyQuestion,
  SurveyType,
  SurveyWrite,
  UrlMatchType,
} from '../../api/surveys';
import { personFilter, personRow, type PropertyRow } from '../flags/flag-form';

export const QUESTION_TYPES: { value: QuestionType; label: string }[] = [
  { value: 'open', label: 'Freeform text' },
  { value: 'link', label: 'Link/Notification' },
  { value: 'rating', label: 'Rating' },
  { value: 'single_choice', label: 'Single choice select' },
  { value: 'multiple_choice', label: 'Multiple choice select' },
];

export const questionTypeLabel = (type: string) => QUESTION_TYPES.find((t) => t.value === type)?.label ?? type;

export const SURVEY_TYPES: { value: SurveyType; label: string }[] = [
  { value: 'popover', label: 'Popover' },
  { value: 'api', label: 'API' },
  { value: 'widget', label: 'Feedback button' },
];

export const URL_MATCH_TYPES: { value: UrlMatchType; label: string }[] = [
  { value: 'icontains', label: 'contains' },
  { value: 'not_icontains', label: "doesn't contain" },
  { value: 'exact', label: 'equals' },
  { value: 'regex', label: 'matches regex' },
  { value: 'not_regex', label: "doesn't match regex" },
];

export const POSITIONS = ['right', 'left', 'center'];

/** The scales PostHog offers for each rating display. */
export const RATING_SCALES: Record<'number' | 'emoji', number[]> = { number: [5, 7, 10], emoji: [3, 5] };

export interface QuestionRow {
  /** The stored question's id ('' for a new one: the API gives it one). */
  id: string;
  type: QuestionType;
  question: string;
  description: string;
  optional: boolean;
  buttonText: string;
  choices: { value: string }[];
  hasOpenChoice: boolean;
  shuffleOptions: boolean;
  display: 'number' | 'emoji';
  scale: string;
  lowerBoundLabel: string;
  upperBoundLabel: string;
  link: string;
  /** Fields of the stored question the form does not edit (branching, …), kept as they are. */
  rest: Record<string, unknown>;
}

export interface SurveyForm {
  name: string;
  description: string;
  type: SurveyType;
  questions: QuestionRow[];
  url: string;
  urlMatchType: UrlMatchType;
  selector: string;
  /** Days, as typed ('' for none). */
  waitPeriod: string;
  events: { name: string }[];
  repeatedActivation: boolean;
  backgroundColor: string;
  submitButtonColor: string;
  textColor: string;
  position: string;
  placeholder: string;
  displayThankYouMessage: boolean;
  thankYouMessageHeader: string;
  thankYouMessageDescription: string;
  /** '' for none, else the flag's id. */
  linkedFlagId: string;
  targeting: PropertyRow[];
  responsesLimit: string;
}

export function newQuestion(type: QuestionType = 'open'): QuestionRow {
  return {
    id: '',
    type,
    question: '',
    description: '',
    optional: false,
    buttonText: 'Submit',
    choices: [{ value: 'Yes' }, { value: 'No' }],
    hasOpenChoice: false,
    shuffleOptions: false,
    display: 'number',
    scale: '10',
    lowerBoundLabel: 'Unlikely',
    upperBoundLabel: 'Very likely',
    link: '',
    rest: {},
  };
}

export function newSurveyForm(): SurveyForm {
  return {
    name: '',
    description: '',
    type: 'popover',
    questions: [{ ...newQuestion('open'), question: 'What can we do to improve our product?' }],
    url: '',
    urlMatchType: 'icontains',
    selector: '',
    waitPeriod: '',
    events: [],
    repeatedActivation: false,
    backgroundColor: '#eeeded',
    submitButtonColor: '#000000',
    textColor: '#000000',
    position: 'right',
    placeholder: 'Start typing...',
    displayThankYouMessage: true,
    thankYouMessageHeader: 'Thank you for your feedback!',
    thankYouMessageDescription: '',
    linkedFlagId: '',
    targeting: [],
    responsesLimit: '',
  };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value == null ? '' : String(value));

const EDITED = new Set([
  'id',
  'type',
  'question',
  'description',
  'optional',
  'buttonText',
  'choices',
  'hasOpenChoice',
  'shuffleOptions',
  'display',
  'scale',
  'lowerBoundLabel',
  'upperBoundLabel',
  'link',
]);

function questionRow(question: SurveyQuestion): QuestionRow {
  const base = newQuestion(question.type);
  const rest = Object.fromEntries(Object.entries(question).filter(([key]) => !EDITED.has(key)));
  return {
    ...base,
    id: question.id ?? '',
    question: text(question.question),
    description: text(question.description),
    optional: question.optional === true,
    buttonText: text(question.buttonText),
    choices: question.choices ? question.choices.map((value) => ({ value })) : base.choices,
    hasOpenChoice: question.hasOpenChoice === true,
    shuffleOptions: question.shuffleOptions === true,
    display: question.display === 'emoji' ? 'emoji' : 'number',
    scale: question.scale ? String(question.scale) : base.scale,
    lowerBoundLabel: question.lowerBoundLabel ?? (question.type === 'rating' ? '' : base.lowerBoundLabel),
    upperBoundLabel: question.upperBoundLabel ?? (question.type === 'rating' ? '' : base.upperBoundLabel),
    link: text(question.link),
    rest,
  };
}

/** The person property filters of the survey's targeting flag (its first condition set). */
function targetingRows(survey: Survey) {
  const groups = survey.targeting_flag?.filters?.groups ?? [];
  return (groups[0]?.properties ?? []).filter((p) => p.type === 'person').map(personRow);
}

export function formFromSurvey(survey: Survey): SurveyForm {
  const conditions = survey.conditions ?? {};
  const appearance = survey.appearance ?? {};
  const defaults = newSurveyForm();
  const wait = conditions.seenSurveyWaitPeriodInDays;
  return {
    name: survey.name,
    description: survey.description ?? '',
    type: survey.type,
    questions: survey.questions.map(questionRow),
    url: text(conditions.url),
    urlMatchType: conditions.urlMatchType ?? 'icontains',
    selector: text(conditions.selector),
    waitPeriod: wait == null ? '' : String(wait),
    events: (conditions.events?.values ?? []).map((e) => ({ name: e.name })),
    repeatedActivation: conditions.events?.repeatedActivation === true,
    backgroundColor: appearance.backgroundColor ?? defaults.backgroundColor,
    submitButtonColor: appearance.submitButtonColor ?? defaults.submitButtonColor,
    textColor: appearance.textColor ?? defaults.textColor,
    position: appearance.position ?? defaults.position,
    placeholder: appearance.placeholder ?? '',
    displayThankYouMessage: appearance.displayThankYouMessage ?? false,
    thankYouMessageHeader: appearance.thankYouMessageHeader ?? '',
    thankYouMessageDescription: appearance.thankYouMessageDescription ?? '',
    linkedFlagId: survey.linked_flag_id == null ? (survey.linked_flag ? String(survey.linked_flag.id) : '') : String(survey.linked_flag_id),
    targeting: targetingRows(survey),
    responsesLimit: survey.responses_limit == null ? '' : String(survey.responses_limit),
  };
}

/** A question as PostHog stores it: only the fields of its type. */
export function questionFromRow(row: QuestionRow): SurveyQuestion {
  const question: SurveyQuestion = {
    ...row.rest,
    ...(row.id ? { id: row.id } : {}),
    type: row.type,
    question: row.question,
    description: row.description,
    optional: row.optional,
    buttonText: row.buttonText,
  };
  if (row.type === 'single_choice' || row.type === 'multiple_choice') {
    question.choices = row.choices.map((c) => c.value);
    question.hasOpenChoice = row.hasOpenChoice;
    question.shuffleOptions = row.shuffleOptions;
  } else if (row.type === 'rating') {
    question.display = row.display;
    question.scale = Number(row.scale);
    question.lowerBoundLabel = row.lowerBoundLabel;
    question.upperBoundLabel = row.upperBoundLabel;
  } else if (row.type === 'link') {
    question.link = row.link.trim() || null;
  }
  return question;
}

function conditionsFromForm(form: SurveyForm, stored: SurveyConditions | null | undefined): SurveyConditions {
  const wait = form.waitPeriod.trim();
  const events = form.events.map((e) => ({ name: e.name.trim() })).filter((e) => e.name !== '');
  return {
    ...(stored ?? {}),
    url: form.url.trim(),
    urlMatchType: form.urlMatchType,
    selector: form.selector.trim(),
    seenSurveyWaitPeriodInDays: wait === '' ? null : Number(wait),
    events: { repeatedActivation: form.repeatedActivation, values: events },
  };
}

function appearanceFromForm(form: SurveyForm, stored: SurveyAppearance | null | undefined): SurveyAppearance {
  return {
    ...(stored ?? {}),
    backgroundColor: form.backgroundColor,
    submitButtonColor: form.submitButtonColor,
    textColor: form.textColor,
    position: form.position,
    placeholder: form.placeholder,
    displayThankYouMessage: form.displayThankYouMessage,
    thankYouMessageHeader: form.thankYouMessageHeader,
    thankYouMessageDescription: form.thankYouMessageDescription,
  };
}

/** The targeting flag's filters: everyone matching the person property filters. */
export function targetingFilters(rows: PropertyRow[]): FlagFilters {
  return { groups: [{ properties: rows.map(personFilter), rollout_percentage: 100, variant: null }] };
}

/**
 * What the form saves. Targeting: filters when there are any; none on a survey that had a targeting
 * flag removes it (`remove_targeting_flag`), as PostHog's editor does.
 */
export function surveyFromForm(form: SurveyForm, survey?: Survey): SurveyWrite {
  const targeting = form.targeting.filter((row) => row.key.trim() !== '');
  const limit = form.responsesLimit.trim();
  const body: SurveyWrite = {
    name: form.name,
    description: form.description,
    type: form.type,
    questions: form.questions.map(questionFromRow),
    conditions: conditionsFromForm(form, survey?.conditions),
    appearance: appearanceFromForm(form, survey?.appearance),
    linked_flag_id: form.linkedFlagId === '' ? null : Number(form.linkedFlagId),
    responses_limit: limit === '' ? null : Number(limit),
  };
  if (targeting.length > 0) body.targeting_flag_filters = targetingFilters(targeting);
  else if (survey?.targeting_flag) {
    body.targeting_flag_filters = null;
    body.remove_targeting_flag = true;
  }
  return body;
}

/**
 * Where an API error belongs in the form: its `attr` (DRF's field path, `questions__0__link` or
 * `questions.0.link` for nested ones) as the section and, for questions, the question's index.
 */
export function errorPlace(attr: string | null | undefined): { field: string; index?: number } {
  if (!attr) return { field: 'root' };
  const [field, second] = attr.split(/__|\./);
  const index = second !== undefined && /^\d+$/.test(second) ? Number(second) : undefined;
  return { field: field ?? attr, index };
}

/** The parts of the editor an API error shows in when it is not on one input. */
export type SurveySection = 'questions' | 'conditions' | 'appearance' | 'linked' | 'targeting';

const SECTION_OF: Record<string, SurveySection> = {
  questions: 'questions',
  url: 'conditions',
  urlMatchType: 'conditions',
  selector: 'conditions',
  waitPeriod: 'conditions',
  events: 'conditions',
  repeatedActivation: 'conditions',
  backgroundColor: 'appearance',
  submitButtonColor: 'appearance',
  textColor: 'appearance',
  position: 'appearance',
  placeholder: 'appearance',
  displayThankYouMessage: 'appearance',
  thankYouMessageHeader: 'appearance',
  thankYouMessageDescription: 'appearance',
  linkedFlagId: 'linked',
  targeting: 'targeting',
  responsesLimit: 'targeting',
};

/** The section a form field (`questions.2.link`, `backgroundColor`, …) belongs to, so an edit there clears its error. */
export const sectionOfField = (name: string): SurveySection | undefined => SECTION_OF[name.split('.')[0] ?? name];

/** An appearance colour as posthog-js will use it: any CSS colour (the browser is the judge), or none for the default. */
export const isSurveyColour = (value: string, supports: (value: string) => boolean): boolean =>
  value.trim() === '' || supports(value.trim());
