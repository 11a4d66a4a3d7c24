/**
 * The survey form's conversions (web/src/pages/surveys/survey-form.ts): a stored survey to the form
 * and back keeps question ids and the fields the form does not edit; each question type carries
 * only its own fields; targeting filters become the targeting flag's, and none on a survey that had
 * one removes it; API error paths find their section and question.
 */
import { describe, expect, it } from 'vitest';
import type { Survey } from '../../web/src/api/surveys.js';
import { errorPlace, formFromSurvey, newQuestion, newSurveyForm, surveyFromForm } from '../../web/src/pages/surveys/survey-form.js';

const stored: Survey = {
  id: '0190a1b2-c3d4-7000-8000-000000000001',
  name: 'NPS',
  description: 'quarterly',
  type: 'popover',
  linked_flag: { id: 7, key: 'beta', name: '', filters: {}, active: true, deleted: false },
  linked_flag_id: 7,
  targeting_flag: {
    id: 9,
    key: 'survey-targeting-x',
    name: '',
    filters: {
      groups: [{ properties: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'team'] }], rollout_percentage: 100 }],
    },
    active: true,
    deleted: false,
  },
  internal_targeting_flag: null,
  questions: [
    { id: 'q1', type: 'rating', question: 'Recommend us?', display: 'emoji', scale: 5, lowerBoundLabel: 'no', upperBoundLabel: 'yes' },
    {
      id: 'q2',
      type: 'single_choice',
      question: 'Why?',
      choices: ['Price', 'Other'],
      hasOpenChoice: true,
      branching: { type: 'end' },
    },
  ],
  conditions: { url: 'pricing', urlMatchType: 'icontains', selector: '', seenSurveyWaitPeriodInDays: 30, deviceTypes: ['Mobile'] },
  appearance: { backgroundColor: '#fff', position: 'left', whiteLabel: false },
  created_at: '2026-11-01T00:00:00Z',
  created_by: null,
  start_date: null,
  end_date: null,
  archived: false,
  responses_limit: 50,
};

describe('survey form', () => {
  it('reads a stored survey and saves it back unchanged in what it does not edit', () => {
    const form = formFromSurvey(stored);
    expect(form.questions[0]).toMatchObject({ id: 'q1', display: 'emoji', scale: '5', lowerBoundLabel: 'no' });
    expect(form.questions[1]?.choices).toEqual([{ value: 'Price' }, { value: 'Other' }]);
    expect(form.targeting).toEqual([{ type: 'person', key: 'plan', operator: 'exact', value: 'pro, team' }]);
    expect(form.linkedFlagId).toBe('7');
    expect(form.waitPeriod).toBe('30');

    const body = surveyFromForm(form, stored);
    expect(body.questions).toEqual([
      {
        id: 'q1',
        type: 'rating',
        question: 'Recommend us?',
        description: '',
        optional: false,
        buttonText: '',
        display: 'emoji',
        scale: 5,
        lowerBoundLabel: 'no',
        upperBoundLabel: 'yes',
      },
      {
        id: 'q2',
        type: 'single_choice',
        question: 'Why?',
        description: '',
        optional: false,
        buttonText: '',
        choices: ['Price', 'Other'],
        hasOpenChoice: true,
        shuffleOptions: false,
        branching: { type: 'end' },
      },
    ]);
    expect(body.conditions).toMatchObject({
      url: 'pricing',
      seenSurveyWaitPeriodInDays: 30,
      deviceTypes: ['Mobile'],
      events: { repeatedActivation: false, values: [] },
    });
    expect(body.appearance).toMatchObject({ backgroundColor: '#fff', position: 'left', whiteLabel: false });
    expect(body.linked_flag_id).toBe(7);
    expect(body.responses_limit).toBe(50);
    expect(body.targeting_flag_filters).toEqual({
      groups: [
        {
          properties: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro', 'team'] }],
          rollout_percentage: 100,
          variant: null,
        },
      ],
    });
    expect(body.remove_targeting_flag).toBeUndefined();
  });

  it('a new question has no id; a link question only its link; no filters remove the targeting flag', () => {
    const form = {
      ...newSurveyForm(),
      name: 'x',
      questions: [{ ...newQuestion('link'), question: 'Docs', link: ' https://example.com ' }],
    };
    const created = surveyFromForm(form);
    expect(created.questions).toEqual([
      { type: 'link', question: 'Docs', description: '', optional: false, buttonText: 'Submit', link: 'https://example.com' },
    ]);
    expect(created.linked_flag_id).toBeNull();
    expect(created).not.toHaveProperty('targeting_flag_filters');

    const cleared = surveyFromForm({ ...formFromSurvey(stored), targeting: [] }, stored);
    expect(cleared).toMatchObject({ targeting_flag_filters: null, remove_targeting_flag: true });
  });

  it('places API errors by their attr', () => {
    expect(errorPlace('name')).toEqual({ field: 'name', index: undefined });
    expect(errorPlace('questions__2__link')).toEqual({ field: 'questions', index: 2 });
    expect(errorPlace('questions.1')).toEqual({ field: 'questions', index: 1 });
    expect(errorPlace(null)).toEqual({ field: 'root' });
  });
});
