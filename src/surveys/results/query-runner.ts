/**
 * `SurveyResultsQuery` on `POST …/query/`: `{kind: 'SurveyResultsQuery', surveyId, dateRange?:
 * {date_from, date_to}}`, answered `{results: <the results answer of GET …/surveys/:id/results/>}`.
 */
import type { AppContext } from '../../context.js';
import type { Team } from '../../environments/models.js';
import { isJsonObject } from '../../lib/json-object.js';
import { effectiveTimezone } from '../../lib/zoned-time.js';
import { validationError } from '../../posthog/errors.js';
import { SurveyResultsError, surveyResultsAnswer } from './service.js';
import { loadSurveyDefinition } from './surveys-store.js';

type Runner = (ctx: AppContext, team: Team, query: Record<string, unknown>, now: Date) => Promise<Record<string, unknown>>;

function dateOf(range: Record<string, unknown>, name: 'date_from' | 'date_to'): string | null {
  const value = range[name] ?? null;
  if (value !== null && typeof value !== 'string') throw validationError(`${name} must be a date.`, `query__dateRange__${name}`);
  return value;
}

const runSurveyResults: Runner = async (ctx, team, source, now) => {
  const surveyId = source.surveyId;
  if (typeof surveyId !== 'string' || surveyId === '') throw validationError('This field is required.', 'query__surveyId');
  if (source.dateRange !== undefined && source.dateRange !== null && !isJsonObject(source.dateRange)) {
    throw validationError('dateRange must be an object.', 'query__dateRange');
  }
  const range = isJsonObject(source.dateRange) ? source.dateRange : {};
  const dates = { date_from: dateOf(range, 'date_from'), date_to: dateOf(range, 'date_to') };
  const survey = await loadSurveyDefinition(ctx, team, surveyId);
  if (!survey) throw validationError(`Survey ${JSON.stringify(surveyId)} does not exist.`, 'query__surveyId');
  try {
    return {
      results: await surveyResultsAnswer(
        ctx.analytics,
        team.id,
        survey,
        dates,
        now,
        effectiveTimezone(team.settings.timezone),
        'query__dateRange__',
      ),
    };
  } catch (error) {
    if (error instanceof SurveyResultsError) throw validationError(error.message, error.attr);
    throw error;
  }
};

export const SURVEY_RUNNERS: Record<string, Runner> = {
  SurveyResultsQuery: runSurveyResults,
};
