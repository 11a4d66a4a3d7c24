/** Survey results' pure core: per-question summaries, scales, keys, the period and PostHog's stats. */
import { describe, expect, it } from 'vitest';
import {
  MAX_ANSWERS,
  MAX_OTHER_CHOICES,
  questionSummary,
  questionType,
  ratingScale,
  ratingValue,
  readQuestion,
  responseKeys,
  resultsRange,
  round2,
  surveyResults,
  surveyStats,
  type QuestionAggregate,
} from '../../src/surveys/results/core/index.js';

const agg = (
  index: number,
  answered: number,
  values: [string, number][] = [],
  answers: QuestionAggregate['answers'] = [],
): QuestionAggregate => ({
  index,
  answered,
  values: values.map(([value, count]) => ({ value, count })),
  answers,
});

describe('response keys', () => {
  it('reads the id key first, then the key by position older SDKs sent', () => {
    expect(responseKeys({ id: 'abc', type: 'open' }, 0)).toEqual(['$survey_response_abc', '$survey_response']);
    expect(responseKeys({ id: 'abc', type: 'open' }, 2)).toEqual(['$survey_response_abc', '$survey_response_2']);
  });

  it('has only the positional key for a question without id, and no repeat when both are the same', () => {
    expect(responseKeys({ type: 'open' }, 0)).toEqual(['$survey_response']);
    expect(responseKeys({ id: '', type: 'open' }, 3)).toEqual(['$survey_response_3']);
    expect(responseKeys({ id: null, type: 'open' }, 1)).toEqual(['$survey_response_1']);
    expect(responseKeys({ id: '1', type: 'open' }, 1)).toEqual(['$survey_response_1']);
  });
});

describe('question types and stored questions', () => {
  it('knows the five types and reads any other as open text', () => {
    for (const type of ['open', 'link', 'rating', 'single_choice', 'multiple_choice']) expect(questionType({ type })).toBe(type);
    expect(questionType({ type: 'matrix' })).toBe('open');
  });

  it('reads a stored question, dropping what is not of its type', () => {
    expect(
      readQuestion({ id: 'q', type: 'single_choice', question: 'Which?', choices: ['a', 3, 'b'], hasOpenChoice: true, extra: 1 }),
    ).toEqual({ id: 'q', type: 'single_choice', question: 'Which?', choices: ['a', 'b'], hasOpenChoice: true });
    expect(readQuestion({ type: 'rating', display: 'emoji', scale: 3, id: 7 })).toEqual({ type: 'rating', display: 'emoji', scale: 3 });
    expect(readQuestion(null)).toEqual({ type: 'open' });
    expect(readQuestion(['x'])).toEqual({ type: 'open' });
    expect(readQuestion({ type: 5 })).toEqual({ type: 'open' });
  });
});

describe('rating scales', () => {
  it('draws a 10-point number scale from 0, every other scale from 1, as posthog-js does', () => {
    expect(ratingScale({ type: 'rating', display: 'number', scale: 10 }).values).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(ratingScale({ type: 'rating', display: 'number', scale: 5 }).values).toEqual([1, 2, 3, 4, 5]);
    expect(ratingScale({ type: 'rating', display: 'number', scale: 7 }).values).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ratingScale({ type: 'rating', display: 'emoji', scale: 2 })).toEqual({ display: 'emoji', scale: 2, values: [1, 2] });
    expect(ratingScale({ type: 'rating', display: 'emoji', scale: 3 }).values).toEqual([1, 2, 3]);
  });

  it("falls back to PostHog's defaults without a usable scale or display", () => {
    expect(ratingScale({ type: 'rating' })).toEqual({ display: 'number', scale: 10, values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    expect(ratingScale({ type: 'rating', display: 'emoji' }).scale).toBe(5);
    expect(ratingScale({ type: 'rating', scale: 0 }).scale).toBe(10);
    expect(ratingScale({ type: 'rating', scale: 4.5 }).scale).toBe(10);
    expect(ratingScale({ type: 'rating', display: 'stars', scale: 5 }).display).toBe('number');
  });

  it('reads whole numbers as ratings, as text or numbers', () => {
    expect(ratingValue('7')).toBe(7);
    expect(ratingValue(' 3 ')).toBe(3);
    expect(ratingValue('7.0')).toBe(7);
    expect(ratingValue('0')).toBe(0);
    expect(ratingValue('-1')).toBe(-1);
    expect(ratingValue('7.5')).toBeNull();
    expect(ratingValue('seven')).toBeNull();
    expect(ratingValue('')).toBeNull();
    expect(ratingValue('true')).toBeNull();
  });
});

describe('question summaries', () => {
  it('counts single choices in the question order with zeros', () => {
    const q = { id: 's', type: 'single_choice', question: 'Pick', choices: ['Red', 'Green', 'Blue'] };
    expect(
      questionSummary(
        q,
        0,
        agg(0, 3, [
          ['Blue', 2],
          ['Red', 1],
        ]),
      ),
    ).toEqual({
      index: 0,
      id: 's',
      type: 'single_choice',
      question: 'Pick',
      responses: 3,
      choices: [
        { label: 'Red', count: 1 },
        { label: 'Green', count: 0 },
        { label: 'Blue', count: 2 },
      ],
    });
  });

  it('lists an open choice’s typed answers after the choices, by count then text, and not its label', () => {
    const q = { id: 'm', type: 'multiple_choice', question: 'Which', choices: ['A', 'B', 'Other'], hasOpenChoice: true };
    const summary = questionSummary(
      q,
      1,
      agg(1, 4, [
        ['A', 3],
        ['zeta', 1],
        ['beta', 2],
        ['alpha', 1],
      ]),
    );
    expect(summary.responses).toBe(4);
    expect(summary.choices).toEqual([
      { label: 'A', count: 3 },
      { label: 'B', count: 0 },
      { label: 'beta', count: 2, is_open_choice: true },
      { label: 'alpha', count: 1, is_open_choice: true },
      { label: 'zeta', count: 1, is_open_choice: true },
    ]);
  });

  it('lists an answer that is none of the choices (a renamed choice) after them, and its label when it is typed', () => {
    const q = { type: 'single_choice', choices: ['Yes', 'No'] };
    expect(
      questionSummary(
        q,
        0,
        agg(0, 2, [
          ['Maybe', 1],
          ['Yes', 1],
        ]),
      ).choices,
    ).toEqual([
      { label: 'Yes', count: 1 },
      { label: 'No', count: 0 },
      { label: 'Maybe', count: 1, is_open_choice: true },
    ]);
    const open = { type: 'single_choice', choices: ['Yes', 'Other'], hasOpenChoice: true };
    expect(questionSummary(open, 0, agg(0, 1, [['Other', 1]])).choices).toEqual([
      { label: 'Yes', count: 0 },
      { label: 'Other', count: 1, is_open_choice: true },
    ]);
  });

  it('keeps repeated choices once and caps the other answers', () => {
    const q = { type: 'multiple_choice', choices: ['A', 'A', 'B'] };
    const others = Array.from({ length: MAX_OTHER_CHOICES + 5 }, (_, i) => [`o${String(i).padStart(3, '0')}`, 1] as [string, number]);
    const choices = questionSummary(q, 0, agg(0, 9, [['A', 2], ...others])).choices!;
    expect(choices.slice(0, 2)).toEqual([
      { label: 'A', count: 2 },
      { label: 'B', count: 0 },
    ]);
    expect(choices).toHaveLength(2 + MAX_OTHER_CHOICES);
    expect(choices[2]).toEqual({ label: 'o000', count: 1, is_open_choice: true });
  });

  it('gives an unanswered question zeros, an empty choice list when it has no choices', () => {
    expect(questionSummary({ type: 'single_choice', choices: ['x'] }, 2, undefined)).toEqual({
      index: 2,
      id: null,
      type: 'single_choice',
      question: '',
      responses: 0,
      choices: [{ label: 'x', count: 0 }],
    });
    expect(questionSummary({ type: 'multiple_choice' }, 0, undefined).choices).toEqual([]);
  });

  it('spreads ratings over the whole scale with the average of the answers on it', () => {
    const q = { id: 'r', type: 'rating', question: 'How likely?', display: 'number', scale: 10 };
    const summary = questionSummary(
      q,
      0,
      agg(0, 5, [
        ['10', 2],
        ['0', 1],
        ['7', 1],
        ['11', 1],
        ['x', 3],
      ]),
    );
    expect(summary.responses).toBe(5);
    expect(summary.rating!.display).toBe('number');
    expect(summary.rating!.scale).toBe(10);
    expect(summary.rating!.counts).toHaveLength(11);
    expect(summary.rating!.counts[0]).toEqual({ value: 0, count: 1 });
    expect(summary.rating!.counts[7]).toEqual({ value: 7, count: 1 });
    expect(summary.rating!.counts[10]).toEqual({ value: 10, count: 2 });
    expect(summary.rating!.counts.filter((c) => c.count === 0)).toHaveLength(8);
    expect(summary.rating!.average).toBeCloseTo((0 + 7 + 20) / 4, 10);
    expect(summary.choices).toBeUndefined();
    expect(summary.answers).toBeUndefined();
  });

  it('adds up the same rating sent as text and as a number ("7.0" and "7")', () => {
    const r = questionSummary(
      { type: 'rating', display: 'emoji', scale: 5 },
      0,
      agg(0, 3, [
        ['4', 2],
        ['4.0', 1],
      ]),
    ).rating!;
    expect(r.counts).toEqual([1, 2, 3, 4, 5].map((value) => ({ value, count: value === 4 ? 3 : 0 })));
    expect(r.average).toBe(4);
  });

  it('has no average without ratings on the scale', () => {
    const r = questionSummary({ type: 'rating', scale: 5 }, 0, agg(0, 1, [['0', 1]])).rating!;
    expect(r.average).toBeNull();
    expect(r.counts.every((c) => c.count === 0)).toBe(true);
  });

  it('lists open and link answers newest first, at most MAX_ANSWERS', () => {
    const answers = Array.from({ length: MAX_ANSWERS + 3 }, (_, i) => ({
      value: `a${i}`,
      distinct_id: `u${i}`,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
    }));
    const summary = questionSummary({ id: 'o', type: 'open', question: 'Why?' }, 0, agg(0, answers.length, [], answers));
    expect(summary.responses).toBe(MAX_ANSWERS + 3);
    expect(summary.answers).toHaveLength(MAX_ANSWERS);
    expect(summary.answers![0]).toEqual(answers[answers.length - 1]);
    expect(summary.answers![MAX_ANSWERS - 1]!.value).toBe('a3');
    const link = questionSummary(
      { type: 'link' },
      1,
      agg(1, 1, [], [{ value: 'link clicked', distinct_id: 'u', timestamp: '2025-01-01T00:00:00.000Z' }]),
    );
    expect(link.answers).toEqual([{ value: 'link clicked', distinct_id: 'u', timestamp: '2025-01-01T00:00:00.000Z' }]);
    expect(link.rating).toBeUndefined();
    expect(questionSummary({ type: 'open' }, 0, undefined).answers).toEqual([]);
  });
});

describe('the whole answer', () => {
  it('lists every question in order, answered or not, with the submissions and the resolved dates', () => {
    const survey = {
      id: 'sv',
      questions: [
        { id: 'a', type: 'open', question: 'First' },
        { id: 'b', type: 'rating', question: 'Second', scale: 5 },
      ],
    };
    const range = { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-02-01T00:00:00Z') };
    const results = surveyResults(survey, range, 4, [agg(1, 2, [['5', 2]])]);
    expect(results.survey_id).toBe('sv');
    expect(results.date_range).toEqual({ date_from: '2025-01-01T00:00:00.000Z', date_to: '2025-02-01T00:00:00.000Z' });
    expect(results.responses).toBe(4);
    expect(results.questions.map((q) => [q.index, q.id, q.type, q.responses])).toEqual([
      [0, 'a', 'open', 0],
      [1, 'b', 'rating', 2],
    ]);
    expect(results.questions[1]!.rating!.average).toBe(5);
  });
});

describe('the results period', () => {
  const now = new Date('2025-06-01T00:00:00Z');
  const survey = { start_date: '2025-03-01T00:00:00Z', end_date: '2025-04-01T00:00:00Z', created_at: '2025-02-01T00:00:00Z' };

  it('is the survey’s life when nothing is asked: start to end', () => {
    expect(resultsRange(survey, { from: null, to: null }, now)).toEqual({
      from: new Date(survey.start_date),
      to: new Date(survey.end_date),
    });
  });

  it('starts at creation while there is no start date, and runs to now while there is no end', () => {
    expect(resultsRange({ start_date: null, end_date: null, created_at: survey.created_at }, { from: null, to: null }, now)).toEqual({
      from: new Date(survey.created_at),
      to: now,
    });
  });

  it('narrows to the requested dates inside the life, never wider', () => {
    const inside = { from: new Date('2025-03-10T00:00:00Z'), to: new Date('2025-03-20T00:00:00Z') };
    expect(resultsRange(survey, inside, now)).toEqual(inside);
    expect(resultsRange(survey, { from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-12-01T00:00:00Z') }, now)).toEqual({
      from: new Date(survey.start_date),
      to: new Date(survey.end_date),
    });
  });

  it('is empty, not inverted, for dates outside the life', () => {
    const after = resultsRange(survey, { from: new Date('2025-05-01T00:00:00Z'), to: null }, now);
    expect(after.from).toEqual(new Date('2025-05-01T00:00:00Z'));
    expect(after.to).toEqual(after.from);
  });
});

describe('PostHog stats', () => {
  const row = (event: string, total: number, unique: number) => ({
    event,
    total_count: total,
    unique_persons: unique,
    first_seen: '2025-01-01T00:00:00Z',
    last_seen: '2025-01-02T00:00:00Z',
  });

  it('gives every event zeros and no rates without events', () => {
    const stats = surveyStats([], 0);
    expect(Object.keys(stats.stats)).toEqual(['survey shown', 'survey dismissed', 'survey sent']);
    expect(stats.stats['survey sent']).toEqual({
      total_count: 0,
      unique_persons: 0,
      first_seen: null,
      last_seen: null,
      unique_persons_only_seen: 0,
      total_count_only_seen: 0,
    });
    expect(stats.rates).toEqual({ response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 });
  });

  it('counts a person who dismissed and answered as a responder, and derives the only-seen figures', () => {
    const stats = surveyStats([row('survey shown', 10, 6), row('survey dismissed', 3, 3), row('survey sent', 4, 3), row('other', 9, 9)], 1);
    expect(stats.stats['survey dismissed'].unique_persons).toBe(2);
    expect(stats.stats['survey shown']).toMatchObject({ unique_persons_only_seen: 1, total_count_only_seen: 3 });
    expect(stats.stats['survey sent']).toMatchObject({ total_count: 4, unique_persons: 3, first_seen: '2025-01-01T00:00:00Z' });
    expect(stats.rates).toEqual({
      response_rate: 40,
      dismissal_rate: 30,
      unique_users_response_rate: 50,
      unique_users_dismissal_rate: 33.33,
    });
  });

  it('never goes below zero', () => {
    const stats = surveyStats([row('survey shown', 1, 1), row('survey dismissed', 2, 1), row('survey sent', 3, 2)], 5);
    expect(stats.stats['survey dismissed'].unique_persons).toBe(0);
    expect(stats.stats['survey shown']).toMatchObject({ unique_persons_only_seen: 0, total_count_only_seen: 0 });
    expect(stats.rates.response_rate).toBe(300);
  });

  it("rounds rates as Python's round(x, 2)", () => {
    expect(round2(200 / 3)).toBe(66.67);
    expect(round2(100 / 3)).toBe(33.33);
    expect(round2(12.5)).toBe(12.5);
    expect(round2(0.125)).toBe(0.12);
    expect(round2(0.375)).toBe(0.38);
  });
});
