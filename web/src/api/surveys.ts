/**
 * Surveys: PostHog's `/api/projects/:project_id/surveys/` (SurveySerializer's shape), the response
 * counts of the list (`responses_count/`), a survey's `stats/` (shown, dismissed, sent) and its
 * `results/`: the `survey sent` answers summarised per question.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Paginated } from './client';
import type { FeatureFlag, FlagFilters, UserBasic } from './flags';

export type SurveyType = 'popover' | 'widget' | 'api' | 'external_survey';
export type QuestionType = 'open' | 'link' | 'rating' | 'single_choice' | 'multiple_choice';

export interface SurveyQuestion {
  id?: string;
  type: QuestionType;
  question: string;
  description?: string | null;
  optional?: boolean;
  buttonText?: string;
  /** Choice questions. With `hasOpenChoice`, the last choice is the open "Other" one. */
  choices?: string[];
  hasOpenChoice?: boolean;
  shuffleOptions?: boolean;
  /** Rating questions. */
  display?: 'number' | 'emoji';
  scale?: number;
  lowerBoundLabel?: string;
  upperBoundLabel?: string;
  /** Link questions. */
  link?: string | null;
  branching?: unknown;
}

export type UrlMatchType = 'icontains' | 'not_icontains' | 'exact' | 'regex' | 'not_regex';

export interface SurveyConditions {
  url?: string;
  urlMatchType?: UrlMatchType;
  selector?: string;
  seenSurveyWaitPeriodInDays?: number | null;
  events?: { repeatedActivation?: boolean; values: { name: string }[] } | null;
  [other: string]: unknown;
}

export interface SurveyAppearance {
  backgroundColor?: string;
  submitButtonColor?: string;
  submitButtonTextColor?: string;
  textColor?: string;
  borderColor?: string;
  ratingButtonColor?: string;
  ratingButtonActiveColor?: string;
  position?: string;
  placeholder?: string;
  displayThankYouMessage?: boolean;
  thankYouMessageHeader?: string;
  thankYouMessageDescription?: string;
  [other: string]: unknown;
}

/** The flag fields a survey carries (PostHog's MinimalFeatureFlagSerializer). */
export type SurveyFlag = Pick<FeatureFlag, 'id' | 'key' | 'name' | 'filters' | 'active' | 'deleted'>;

export interface Survey {
  id: string;
  name: string;
  description: string;
  type: SurveyType;
  linked_flag: SurveyFlag | null;
  linked_flag_id: number | null;
  targeting_flag: SurveyFlag | null;
  internal_targeting_flag: SurveyFlag | null;
  questions: SurveyQuestion[];
  conditions: SurveyConditions | null;
  appearance: SurveyAppearance | null;
  created_at: string;
  created_by: UserBasic | null;
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  responses_limit: number | null;
}

export interface SurveyWrite {
  name?: string;
  description?: string;
  type?: SurveyType;
  questions?: SurveyQuestion[];
  conditions?: SurveyConditions | null;
  appearance?: SurveyAppearance | null;
  linked_flag_id?: number | null;
  targeting_flag_filters?: FlagFilters | null;
  remove_targeting_flag?: boolean;
  start_date?: string | null;
  end_date?: string | null;
  archived?: boolean;
  responses_limit?: number | null;
}

export type SurveyStatus = 'draft' | 'running' | 'completed';

/** As PostHog's list tells them: not started, started and not ended, ended. */
export function surveyStatus(survey: Pick<Survey, 'start_date' | 'end_date'>): SurveyStatus {
  if (!survey.start_date) return 'draft';
  return survey.end_date ? 'completed' : 'running';
}

const surveysPath = (projectId: number) => `/api/projects/${projectId}/surveys/`;

/** Every survey of the project (PostHog's list page loads them all and filters in the page). */
export function useSurveys(projectId: number) {
  return useQuery({
    queryKey: ['surveys', projectId, 'list'],
    queryFn: ({ signal }) => api<Paginated<Survey>>(`${surveysPath(projectId)}?limit=1000`, { signal }),
  });
}

/** `{ <survey id>: <responses> }` for the project's surveys. */
export function useResponsesCount(projectId: number) {
  return useQuery({
    queryKey: ['surveys', projectId, 'responses_count'],
    queryFn: ({ signal }) => api<Record<string, number>>(`${surveysPath(projectId)}responses_count/`, { signal }),
  });
}

export function useSurvey(projectId: number, id: string | undefined) {
  return useQuery({
    queryKey: ['surveys', projectId, 'one', id],
    queryFn: ({ signal }) => api<Survey>(`${surveysPath(projectId)}${encodeURIComponent(id ?? '')}/`, { signal }),
    enabled: id !== undefined,
  });
}

export function useSaveSurvey(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: SurveyWrite }) =>
      api<Survey>(id === undefined ? surveysPath(projectId) : `${surveysPath(projectId)}${encodeURIComponent(id)}/`, {
        method: id === undefined ? 'POST' : 'PATCH',
        body,
      }),
    onSuccess: (survey) => {
      client.setQueryData(['surveys', projectId, 'one', survey.id], survey);
      void client.invalidateQueries({ queryKey: ['surveys', projectId] });
    },
  });
}

export function useDeleteSurvey(projectId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`${surveysPath(projectId)}${encodeURIComponent(id)}/`, { method: 'DELETE' }),
    onSuccess: (_, id) => {
      client.removeQueries({ queryKey: ['surveys', projectId, 'one', id] });
      void client.invalidateQueries({ queryKey: ['surveys', projectId, 'list'] });
      void client.invalidateQueries({ queryKey: ['surveys', projectId, 'responses_count'] });
    },
  });
}

/** One event's figures in `stats/` (PostHog's EventStats). */
export interface SurveyEventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
}

export interface SurveyStats {
  stats: Partial<Record<'survey shown' | 'survey dismissed' | 'survey sent', SurveyEventStats>>;
  rates?: { response_rate?: number; dismissal_rate?: number };
}

export function useSurveyStats(projectId: number, id: string) {
  return useQuery({
    queryKey: ['surveys', projectId, 'stats', id],
    queryFn: ({ signal }) => api<SurveyStats>(`${surveysPath(projectId)}${encodeURIComponent(id)}/stats/`, { signal }),
  });
}

export interface ChoiceCount {
  label: string;
  count: number;
  is_open_choice?: boolean;
}

export interface QuestionResult {
  index: number;
  id: string | null;
  type: QuestionType;
  question: string;
  responses: number;
  choices?: ChoiceCount[];
  rating?: { display: 'number' | 'emoji'; scale: number; average: number | null; counts: { value: number; count: number }[] };
  answers?: { value: string; distinct_id: string; timestamp: string }[];
}

export interface SurveyResults {
  survey_id: string;
  date_range: { date_from: string; date_to: string };
  responses: number;
  questions: QuestionResult[];
}

export function useSurveyResults(projectId: number, id: string, range: { date_from?: string; date_to?: string }) {
  const query = new URLSearchParams();
  if (range.date_from) query.set('date_from', range.date_from);
  if (range.date_to) query.set('date_to', range.date_to);
  const suffix = query.size > 0 ? `?${query}` : '';
  return useQuery({
    queryKey: ['surveys', projectId, 'results', id, suffix],
    queryFn: ({ signal }) => api<SurveyResults>(`${surveysPath(projectId)}${encodeURIComponent(id)}/results/${suffix}`, { signal }),
  });
}

/** The project's flags a survey may be linked to (their key and id). */
export function useFlagChoices(projectId: number) {
  return useQuery({
    queryKey: ['flags', projectId, 'choices'],
    queryFn: async ({ signal }) => {
      const page = await api<Paginated<FeatureFlag>>(`/api/projects/${projectId}/feature_flags/?limit=500`, { signal });
      // Not the flags surveys make for themselves (their targeting), as PostHog's picker leaves them out.
      return page.results.filter((flag) => !flag.key.startsWith('survey-targeting-')).map((flag) => ({ id: flag.id, key: flag.key }));
    },
    staleTime: 30_000,
  });
}
