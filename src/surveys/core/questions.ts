/**
 * `validate_questions`, `validate_appearance`, `validate_schedule` of PostHog's
 * SurveySerializerCreateUpdateOnly, with their messages, and the model's `ensure_question_ids`.
 * Each problem is a SurveyRuleError naming the field (DRF reports a field validator's error under
 * the field's name).
 */
import { cleanHtml, isHtml } from './html.js';

type Json = Record<string, unknown>;

export class SurveyRuleError extends Error {
  constructor(
    readonly detail: string,
    readonly attr: string | null = null,
    readonly code = 'invalid_input',
  ) {
    super(detail);
  }
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Python truthiness of a JSON value. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

export const ALLOWED_LINK_URL_SCHEMES = ['https', 'mailto'];
const EMAIL_LINK = /^mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/;

/** Python's urlparse: the scheme (lower-cased; empty when there is none) and the network location. */
export function parseLink(link: string): { scheme: string; netloc: string } {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(link);
  const rest = scheme ? link.slice(scheme[0].length) : link;
  const netloc = rest.startsWith('//') ? rest.slice(2).split(/[/?#]/)[0]! : '';
  return { scheme: scheme ? scheme[1]!.toLowerCase() : '', netloc };
}

const questionsError = (detail: string) => new SurveyRuleError(detail, 'questions');

function validateLink(link: unknown): void {
  if (typeof link !== 'string')
    throw questionsError(`Link must be a URL with one of these schemes: [${ALLOWED_LINK_URL_SCHEMES.join(', ')}]`);
  const { scheme, netloc } = parseLink(link);
  if (!ALLOWED_LINK_URL_SCHEMES.includes(scheme)) {
    throw questionsError(`Link must be a URL with one of these schemes: [${ALLOWED_LINK_URL_SCHEMES.join(', ')}]`);
  }
  if (scheme === 'mailto' && !EMAIL_LINK.test(link)) {
    throw questionsError('Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).');
  }
  if (scheme === 'https' && netloc === '') throw questionsError('Invalid HTTPS URL. Please enter a valid HTTPS link.');
}

/**
 * Questions a survey may have: Hoglet's bound (PostHog has none), which keeps the results' one
 * ClickHouse statement per survey within the engine's query size.
 */
export const MAX_QUESTIONS = 100;

/** Unset text: posthog-js renders nothing for it. */
const isAbsentText = (value: unknown) => value === undefined || value === null;

/**
 * `validate_questions`: null stays null; otherwise a list of question objects, their HTML cleaned.
 * Texts posthog-js may render as HTML must be strings: PostHog's cleaner fails on anything else,
 * and an array would reach the page uncleaned.
 */
export function validateQuestions(value: unknown): Json[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw questionsError('Questions must be a list of objects');
  if (value.length > MAX_QUESTIONS) throw questionsError(`A survey can have at most ${MAX_QUESTIONS} questions`);
  return value.map((raw: unknown) => {
    if (!isObject(raw)) throw questionsError('Questions must be a list of objects');
    const question: Json = { ...raw };
    const text = raw.question;
    if (!truthy(text)) throw questionsError('Question text is required');
    if (typeof text !== 'string') throw questionsError('Question text must be a string');
    if (isHtml(text)) question.question = cleanHtml(text);
    const description = raw.description;
    if (!isAbsentText(description) && typeof description !== 'string') throw questionsError('Question description must be a string');
    if (typeof description === 'string' && description !== '' && isHtml(description)) question.description = cleanHtml(description);
    const contentType = raw.descriptionContentType;
    if (truthy(contentType) && contentType !== 'text' && contentType !== 'html') {
      throw questionsError("Question descriptionContentType must be one of ['text', 'html']");
    }
    const choices = raw.choices;
    if (truthy(choices)) {
      if (!Array.isArray(choices)) throw questionsError('Question choices must be a list of strings');
      if (choices.some((choice) => typeof choice !== 'string')) throw questionsError('Question choices must be a list of strings');
      if (choices.some((choice) => (choice as string).trim() === '')) throw questionsError('Question choices cannot be empty');
    }
    if (truthy(raw.link)) validateLink(raw.link);
    return question;
  });
}

/** The model's `ensure_question_ids`: every question without an id gets a new uuid. */
export function withQuestionIds(questions: Json[] | null, newId: () => string): Json[] | null {
  if (!questions) return questions;
  return questions.map((question) => (truthy(question.id) ? question : { ...question, id: newId() }));
}

const appearanceError = (detail: string) => new SurveyRuleError(detail, 'appearance');

/** `validate_appearance`: an object (or null), its thank-you texts cleaned of unsafe markup. */
export function validateAppearance(value: unknown, whiteLabellingAvailable: boolean): Json | null {
  if (value === null) return null;
  if (!isObject(value)) throw appearanceError('Appearance must be an object');
  const appearance: Json = { ...value };
  for (const field of ['thankYouMessageHeader', 'thankYouMessageDescription']) {
    const text = appearance[field];
    if (!isAbsentText(text) && typeof text !== 'string') throw appearanceError(`${field} must be a string`);
    if (typeof text === 'string' && text !== '' && isHtml(text)) appearance[field] = cleanHtml(text);
  }
  const contentType = appearance.thankYouMessageDescriptionContentType;
  if (truthy(contentType) && contentType !== 'text' && contentType !== 'html') {
    throw appearanceError("thankYouMessageDescriptionContentType must be one of ['text', 'html']");
  }
  const delay = appearance.surveyPopupDelaySeconds;
  if (typeof delay === 'number' && delay < 0) throw appearanceError('Survey popup delay seconds must be a positive integer');
  const whiteLabel = appearance.whiteLabel;
  if (whiteLabel !== undefined && whiteLabel !== null && typeof whiteLabel !== 'boolean')
    throw appearanceError('whiteLabel must be a boolean');
  if (whiteLabel === true && !whiteLabellingAvailable)
    throw appearanceError('You need to upgrade to PostHog Enterprise to use white labelling');
  return appearance;
}

/** `validate_conditions` (the shape; actions are not kept by Hoglet). */
export function validateConditions(value: unknown): Json | null {
  if (value === null) return null;
  if (!isObject(value)) throw new SurveyRuleError('Conditions must be an object', 'conditions');
  return value;
}

export const SCHEDULES = ['once', 'recurring', 'always'] as const;

/** `validate_schedule`. */
export function validateSchedule(value: string | null): string | null {
  if (value !== null && !(SCHEDULES as readonly string[]).includes(value)) {
    throw new SurveyRuleError('Schedule must be one of: once, recurring, always', 'schedule');
  }
  return value;
}
