/**
 * Survey results, stats and response counts: reads the requested dates, asks the store, and
 * shapes the answers with the pure core. The survey comes in as a plain definition, whatever
 * loaded it.
 */
import type { AnalyticsEngine } from '../../platform/analytics/engine.js';
import { parseTrendsDate } from '../../insights/trends-window.js';
import { utcTime } from '../../posthog/date-grammar.js';
import { resultsRange, surveyResults, surveyStats, type SurveyDefinition, type SurveyResults, type SurveyStats } from './core/index.js';
import { surveyAggregates, surveyEventStats, surveyResponseCounts } from './store.js';

/** A date Hoglet cannot read; `attr` names it for the error envelope (null: PostHog names none). */
export class SurveyResultsError extends Error {
  constructor(
    message: string,
    readonly attr: string | null,
  ) {
    super(message);
  }
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A requested bound as an instant, read as insights read dates (absolute, or relative such as
 * `-7d`, in the environment's zone). A day alone as `date_to` means the end of that day.
 */
function readBound(
  value: string | null | undefined,
  name: 'date_from' | 'date_to',
  now: Date,
  timezone: string,
  attr: string,
): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const parsed = parseTrendsDate(value, now, timezone);
  if (parsed === null) throw new SurveyResultsError(`Unreadable ${name} "${value}".`, attr);
  const day = DATE_ONLY.exec(value.trim());
  if (name === 'date_to' && day) {
    // A real day (read above): the next one's start in the zone, less a millisecond.
    const next = new Date(utcTime(Number(day[1]), Number(day[2]), Number(day[3]) + 1)).toISOString().slice(0, 10);
    const end = parseTrendsDate(next, now, timezone);
    if (end) return new Date(end.getTime() - 1);
  }
  return parsed;
}

export interface RequestedDates {
  date_from?: string | null;
  date_to?: string | null;
}

/**
 * The survey's results over the requested dates, within its life. `attr` prefixes the dates' names
 * in errors (`dateRange__` for the query endpoint).
 */
export async function surveyResultsAnswer(
  analytics: AnalyticsEngine,
  teamId: number,
  survey: SurveyDefinition,
  requested: RequestedDates,
  now: Date,
  timezone: string,
  attrPrefix = '',
): Promise<SurveyResults> {
  const from = readBound(requested.date_from, 'date_from', now, timezone, `${attrPrefix}date_from`);
  const to = readBound(requested.date_to, 'date_to', now, timezone, `${attrPrefix}date_to`);
  if (from && to && from > to) throw new SurveyResultsError('date_from must be before date_to', `${attrPrefix}date_from`);
  const life = resultsRange(survey, { from: null, to: null }, now);
  const range = resultsRange(survey, { from, to }, now);
  const { responses, aggregates } = await surveyAggregates(analytics, teamId, survey.id, survey.questions, life, range);
  return surveyResults(survey, range, responses, aggregates);
}

const STATS_DATE_MESSAGE =
  'Invalid date format. Please use ISO 8601 format with timezone info (e.g. 2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)';

/** PostHog's stats dates: ISO 8601 (a naive one is UTC), either one optional. */
function readStatsDate(value: string | undefined, now: Date): Date | null {
  if (value === undefined || value === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}/.test(value.trim())) throw new SurveyResultsError(STATS_DATE_MESSAGE, null);
  const parsed = parseTrendsDate(value, now, 'UTC');
  if (parsed === null) throw new SurveyResultsError(STATS_DATE_MESSAGE, null);
  return parsed;
}

export type SurveyStatsAnswer = SurveyStats & { survey_id: string; start_date: string | null; end_date: string | null };

/** PostHog's `GET …/surveys/:id/stats/` answer. */
export async function surveyStatsAnswer(
  analytics: AnalyticsEngine,
  teamId: number,
  survey: Pick<SurveyDefinition, 'id' | 'start_date' | 'end_date'>,
  dates: { date_from?: string | undefined; date_to?: string | undefined },
  now: Date,
): Promise<SurveyStatsAnswer> {
  const from = readStatsDate(dates.date_from, now);
  const to = readStatsDate(dates.date_to, now);
  if (from && to && from > to) throw new SurveyResultsError('date_from must be before date_to', null);
  const { rows, dismissedAndSent } = await surveyEventStats(analytics, teamId, survey.id, { from, to });
  return { ...surveyStats(rows, dismissedAndSent), survey_id: survey.id, start_date: survey.start_date, end_date: survey.end_date };
}

/**
 * PostHog's `GET …/surveys/responses_count/`: submissions per survey id since the earliest start
 * date of the project's surveys; `{}` when none has started.
 */
export async function surveyResponseCountsAnswer(
  analytics: AnalyticsEngine,
  teamId: number,
  startDates: readonly (string | null)[],
): Promise<Record<string, number>> {
  const starts = startDates.map((d) => (d === null ? Number.NaN : Date.parse(d))).filter((t) => !Number.isNaN(t));
  if (starts.length === 0) return {};
  return surveyResponseCounts(analytics, teamId, new Date(Math.min(...starts)));
}
