/** A survey (PostHog's Survey model), in the project of `project_id`, made in environment `team_id`. */
export interface SurveysTable {
  /** A uuid (PostHog's UUIDTModel). */
  id: string;
  project_id: number;
  team_id: number;
  name: string;
  description: string;
  type: string;
  schedule: string | null;
  linked_flag_id: number | null;
  targeting_flag_id: number | null;
  internal_targeting_flag_id: number | null;
  questions: unknown;
  conditions: unknown;
  appearance: unknown;
  start_date: string | null;
  end_date: string | null;
  archived: boolean | number;
  responses_limit: number | null;
  iteration_count: number | null;
  iteration_frequency_days: number | null;
  /** A JSON list of datetimes, or null (PostHog's nullable ArrayField). */
  iteration_start_dates: unknown;
  current_iteration: number | null;
  current_iteration_start_date: string | null;
  response_sampling_start_date: string | null;
  response_sampling_interval_type: string | null;
  response_sampling_interval: number | null;
  response_sampling_limit: number | null;
  response_sampling_daily_limits: unknown;
  enable_partial_responses: boolean | number | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface SurveysTables {
  surveys: SurveysTable;
}
