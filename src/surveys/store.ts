/**
 * Every SQL statement of surveys. Surveys belong to a project (PostHog filters them by
 * `team__project_id`); `team_id` records the environment a survey was made in.
 */
import { sql, type Kysely, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { DialectName } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, fromJson, nowIso, toJson } from '../platform/db/values.js';
import { uuidv7 } from '../lib/uuid.js';
import type { SurveysTable } from './tables.js';

type Db = Kysely<Schema>;
type Json = Record<string, unknown>;

/** A stored survey. Dates are ISO text; JSON columns parsed. */
export interface Survey {
  id: string;
  projectId: number;
  teamId: number;
  name: string;
  description: string;
  type: string;
  schedule: string | null;
  linkedFlagId: number | null;
  targetingFlagId: number | null;
  internalTargetingFlagId: number | null;
  questions: Json[] | null;
  conditions: Json | null;
  appearance: Json | null;
  startDate: string | null;
  endDate: string | null;
  archived: boolean;
  responsesLimit: number | null;
  iterationCount: number | null;
  iterationFrequencyDays: number | null;
  iterationStartDates: string[] | null;
  currentIteration: number | null;
  currentIterationStartDate: string | null;
  responseSamplingStartDate: string | null;
  responseSamplingIntervalType: string | null;
  responseSamplingInterval: number | null;
  responseSamplingLimit: number | null;
  responseSamplingDailyLimits: unknown;
  enablePartialResponses: boolean | null;
  createdById: number | null;
  createdAt: string;
  updatedAt: string;
}

/** The stored fields a create or an update writes (everything but ids and timestamps). */
export type SurveyFields = Omit<Survey, 'id' | 'projectId' | 'teamId' | 'createdById' | 'createdAt' | 'updatedAt'>;

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function toSurvey(row: Selectable<SurveysTable>): Survey {
  return {
    id: row.id,
    projectId: Number(row.project_id),
    teamId: Number(row.team_id),
    name: row.name,
    description: row.description,
    type: row.type,
    schedule: row.schedule,
    linkedFlagId: num(row.linked_flag_id),
    targetingFlagId: num(row.targeting_flag_id),
    internalTargetingFlagId: num(row.internal_targeting_flag_id),
    questions: fromJson<Json[] | null>(row.questions) ?? null,
    conditions: fromJson<Json | null>(row.conditions) ?? null,
    appearance: fromJson<Json | null>(row.appearance) ?? null,
    startDate: row.start_date,
    endDate: row.end_date,
    archived: fromBool(row.archived),
    responsesLimit: num(row.responses_limit),
    iterationCount: num(row.iteration_count),
    iterationFrequencyDays: num(row.iteration_frequency_days),
    iterationStartDates: fromJson<string[] | null>(row.iteration_start_dates) ?? null,
    currentIteration: num(row.current_iteration),
    currentIterationStartDate: row.current_iteration_start_date,
    responseSamplingStartDate: row.response_sampling_start_date,
    responseSamplingIntervalType: row.response_sampling_interval_type,
    responseSamplingInterval: num(row.response_sampling_interval),
    responseSamplingLimit: num(row.response_sampling_limit),
    responseSamplingDailyLimits: fromJson<unknown>(row.response_sampling_daily_limits) ?? null,
    enablePartialResponses: row.enable_partial_responses === null ? null : fromBool(row.enable_partial_responses),
    createdById: num(row.created_by_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function columns(fields: Partial<SurveyFields>): Record<string, unknown> {
  const map: Record<keyof SurveyFields, [string, (v: never) => unknown]> = {
    name: ['name', (v) => v],
    description: ['description', (v) => v],
    type: ['type', (v) => v],
    schedule: ['schedule', (v) => v],
    linkedFlagId: ['linked_flag_id', (v) => v],
    targetingFlagId: ['targeting_flag_id', (v) => v],
    internalTargetingFlagId: ['internal_targeting_flag_id', (v) => v],
    questions: ['questions', (v) => (v === null ? null : toJson(v))],
    conditions: ['conditions', (v) => (v === null ? null : toJson(v))],
    appearance: ['appearance', (v) => (v === null ? null : toJson(v))],
    startDate: ['start_date', (v) => v],
    endDate: ['end_date', (v) => v],
    archived: ['archived', (v) => v],
    responsesLimit: ['responses_limit', (v) => v],
    iterationCount: ['iteration_count', (v) => v],
    iterationFrequencyDays: ['iteration_frequency_days', (v) => v],
    iterationStartDates: ['iteration_start_dates', (v) => (v === null ? null : toJson(v))],
    currentIteration: ['current_iteration', (v) => v],
    currentIterationStartDate: ['current_iteration_start_date', (v) => v],
    responseSamplingStartDate: ['response_sampling_start_date', (v) => v],
    responseSamplingIntervalType: ['response_sampling_interval_type', (v) => v],
    responseSamplingInterval: ['response_sampling_interval', (v) => v],
    responseSamplingLimit: ['response_sampling_limit', (v) => v],
    responseSamplingDailyLimits: ['response_sampling_daily_limits', (v) => (v === null ? null : toJson(v))],
    enablePartialResponses: ['enable_partial_responses', (v) => v],
  };
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(fields)) {
    const entry = map[field as keyof SurveyFields];
    if (value === undefined || !entry) continue; // ids and timestamps are not written here
    const [column, write] = entry;
    values[column] = write(value as never);
  }
  return values;
}

export interface SurveyListOptions {
  limit: number;
  offset: number;
  /** DRF SearchFilter over name and description: every term must appear in one of them. */
  search?: string[];
  archived?: boolean;
}

/** Whether the lower-cased column contains `term` (already lower-cased), on either backend. */
function containsLower(dialect: DialectName, column: 'name' | 'description', term: string): RawBuilder<SqlBool> {
  const ref = sql.ref(column);
  return dialect === 'postgres' ? sql<SqlBool>`strpos(lower(${ref}), ${term}) > 0` : sql<SqlBool>`instr(lower(${ref}), ${term}) > 0`;
}

/** A page of the project's surveys, newest first, and how many match. */
export async function listSurveys(
  db: Db,
  dialect: DialectName,
  projectId: number,
  options: SurveyListOptions,
): Promise<{ count: number; surveys: Survey[] }> {
  let query = db.selectFrom('surveys').where('project_id', '=', projectId);
  if (options.archived !== undefined) query = query.where('archived', '=', options.archived);
  for (const term of options.search ?? []) {
    const lower = term.toLowerCase();
    query = query.where((eb) => eb.or([containsLower(dialect, 'name', lower), containsLower(dialect, 'description', lower)]));
  }
  const { count } = await query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const rows = await query
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
  return { count: Number(count), surveys: rows.map(toSurvey) };
}

const SURVEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One survey of the project; undefined for an unknown id or one that is no uuid. */
export async function getSurvey(db: Db, projectId: number, id: string): Promise<Survey | undefined> {
  if (!SURVEY_ID.test(id)) return undefined;
  const row = await db
    .selectFrom('surveys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
  return row && toSurvey(row);
}

/** What survey results read of a survey: its definition as PostHog serializes it. */
export interface SurveyDefinition {
  id: string;
  name: string;
  type: string;
  questions: Json[];
  start_date: string | null;
  end_date: string | null;
  created_at: string;
  archived: boolean;
}

/** The survey `id` of an environment's project, as a plain definition (for survey results). */
export async function getSurveyDefinition(db: Db, team: { projectId: number }, id: string): Promise<SurveyDefinition | undefined> {
  const survey = await getSurvey(db, team.projectId, id);
  if (!survey) return undefined;
  return {
    id: survey.id,
    name: survey.name,
    type: survey.type,
    questions: survey.questions ?? [],
    start_date: survey.startDate,
    end_date: survey.endDate,
    created_at: survey.createdAt,
    archived: survey.archived,
  };
}

/** The project's surveys that are not archived, oldest first (what posthog-js is served). */
export async function listUnarchivedSurveys(db: Db, projectId: number): Promise<Survey[]> {
  const rows = await db
    .selectFrom('surveys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('archived', '=', false)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toSurvey);
}

/** Whether another survey of the project already has this name. */
export async function surveyNameTaken(db: Db, projectId: number, name: string, exceptId?: string): Promise<boolean> {
  if (name.includes('\u0000')) return false;
  let query = db.selectFrom('surveys').select('id').where('project_id', '=', projectId).where('name', '=', name);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** The ids of the project's flags that surveys made for themselves (left out of the flag list, as PostHog does). */
export async function surveyFlagIds(db: Db, projectId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('surveys')
    .select(['targeting_flag_id', 'internal_targeting_flag_id'])
    .where('project_id', '=', projectId)
    .execute();
  const ids = new Set<number>();
  for (const row of rows) {
    if (row.targeting_flag_id !== null) ids.add(Number(row.targeting_flag_id));
    if (row.internal_targeting_flag_id !== null) ids.add(Number(row.internal_targeting_flag_id));
  }
  return ids;
}

export async function insertSurvey(
  db: Db,
  survey: { projectId: number; teamId: number; userId: number | null } & SurveyFields,
): Promise<Survey> {
  const { projectId, teamId, userId, ...fields } = survey;
  const now = nowIso();
  const row = await db
    .insertInto('surveys')
    .values({
      id: uuidv7(),
      project_id: projectId,
      team_id: teamId,
      created_by_id: userId,
      created_at: now,
      updated_at: now,
      ...(columns(fields) as object),
    } as never)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSurvey(row);
}

export async function updateSurvey(db: Db, survey: Survey, fields: Partial<SurveyFields>): Promise<Survey> {
  const row = await db
    .updateTable('surveys')
    .set({ ...columns(fields), updated_at: nowIso() })
    .where('id', '=', survey.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSurvey(row);
}

export async function deleteSurvey(db: Db, survey: Survey): Promise<void> {
  await db.deleteFrom('surveys').where('id', '=', survey.id).execute();
}
