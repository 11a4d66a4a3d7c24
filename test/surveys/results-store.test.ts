/**
 * Survey results, stats and response counts computed in ClickHouse from events ingested through
 * /batch/ (results-fixture.ts works the numbers out by hand), for a survey given as a plain
 * definition.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import {
  SurveyResultsError,
  surveyResponseCountsAnswer,
  surveyResultsAnswer,
  surveyStatsAnswer,
} from '../../src/surveys/results/service.js';
import { MAX_OTHER_CHOICES, readQuestion, type QuestionSummary, type SurveyResults } from '../../src/surveys/results/core/index.js';
import { DEFINITION, OTHER_SURVEY, QUESTIONS, SURVEY, surveyEvents } from './results-fixture.js';

const server = useTestServer();
const NOW = new Date('2025-04-01T00:00:00Z');
const definition = { ...DEFINITION, questions: QUESTIONS.map(readQuestion) };
const analytics = () => server.running.ctx.analytics;
const team = () => server.bootstrap.team.id;

beforeAll(async () => {
  await server.ingest(surveyEvents());
  // Another environment answers the same survey id: none of it may show here.
  const created = await server.request(`/api/projects/${team()}/environments/`, { method: 'POST', body: { name: 'Other' } });
  expect(created.status, created.text).toBe(201);
  const res = await server.request('/batch/', {
    method: 'POST',
    key: null,
    body: { api_key: created.body.api_token, batch: [...surveyEvents('x-'), ...surveyEvents('y-')] },
  });
  expect(res.status).toBe(200);
  await server.settle();
});

const byId = (results: SurveyResults): Record<string, QuestionSummary> => Object.fromEntries(results.questions.map((q) => [q.id, q]));

describe('survey results', () => {
  it('summarises every question over the survey’s life, one submission counted once (its last event)', async () => {
    const results = await surveyResultsAnswer(analytics(), team(), definition, {}, NOW, 'UTC');
    expect(results.survey_id).toBe(SURVEY);
    expect(results.date_range).toEqual({ date_from: '2025-03-01T00:00:00.000Z', date_to: NOW.toISOString() });
    expect(results.responses).toBe(5);
    const q = byId(results);
    expect(results.questions.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(q['q-open']!.responses).toBe(4);
    expect(q['q-open']!.answers).toEqual([
      { value: 'late', distinct_id: 'u6', timestamp: '2025-03-10T10:00:00.000Z' },
      { value: 'legacy open', distinct_id: 'u3', timestamp: '2025-03-04T10:00:00.000Z' },
      { value: 'More <b>colour</b>', distinct_id: 'u2', timestamp: '2025-03-03T10:00:00.000Z' },
      { value: 'Faster pages', distinct_id: 'u1', timestamp: '2025-03-02T10:01:00.000Z' },
    ]);
    expect(q['q-rate']!.responses).toBe(4);
    expect(q['q-rate']!.rating!.average).toBe(5.5);
    expect(q['q-rate']!.rating!.counts.filter((c) => c.count > 0)).toEqual([
      { value: 0, count: 1 },
      { value: 3, count: 1 },
      { value: 9, count: 1 },
      { value: 10, count: 1 },
    ]);
    expect(q['q-rate']!.rating!.counts).toHaveLength(11);
    expect(q['q-single']).toMatchObject({
      responses: 3,
      choices: [
        { label: 'Red', count: 1 },
        { label: 'Green', count: 1 },
        { label: 'Teal', count: 1, is_open_choice: true },
      ],
    });
    expect(q['q-multi']).toMatchObject({
      responses: 3,
      choices: [
        { label: 'A', count: 2 },
        { label: 'B', count: 1 },
        { label: 'C', count: 1 },
      ],
    });
    expect(q['q-link']).toMatchObject({ responses: 1, answers: [{ value: 'link clicked', distinct_id: 'u1' }] });
    expect(q['q-skip']).toMatchObject({ responses: 0, answers: [] });
  });

  it('keeps a submission whose last event is in the requested days; a day alone as date_to runs to its end', async () => {
    const results = await surveyResultsAnswer(
      analytics(),
      team(),
      definition,
      { date_from: '2025-03-03', date_to: '2025-03-04' },
      NOW,
      'UTC',
    );
    expect(results.responses).toBe(2);
    expect(results.date_range).toEqual({ date_from: '2025-03-03T00:00:00.000Z', date_to: '2025-03-04T23:59:59.999Z' });
    expect(byId(results)['q-open']!.answers!.map((a) => a.value)).toEqual(['legacy open', 'More <b>colour</b>']);
    // sub6's first event is on 6 Mar, its last on 10 Mar: it is not in 6–7 Mar.
    const early = await surveyResultsAnswer(
      analytics(),
      team(),
      definition,
      { date_from: '2025-03-06', date_to: '2025-03-07' },
      NOW,
      'UTC',
    );
    expect(early.responses).toBe(0);
    expect(byId(early)['q-open']!.answers).toEqual([]);
  });

  it('leaves out what is past the survey’s end', async () => {
    const ended = { ...definition, end_date: '2025-03-03T00:00:00Z' };
    const results = await surveyResultsAnswer(analytics(), team(), ended, {}, NOW, 'UTC');
    expect(results.responses).toBe(1);
    expect(results.date_range.date_to).toBe('2025-03-03T00:00:00.000Z');
    expect(byId(results)['q-rate']!.rating!.average).toBe(9);
  });

  it('reads relative dates in the environment’s zone and refuses unreadable ones', async () => {
    const results = await surveyResultsAnswer(analytics(), team(), definition, { date_from: '-30d' }, NOW, 'UTC');
    expect(results.date_range.date_from).toBe('2025-03-02T00:00:00.000Z');
    await expect(surveyResultsAnswer(analytics(), team(), definition, { date_from: 'yesterday-ish' }, NOW, 'UTC')).rejects.toThrow(
      SurveyResultsError,
    );
    await expect(
      surveyResultsAnswer(analytics(), team(), definition, { date_from: '2025-03-05', date_to: '2025-03-01' }, NOW, 'UTC'),
    ).rejects.toThrow('date_from must be before date_to');
  });

  it('answers a survey without questions or responses', async () => {
    const empty = { ...definition, id: '0190a1b2-0000-7000-8000-000000000000', questions: [] };
    const results = await surveyResultsAnswer(analytics(), team(), empty, {}, NOW, 'UTC');
    expect(results).toMatchObject({ responses: 0, questions: [] });
    const unanswered = await surveyResultsAnswer(analytics(), team(), { ...definition, id: empty.id }, {}, NOW, 'UTC');
    expect(unanswered.responses).toBe(0);
    expect(unanswered.questions.every((x) => x.responses === 0)).toBe(true);
  });

  it('binds every key as a parameter: a question id with quotes reads its own property', async () => {
    const odd = 'it\'s \\ "odd"';
    await server.ingest([
      {
        event: 'survey sent',
        distinct_id: 'quoted',
        timestamp: '2025-03-20T00:00:00Z',
        properties: { $survey_id: OTHER_SURVEY, [`$survey_response_${odd}`]: 'yes' },
      },
    ]);
    const survey = {
      ...definition,
      id: OTHER_SURVEY,
      questions: [readQuestion({ id: odd, type: 'single_choice', choices: ['yes', 'no'] })],
    };
    const results = await surveyResultsAnswer(analytics(), team(), survey, { date_from: '2025-03-15' }, NOW, 'UTC');
    expect(results.responses).toBe(1);
    expect(results.questions[0]!.choices).toEqual([
      { label: 'yes', count: 1 },
      { label: 'no', count: 0 },
    ]);
  });
  it('keeps every choice under the cap on other answers, however few chose it', async () => {
    const id = '0190a1b2-0000-7000-8000-00000000cafe';
    const others = Array.from({ length: MAX_OTHER_CHOICES + 5 }, (_, i) => `other ${i}`);
    const answer = (who: string, value: string) => ({
      event: 'survey sent',
      distinct_id: who,
      timestamp: '2025-03-21T00:00:00Z',
      properties: { $survey_id: id, $survey_response_pick: value },
    });
    await server.ingest([answer('rare', 'Rare'), ...others.flatMap((o, i) => [answer(`a${i}`, o), answer(`b${i}`, o)])]);
    const survey = {
      ...definition,
      id,
      questions: [readQuestion({ id: 'pick', type: 'single_choice', choices: ['Rare', 'Never'], hasOpenChoice: false })],
    };
    const results = await surveyResultsAnswer(analytics(), team(), survey, {}, NOW, 'UTC');
    expect(results.responses).toBe(1 + 2 * others.length);
    const choices = results.questions[0]!.choices!;
    expect(results.questions[0]!.responses).toBe(1 + 2 * others.length);
    expect(choices.slice(0, 2)).toEqual([
      { label: 'Rare', count: 1 },
      { label: 'Never', count: 0 },
    ]);
    expect(choices).toHaveLength(2 + MAX_OTHER_CHOICES);
    expect(choices.slice(2).every((c) => c.count === 2 && c.is_open_choice)).toBe(true);
  });
});

describe('survey stats', () => {
  it("answers PostHog's stats: counts, persons, first and last seen, rates", async () => {
    const stats = await surveyStatsAnswer(analytics(), team(), definition, {}, NOW);
    expect(stats.survey_id).toBe(SURVEY);
    expect(stats.start_date).toBe(DEFINITION.start_date);
    expect(stats.end_date).toBeNull();
    expect(stats.stats['survey shown']).toEqual({
      total_count: 8,
      unique_persons: 7,
      first_seen: '2025-03-01T09:00:00Z',
      last_seen: '2025-03-08T09:00:00Z',
      unique_persons_only_seen: 0,
      total_count_only_seen: 0,
    });
    expect(stats.stats['survey dismissed']).toMatchObject({ total_count: 2, unique_persons: 1, last_seen: '2025-03-08T09:05:00Z' });
    expect(stats.stats['survey sent']).toMatchObject({
      total_count: 6,
      unique_persons: 6,
      first_seen: '2025-02-25T10:00:00Z',
      last_seen: '2025-03-10T10:00:00Z',
    });
    expect(stats.rates).toEqual({
      response_rate: 75,
      dismissal_rate: 25,
      unique_users_response_rate: 85.71,
      unique_users_dismissal_rate: 14.29,
    });
  });

  it('narrows to the dates asked and refuses bad ones with PostHog’s messages', async () => {
    const stats = await surveyStatsAnswer(
      analytics(),
      team(),
      definition,
      { date_from: '2025-03-03T00:00:00Z', date_to: '2025-03-04T23:59:59Z' },
      NOW,
    );
    expect(stats.stats['survey sent'].total_count).toBe(2);
    expect(stats.stats['survey shown'].total_count).toBe(2);
    await expect(surveyStatsAnswer(analytics(), team(), definition, { date_from: 'last week' }, NOW)).rejects.toThrow(
      /Invalid date format/,
    );
    await expect(
      surveyStatsAnswer(analytics(), team(), definition, { date_from: '2025-03-05T00:00:00Z', date_to: '2025-03-01T00:00:00Z' }, NOW),
    ).rejects.toThrow('date_from must be before date_to');
  });
});

describe('responses count', () => {
  it('counts submissions per survey since the earliest start, {} when none started', async () => {
    const counts = await surveyResponseCountsAnswer(analytics(), team(), [DEFINITION.start_date, null]);
    expect(counts[SURVEY]).toBe(5);
    expect(counts[OTHER_SURVEY]).toBeGreaterThanOrEqual(1);
    expect(await surveyResponseCountsAnswer(analytics(), team(), [null])).toEqual({});
    expect((await surveyResponseCountsAnswer(analytics(), team(), ['2025-02-01T00:00:00Z']))[SURVEY]).toBe(6);
  });
});
