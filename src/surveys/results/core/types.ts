/**
 * What survey results are computed from and what they answer (docs: the results contract of issue
 * 31, which the web app's survey page reads).
 */

export type QuestionType = 'open' | 'link' | 'rating' | 'single_choice' | 'multiple_choice';

/** A question as a survey stores it (PostHog's question JSON); only what results read. */
export interface QuestionDefinition {
  id?: string | null;
  type: string;
  question?: string;
  choices?: readonly string[];
  hasOpenChoice?: boolean;
  display?: string;
  scale?: number;
}

/** The survey as results need it, whatever loads it. */
export interface SurveyDefinition {
  id: string;
  questions: readonly QuestionDefinition[];
  start_date: string | null;
  end_date: string | null;
  created_at: string;
}

/**
 * One question's answers, as the store aggregates them over the survey's submissions (one row a
 * submission, the last `survey sent` of each): `answered` submissions gave a non-empty answer;
 * `values` counts each answered value (a multiple-choice answer counts each of its choices);
 * `answers` holds the newest answers for open and link questions.
 */
export interface QuestionAggregate {
  index: number;
  answered: number;
  values: readonly { value: string; count: number }[];
  answers: readonly AnswerRow[];
}

export interface AnswerRow {
  value: string;
  distinct_id: string;
  timestamp: string;
}

export interface ChoiceCount {
  label: string;
  count: number;
  is_open_choice?: boolean;
}

export interface RatingSummary {
  display: 'number' | 'emoji';
  scale: number;
  average: number | null;
  counts: { value: number; count: number }[];
}

export interface QuestionSummary {
  index: number;
  id: string | null;
  type: QuestionType;
  question: string;
  responses: number;
  choices?: ChoiceCount[];
  rating?: RatingSummary;
  answers?: AnswerRow[];
}

export interface SurveyResults {
  survey_id: string;
  date_range: { date_from: string; date_to: string };
  responses: number;
  questions: QuestionSummary[];
}
