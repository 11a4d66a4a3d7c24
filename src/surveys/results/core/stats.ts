/**
 * PostHog's survey stats (`GET …/surveys/:id/stats/`): per event (`survey shown`, `survey
 * dismissed`, `survey sent`) its count, unique persons and first and last time, and the rates.
 * A person who dismissed the survey and also answered it counts as a responder only; the
 * `only_seen` figures on `survey shown` are those left after dismissals and responses.
 */

export const SURVEY_SHOWN = 'survey shown';
export const SURVEY_DISMISSED = 'survey dismissed';
export const SURVEY_SENT = 'survey sent';
export const SURVEY_EVENTS = [SURVEY_SHOWN, SURVEY_DISMISSED, SURVEY_SENT] as const;
export type SurveyEventName = (typeof SURVEY_EVENTS)[number];

/** One event's figures as the store computes them (times as PostHog renders them, or null). */
export interface EventStatsRow {
  event: string;
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
}

export interface EventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
  unique_persons_only_seen: number;
  total_count_only_seen: number;
}

export interface SurveyRates {
  response_rate: number;
  dismissal_rate: number;
  unique_users_response_rate: number;
  unique_users_dismissal_rate: number;
}

export interface SurveyStats {
  stats: Record<SurveyEventName, EventStats>;
  rates: SurveyRates;
}

/** Python's round(x, 2) for the percentages (half to even on exact ties). */
export function round2(value: number): number {
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const rounded = diff > 0.5 ? floor + 1 : diff < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
  return Number((rounded / 100).toFixed(2));
}

const empty = (): EventStats => ({
  total_count: 0,
  unique_persons: 0,
  first_seen: null,
  last_seen: null,
  unique_persons_only_seen: 0,
  total_count_only_seen: 0,
});

export function surveyRates(stats: Record<SurveyEventName, EventStats>): SurveyRates {
  const shown = stats[SURVEY_SHOWN];
  if (shown.total_count <= 0) return { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 };
  const percent = (part: number, whole: number) => (whole > 0 ? round2((part / whole) * 100) : 0);
  return {
    response_rate: percent(stats[SURVEY_SENT].total_count, shown.total_count),
    dismissal_rate: percent(stats[SURVEY_DISMISSED].total_count, shown.total_count),
    unique_users_response_rate: percent(stats[SURVEY_SENT].unique_persons, shown.unique_persons),
    unique_users_dismissal_rate: percent(stats[SURVEY_DISMISSED].unique_persons, shown.unique_persons),
  };
}

/** The stats from the store's rows and the number of persons who both dismissed and answered. */
export function surveyStats(rows: readonly EventStatsRow[], dismissedAndSent: number): SurveyStats {
  const stats: Record<SurveyEventName, EventStats> = { [SURVEY_SHOWN]: empty(), [SURVEY_DISMISSED]: empty(), [SURVEY_SENT]: empty() };
  for (const row of rows) {
    if (!(SURVEY_EVENTS as readonly string[]).includes(row.event)) continue;
    stats[row.event as SurveyEventName] = {
      ...empty(),
      total_count: row.total_count,
      unique_persons: row.unique_persons,
      first_seen: row.first_seen,
      last_seen: row.last_seen,
    };
  }
  const dismissed = stats[SURVEY_DISMISSED];
  dismissed.unique_persons = Math.max(0, dismissed.unique_persons - dismissedAndSent);
  const shown = stats[SURVEY_SHOWN];
  shown.unique_persons_only_seen = Math.max(0, shown.unique_persons - dismissed.unique_persons - stats[SURVEY_SENT].unique_persons);
  shown.total_count_only_seen = Math.max(0, shown.total_count - dismissed.total_count - stats[SURVEY_SENT].total_count);
  return { stats, rates: surveyRates(stats) };
}
