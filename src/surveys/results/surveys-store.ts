/**
 * The surveys results read: a survey's definition (through the surveys store) and the start dates
 * of the project's surveys (for responses_count). Surveys belong to the project; the events they
 * are summarised from are the environment's.
 */
import type { AppContext } from '../../context.js';
import type { Team } from '../../environments/models.js';
import { getSurveyDefinition } from '../store.js';
import { readQuestion, type SurveyDefinition } from './core/index.js';

/** The project's survey `id` as results read it; undefined for an unknown or malformed id. */
export async function loadSurveyDefinition(ctx: AppContext, team: Team, id: string): Promise<SurveyDefinition | undefined> {
  const survey = await getSurveyDefinition(ctx.database.db, team, id);
  if (!survey) return undefined;
  return {
    id: survey.id,
    questions: survey.questions.map(readQuestion),
    start_date: survey.start_date,
    end_date: survey.end_date,
    created_at: survey.created_at,
  };
}

/** Every start date of the project's surveys, archived ones included (PostHog's responses_count). */
export async function surveyStartDates(ctx: AppContext, team: Team): Promise<(string | null)[]> {
  const rows = await ctx.database.db.selectFrom('surveys').select('start_date').where('project_id', '=', team.projectId).execute();
  return rows.map((r) => (r.start_date === null ? null : String(r.start_date)));
}
