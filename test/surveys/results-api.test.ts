/**
 * Survey results over HTTP: `…/surveys/:id/results/`, `…/stats/`, `…/surveys/responses_count/`
 * and `SurveyResultsQuery` on the query endpoint, for a survey created through the surveys API and
 * answered through /batch/ (results-fixture.ts works the numbers out by hand). Scopes, other
 * projects' surveys and bad input.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, createProject } from '../helpers/fixtures.js';
import { useTestServer } from '../helpers/server.js';
import { QUESTIONS, surveyEvents } from './results-fixture.js';

const server = useTestServer();
const project = () => `/api/projects/${server.bootstrap.team.id}`;
const env = () => `/api/environments/${server.bootstrap.team.id}`;
let survey: string;
let theirs: { survey: string; team: number };

async function createSurvey(base: string, name: string): Promise<string> {
  const res = await server.request(`${base}/surveys/`, {
    method: 'POST',
    body: { name, type: 'api', questions: QUESTIONS, start_date: '2025-03-01T00:00:00Z' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  survey = await createSurvey(project(), 'Feedback');
  await server.ingest(surveyEvents('', survey));
  const other = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
  theirs = { survey: await createSurvey(`/api/projects/${other.team.id}`, 'Theirs'), team: other.team.id };
});

describe('GET …/surveys/:id/results/', () => {
  it('answers the contract’s shape, the same under projects and environments', async () => {
    const res = await server.request(`${project()}/surveys/${survey}/results/?date_to=2025-03-31`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      survey_id: survey,
      date_range: { date_from: '2025-03-01T00:00:00.000Z', date_to: '2025-03-31T23:59:59.999Z' },
      responses: 5,
    });
    const questions = res.body.questions;
    expect(questions.map((q: any) => [q.index, q.id, q.type, q.question, q.responses])).toEqual(
      QUESTIONS.map((q, i) => [i, q.id, q.type, q.question, [4, 4, 3, 3, 1, 0][i]]),
    );
    expect(questions[0].answers[0]).toEqual({ value: 'late', distinct_id: 'u6', timestamp: '2025-03-10T10:00:00.000Z' });
    expect(questions[1].rating).toMatchObject({ display: 'number', scale: 10, average: 5.5 });
    expect(questions[2].choices).toEqual([
      { label: 'Red', count: 1 },
      { label: 'Green', count: 1 },
      { label: 'Teal', count: 1, is_open_choice: true },
    ]);
    const same = await server.request(`${env()}/surveys/${survey}/results/?date_to=2025-03-31`);
    expect(same.status).toBe(200);
    expect(same.body).toEqual(res.body);
  });

  it('narrows to the requested dates and refuses unreadable ones in PostHog’s envelope', async () => {
    const res = await server.request(`${project()}/surveys/${survey}/results/?date_from=2025-03-03&date_to=2025-03-04`);
    expect(res.status).toBe(200);
    expect(res.body.responses).toBe(2);
    const bad = await server.request(`${project()}/surveys/${survey}/results/?date_from=soon`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Unreadable date_from "soon".',
      attr: 'date_from',
    });
    // A day the calendar has not is refused too, not rolled over into the next month or year.
    for (const day of ['2026-13-45', '0000-00-00', '2025-02-29']) {
      const wrong = await server.request(`${project()}/surveys/${survey}/results/?date_to=${day}`);
      expect(wrong.status, day).toBe(400);
      expect(wrong.body).toMatchObject({ detail: `Unreadable date_to "${day}".`, attr: 'date_to' });
    }
  });

  it('is 404 for another project’s survey, an unknown one and a malformed id', async () => {
    for (const id of [theirs.survey, '0190a1b2-0000-7000-8000-000000000000', 'not-a-uuid']) {
      const res = await server.request(`${project()}/surveys/${id}/results/`);
      expect(res.status, id).toBe(404);
      expect(res.body.type).toBe('invalid_request');
    }
  });

  it('needs survey:read', async () => {
    const { database } = server.running.ctx;
    const insightsOnly = await createKey(database, server.bootstrap.user.id, ['insight:read']);
    const denied = await server.request(`${project()}/surveys/${survey}/results/`, { key: insightsOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'survey:read'");
    const reader = await createKey(database, server.bootstrap.user.id, ['survey:read']);
    for (const path of [`/surveys/${survey}/results/`, `/surveys/${survey}/stats/`, '/surveys/responses_count/']) {
      expect((await server.request(`${project()}${path}`, { key: reader })).status, path).toBe(200);
      expect((await server.request(`${project()}${path}`, { key: insightsOnly })).status, path).toBe(403);
    }
  });
});

describe('GET …/surveys/:id/stats/', () => {
  it("answers PostHog's stats shape", async () => {
    const res = await server.request(`${env()}/surveys/${survey}/stats/`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['end_date', 'rates', 'start_date', 'stats', 'survey_id']);
    expect(res.body.survey_id).toBe(survey);
    expect(res.body.stats['survey sent']).toEqual({
      total_count: 6,
      unique_persons: 6,
      first_seen: '2025-02-25T10:00:00Z',
      last_seen: '2025-03-10T10:00:00Z',
      unique_persons_only_seen: 0,
      total_count_only_seen: 0,
    });
    expect(res.body.rates).toEqual({
      response_rate: 75,
      dismissal_rate: 25,
      unique_users_response_rate: 85.71,
      unique_users_dismissal_rate: 14.29,
    });
  });

  it('refuses bad dates as PostHog does', async () => {
    const res = await server.request(`${env()}/surveys/${survey}/stats/?date_from=2025-03-05T00:00:00Z&date_to=2025-03-01T00:00:00Z`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'date_from must be before date_to', attr: null });
    const unreadable = await server.request(`${env()}/surveys/${survey}/stats/?date_from=yesterday`);
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.detail).toMatch(/^Invalid date format/);
  });

  it('is 404 for another project’s survey', async () => {
    expect((await server.request(`${env()}/surveys/${theirs.survey}/stats/`)).status).toBe(404);
  });
});

describe('GET …/surveys/responses_count/', () => {
  it('counts submissions per survey since the earliest start', async () => {
    const res = await server.request(`${project()}/surveys/responses_count/`);
    expect(res.status, res.text).toBe(200);
    expect(res.body[survey]).toBe(5);
    expect(res.body[theirs.survey]).toBeUndefined();
  });

  it('is {} for a project whose surveys have not started', async () => {
    const res = await server.request(`/api/projects/${theirs.team}/surveys/responses_count/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
  });
});

describe('SurveyResultsQuery', () => {
  const query = (body: Record<string, unknown>) =>
    server.request(`${project()}/query/`, { method: 'POST', body: { query: { kind: 'SurveyResultsQuery', ...body } } });

  it('answers the results route’s answer under results', async () => {
    const res = await query({ surveyId: survey, dateRange: { date_from: '2025-03-03', date_to: '2025-03-04' } });
    expect(res.status, res.text).toBe(200);
    const direct = await server.request(`${project()}/surveys/${survey}/results/?date_from=2025-03-03&date_to=2025-03-04`);
    expect(res.body.results).toEqual(direct.body);
    expect(res.body.results.responses).toBe(2);
  });

  it('refuses a missing or unknown survey, another project’s, and unreadable dates', async () => {
    const missing = await query({});
    expect(missing.status).toBe(400);
    expect(missing.body.attr).toBe('query__surveyId');
    for (const id of [theirs.survey, 'nope']) {
      const res = await query({ surveyId: id });
      expect(res.status).toBe(400);
      expect(res.body.attr).toBe('query__surveyId');
    }
    const bad = await query({ surveyId: survey, dateRange: { date_from: 'whenever' } });
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe('query__dateRange__date_from');
    const notText = await query({ surveyId: survey, dateRange: { date_to: 5 } });
    expect(notText.status).toBe(400);
    expect(notText.body.attr).toBe('query__dateRange__date_to');
  });
});
