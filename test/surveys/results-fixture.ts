/**
 * Survey events as posthog-js 1.434.18 sends them (survey shown / sent / dismissed, with
 * `$survey_response_<question id>`, `$survey_questions`, `$survey_submission_id`,
 * `$survey_completed`, `$set: {$survey_responded/<id>: true}`), with results worked out by hand.
 *
 * Survey SURVEY (start 1 Mar 2025, no end), questions: open, rating 0–10, single choice with an
 * open choice, multiple choice, link, optional open.
 *
 *   sub1 u1  2 Mar 10:00 partial (open "first draft"), then 10:01 complete: open "Faster pages",
 *            rating 9, Red, [A, C], link clicked; the optional question not answered
 *   sub2 u2  3 Mar: open "More <b>colour</b>", rating "10" (text), Teal (typed in the open
 *            choice), [B], optional ""
 *   u3       4 Mar, no submission id, legacy keys only: "legacy open", 3, Green, [A]
 *   sub4 u4  5 Mar: rating 0, [] and nulls elsewhere
 *   sub6 u6  6 Mar "early" (partial), then 10 Mar "late": counted on 10 Mar only
 *   u5       25 Feb, before the survey started: not in results (in stats, which read no life)
 *   u1       a response to another survey
 *
 * Results over the whole life: 5 responses; open: late, legacy open, More <b>colour</b>, Faster
 * pages (4); rating: 0, 3, 9, 10 once each, average 5.5 (4); single: Red 1, Green 1, Teal 1 (3);
 * multiple: A 2, B 1, C 1 (3); link: 1; optional: 0.
 *
 * Stats: shown by u1 u2 u3 u4 u6 u7 u7 u8 (8 events, 7 persons); dismissed by u8 and u2 (who also
 * sent), and by u9 partly answered (left out); sent: 6 submissions by 6 persons (u5 included).
 */
export const SURVEY = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
export const OTHER_SURVEY = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';

export const QUESTIONS = [
  { id: 'q-open', type: 'open', question: 'What would you improve?' },
  { id: 'q-rate', type: 'rating', question: 'How likely are you to recommend us?', display: 'number', scale: 10 },
  { id: 'q-single', type: 'single_choice', question: 'Favourite colour?', choices: ['Red', 'Green', 'Other'], hasOpenChoice: true },
  { id: 'q-multi', type: 'multiple_choice', question: 'Which do you use?', choices: ['A', 'B', 'C'] },
  { id: 'q-link', type: 'link', question: 'Read the docs', link: 'https://example.com' },
  { id: 'q-skip', type: 'open', question: 'Anything else?', optional: true },
];

export const DEFINITION = {
  id: SURVEY,
  questions: QUESTIONS,
  start_date: '2025-03-01T00:00:00Z',
  end_date: null,
  created_at: '2025-02-20T00:00:00Z',
};

type Answers = Record<string, unknown>;

function sent(who: string, timestamp: string, answers: Answers, submission: string | null, completed = true, survey = SURVEY) {
  const responses = Object.fromEntries(Object.entries(answers).map(([id, value]) => [`$survey_response_${id}`, value]));
  return {
    event: 'survey sent',
    distinct_id: who,
    timestamp,
    properties: {
      $survey_id: survey,
      $survey_name: 'Feedback',
      $survey_iteration: null,
      ...(submission === null ? {} : { $survey_submission_id: submission, $survey_completed: completed }),
      $survey_questions: QUESTIONS.map((q) => ({ id: q.id, question: q.question, response: answers[q.id] ?? null })),
      ...responses,
      $set: { [`$survey_responded/${survey}`]: true },
    },
  };
}

function shown(who: string, timestamp: string, survey: string) {
  return { event: 'survey shown', distinct_id: who, timestamp, properties: { $survey_id: survey, $survey_name: 'Feedback' } };
}

function dismissed(who: string, timestamp: string, partly: boolean | null, survey: string) {
  return {
    event: 'survey dismissed',
    distinct_id: who,
    timestamp,
    properties: {
      $survey_id: survey,
      ...(partly === null ? {} : { $survey_partially_completed: partly }),
      $set: { [`$survey_dismissed/${survey}`]: true },
    },
  };
}

/** The fixture's events for survey `survey`; `prefix` makes other people and submissions of the same answers. */
export function surveyEvents(prefix = '', survey = SURVEY): unknown[] {
  const u = (name: string) => `${prefix}${name}`;
  return [
    sent(u('u1'), '2025-03-02T10:00:00Z', { 'q-open': 'first draft' }, `${prefix}sub1`, false, survey),
    sent(
      u('u1'),
      '2025-03-02T10:01:00Z',
      { 'q-open': 'Faster pages', 'q-rate': 9, 'q-single': 'Red', 'q-multi': ['A', 'C'], 'q-link': 'link clicked' },
      `${prefix}sub1`,
      true,
      survey,
    ),
    sent(
      u('u2'),
      '2025-03-03T10:00:00Z',
      { 'q-open': 'More <b>colour</b>', 'q-rate': '10', 'q-single': 'Teal', 'q-multi': ['B'], 'q-skip': '' },
      `${prefix}sub2`,
      true,
      survey,
    ),
    {
      event: 'survey sent',
      distinct_id: u('u3'),
      timestamp: '2025-03-04T10:00:00Z',
      properties: {
        $survey_id: survey,
        $survey_response: 'legacy open',
        $survey_response_1: 3,
        $survey_response_2: 'Green',
        $survey_response_3: ['A'],
      },
    },
    sent(u('u4'), '2025-03-05T10:00:00Z', { 'q-rate': 0, 'q-multi': [], 'q-open': '', 'q-skip': null }, `${prefix}sub4`, true, survey),
    sent(u('u6'), '2025-03-06T10:00:00Z', { 'q-open': 'early' }, `${prefix}sub6`, false, survey),
    sent(u('u6'), '2025-03-10T10:00:00Z', { 'q-open': 'late' }, `${prefix}sub6`, true, survey),
    sent(u('u5'), '2025-02-25T10:00:00Z', { 'q-rate': 5 }, `${prefix}sub5`, true, survey),
    sent(u('u1'), '2025-03-02T11:00:00Z', { x: 'other survey' }, `${prefix}sub-other`, true, OTHER_SURVEY),
    ...['u1', 'u2', 'u3', 'u4', 'u6', 'u7', 'u7', 'u8'].map((who, i) => shown(u(who), `2025-03-0${1 + (i % 8)}T09:00:00Z`, survey)),
    dismissed(u('u8'), '2025-03-08T09:05:00Z', false, survey),
    dismissed(u('u2'), '2025-03-03T10:05:00Z', null, survey),
    dismissed(u('u9'), '2025-03-08T09:06:00Z', true, survey),
  ];
}
