/**
 * A survey's results per question, from its question definitions and the store's per-question
 * aggregates, in the shape the survey page reads:
 *
 * - single and multiple choice: every choice in the question's order (zeros included), then the
 *   answers that are none of them (an open choice's typed text, or a choice since renamed) by
 *   count, each marked `is_open_choice`. A multiple-choice submission counts once per choice.
 * - rating: every value of the scale (0–10 for a 10-point number scale, as posthog-js draws it,
 *   1–scale otherwise), zeros included, and the average of the answers on the scale; answers off
 *   the scale are left out of both.
 * - open and link: the newest answers first, at most MAX_ANSWERS.
 *
 * A question's `responses` counts the submissions that answered it: a skipped optional question
 * (no key, null or an empty answer) counts in the survey's responses but not in the question's.
 */
import type {
  AnswerRow,
  ChoiceCount,
  QuestionAggregate,
  QuestionDefinition,
  QuestionSummary,
  QuestionType,
  RatingSummary,
  SurveyDefinition,
  SurveyResults,
} from './types.js';

/** Open and link answers listed per question. */
export const MAX_ANSWERS = 100;
/** Answers that are none of a choice question's choices, listed per question (most given first). */
export const MAX_OTHER_CHOICES = 100;

const TYPES: readonly QuestionType[] = ['open', 'link', 'rating', 'single_choice', 'multiple_choice'];

/** The question's type; a type results do not know reads as open text (its answers listed). */
export function questionType(question: QuestionDefinition): QuestionType {
  return (TYPES as readonly string[]).includes(question.type) ? (question.type as QuestionType) : 'open';
}

/** Whether the question's answers are listed (open, link) rather than counted. */
export const isListed = (type: QuestionType): boolean => type === 'open' || type === 'link';

/**
 * The event properties an answer to the question may be in, first found first: posthog-js's
 * `$survey_response_<question id>`, then the key by position older SDKs sent (and posthog-js still
 * sends beside it): `$survey_response` for the first question, `$survey_response_<index>` after.
 */
export function responseKeys(question: QuestionDefinition, index: number): string[] {
  const legacy = index === 0 ? '$survey_response' : `$survey_response_${index}`;
  const id = typeof question.id === 'string' && question.id !== '' ? question.id : null;
  return id === null || `$survey_response_${id}` === legacy ? [legacy] : [`$survey_response_${id}`, legacy];
}

/** The rating question's display and scale: PostHog's default is a 10-point number scale. */
export function ratingScale(question: QuestionDefinition): { display: 'number' | 'emoji'; scale: number; values: number[] } {
  const display = question.display === 'emoji' ? 'emoji' : 'number';
  const given = question.scale;
  const scale = typeof given === 'number' && Number.isInteger(given) && given >= 1 && given <= 100 ? given : display === 'emoji' ? 5 : 10;
  const first = display === 'number' && scale === 10 ? 0 : 1;
  return { display, scale, values: Array.from({ length: scale - first + 1 }, (_, i) => first + i) };
}

/** A rating answer as a whole number ("7", 7, "7.0"), or null when it is not one. */
export function ratingValue(value: string): number | null {
  const text = value.trim();
  if (!/^-?\d+(\.0*)?$/.test(text)) return null;
  return Number.parseInt(text, 10);
}

function ratingSummary(question: QuestionDefinition, aggregate: QuestionAggregate | undefined): RatingSummary {
  const { display, scale, values } = ratingScale(question);
  const counts = new Map(values.map((v) => [v, 0]));
  for (const { value, count } of aggregate?.values ?? []) {
    const rating = ratingValue(value);
    if (rating !== null && counts.has(rating)) counts.set(rating, counts.get(rating)! + count);
  }
  let total = 0;
  let sum = 0;
  for (const [value, count] of counts) {
    total += count;
    sum += value * count;
  }
  return {
    display,
    scale,
    average: total === 0 ? null : sum / total,
    counts: values.map((value) => ({ value, count: counts.get(value)! })),
  };
}

function choiceCounts(question: QuestionDefinition, aggregate: QuestionAggregate | undefined): ChoiceCount[] {
  const choices = (question.choices ?? []).filter((c): c is string => typeof c === 'string');
  // An open choice is the last one; its answers are what people typed, not its label.
  const predefined = [...new Set(question.hasOpenChoice ? choices.slice(0, -1) : choices)];
  const counts = new Map<string, number>();
  for (const { value, count } of aggregate?.values ?? []) counts.set(value, (counts.get(value) ?? 0) + count);
  const known = new Set(predefined);
  const others = [...counts]
    .filter(([value]) => !known.has(value))
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_OTHER_CHOICES)
    .map(([label, count]) => ({ label, count, is_open_choice: true }));
  return [...predefined.map((label) => ({ label, count: counts.get(label) ?? 0 })), ...others];
}

function newestAnswers(aggregate: QuestionAggregate | undefined): AnswerRow[] {
  const answers = [...(aggregate?.answers ?? [])];
  answers.sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
  return answers.slice(0, MAX_ANSWERS).map(({ value, distinct_id, timestamp }) => ({ value, distinct_id, timestamp }));
}

export function questionSummary(question: QuestionDefinition, index: number, aggregate: QuestionAggregate | undefined): QuestionSummary {
  const type = questionType(question);
  const summary: QuestionSummary = {
    index,
    id: typeof question.id === 'string' && question.id !== '' ? question.id : null,
    type,
    question: typeof question.question === 'string' ? question.question : '',
    responses: aggregate?.answered ?? 0,
  };
  if (type === 'single_choice' || type === 'multiple_choice') summary.choices = choiceCounts(question, aggregate);
  else if (type === 'rating') summary.rating = ratingSummary(question, aggregate);
  else summary.answers = newestAnswers(aggregate);
  return summary;
}

/** The whole answer: every question of the survey, in its order, answered or not. */
export function surveyResults(
  survey: Pick<SurveyDefinition, 'id' | 'questions'>,
  range: { from: Date; to: Date },
  responses: number,
  aggregates: readonly QuestionAggregate[],
): SurveyResults {
  const byIndex = new Map(aggregates.map((a) => [a.index, a]));
  return {
    survey_id: survey.id,
    date_range: { date_from: range.from.toISOString(), date_to: range.to.toISOString() },
    responses,
    questions: survey.questions.map((question, index) => questionSummary(question, index, byIndex.get(index))),
  };
}

/** A stored question (JSON) as results read it; what is not an object reads as an open question without text. */
export function readQuestion(value: unknown): QuestionDefinition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { type: 'open' };
  const q = value as Record<string, unknown>;
  const question: QuestionDefinition = { type: typeof q.type === 'string' ? q.type : 'open' };
  if (typeof q.id === 'string') question.id = q.id;
  if (typeof q.question === 'string') question.question = q.question;
  if (Array.isArray(q.choices)) question.choices = q.choices.filter((c): c is string => typeof c === 'string');
  if (typeof q.hasOpenChoice === 'boolean') question.hasOpenChoice = q.hasOpenChoice;
  if (typeof q.display === 'string') question.display = q.display;
  if (typeof q.scale === 'number') question.scale = q.scale;
  return question;
}
