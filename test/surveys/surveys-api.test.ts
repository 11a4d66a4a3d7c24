import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createForeignOrganization, createKey, createProject } from '../helpers/fixtures.js';
import { createFlag, flagsPath, personFilter } from '../flags/flag-helpers.js';
import { createSurvey, openQuestion, patchSurvey, surveysPath } from './survey-helpers.js';

const server = useTestServer();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const targeting = { groups: [{ properties: [personFilter('email', '@example.com', 'icontains')], rollout_percentage: 100 }] };

/** The validation error a POST of this body answers (fails the test on anything but 400). */
async function refusal(body: Record<string, unknown>, path = surveysPath(server), method = 'POST') {
  const res = await server.request(path, { method, body });
  expect(res.status, res.text).toBe(400);
  expect(res.body.type).toBe('validation_error');
  return res.body as { code: string; detail: string; attr: string | null };
}

let names = 0;
const uniqueName = () => `Survey ${++names}`;

describe('survey CRUD', () => {
  it('creates a survey in the shape of PostHog’s create serializer, ids on its questions', async () => {
    const created = await createSurvey(server, {
      name: 'Onboarding feedback',
      description: 'after signup',
      type: 'popover',
      questions: [openQuestion(), { type: 'rating', question: 'How likely?', display: 'number', scale: 10, id: 'my-own-id' }],
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      appearance: { backgroundColor: '#eeeded' },
    });
    expect(Object.keys(created)).toEqual([
      'id',
      'name',
      'description',
      'type',
      'schedule',
      'linked_flag',
      'targeting_flag',
      'internal_targeting_flag',
      'questions',
      'conditions',
      'appearance',
      'created_at',
      'created_by',
      'start_date',
      'end_date',
      'archived',
      'responses_limit',
      'iteration_count',
      'iteration_frequency_days',
      'iteration_start_dates',
      'current_iteration',
      'current_iteration_start_date',
      'response_sampling_start_date',
      'response_sampling_interval_type',
      'response_sampling_interval',
      'response_sampling_limit',
      'response_sampling_daily_limits',
      'enable_partial_responses',
    ]);
    expect(created).toMatchObject({
      name: 'Onboarding feedback',
      description: 'after signup',
      type: 'popover',
      schedule: 'once',
      linked_flag: null,
      targeting_flag: null,
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      start_date: null,
      end_date: null,
      archived: false,
      iteration_start_dates: [],
      response_sampling_interval_type: 'week',
      enable_partial_responses: false,
    });
    expect(created.id).toMatch(UUID);
    expect(created.questions[0].id).toMatch(UUID);
    expect(created.questions[1].id).toBe('my-own-id');
    expect(created.created_by.email).toBe(server.bootstrap.user.email);
    expect(created.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    // The internal targeting flag: people who dismissed or answered are left out; off until launched.
    expect(created.internal_targeting_flag).toMatchObject({
      key: expect.stringMatching(/^survey-targeting-[0-9a-f]{10}-custom$/),
      name: 'Targeting flag for survey Onboarding feedback',
      active: false,
      filters: {
        groups: [
          {
            variant: '',
            rollout_percentage: 100,
            properties: [
              { key: `$survey_dismissed/${created.id}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
              { key: `$survey_responded/${created.id}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
            ],
          },
        ],
      },
    });

    const fetched = await server.request(surveysPath(server, `${created.id}/`));
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ id: created.id, linked_flag_id: null, user_access_level: 'editor' });
    expect(fetched.body.feature_flag_keys).toEqual([
      { key: 'linked_flag_key', value: null },
      { key: 'targeting_flag_key', value: null },
      { key: 'internal_targeting_flag_key', value: created.internal_targeting_flag.key },
      { key: 'internal_response_sampling_flag_key', value: null },
    ]);
    // The same survey through the environment's address.
    const twin = await server.request(surveysPath(server, `${created.id}/`, 'environments'));
    expect(twin.body.id).toBe(created.id);
  });

  it('lists surveys newest first, paginated, with search and archived filters', async () => {
    const a = await createSurvey(server, { name: 'Pricing page NPS', type: 'popover', questions: [openQuestion()] });
    const b = await createSurvey(server, {
      name: 'Churn',
      description: 'why people leave pricing',
      type: 'api',
      questions: [openQuestion()],
    });
    await patchSurvey(server, a.id, { archived: true });
    const search = await server.request(surveysPath(server, '?search=pricing'));
    expect(search.body.results.map((s: any) => s.id)).toEqual([b.id, a.id]);
    const archived = await server.request(surveysPath(server, '?search=pricing&archived=true'));
    expect(archived.body.results.map((s: any) => s.id)).toEqual([a.id]);
    const page = await server.request(surveysPath(server, '?limit=1'));
    expect(page.body.results).toHaveLength(1);
    expect(page.body.count).toBeGreaterThanOrEqual(2);
    expect(page.body.next).toContain('offset=1');
  });

  it('edits a survey and records its history; DELETE removes it and its flags for good', async () => {
    const survey = await createSurvey(server, {
      name: uniqueName(),
      type: 'popover',
      questions: [openQuestion()],
      targeting_flag_filters: targeting,
    });
    const internalId = survey.internal_targeting_flag.id;
    const targetingId = survey.targeting_flag.id;
    const renamed = await patchSurvey(server, survey.id, { name: 'Renamed survey', description: 'now' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed survey', description: 'now' });

    const history = await server.request(surveysPath(server, `${survey.id}/activity/`));
    expect(history.body.results.map((r: any) => r.activity)).toEqual(['updated', 'created']);
    expect(history.body.results[0].detail.changes).toEqual(
      expect.arrayContaining([{ type: 'Survey', action: 'changed', field: 'name', before: survey.name, after: 'Renamed survey' }]),
    );

    const deleted = await server.request(surveysPath(server, `${survey.id}/`), { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await server.request(surveysPath(server, `${survey.id}/`))).status).toBe(404);
    for (const id of [internalId, targetingId]) expect((await server.request(flagsPath(server, `${id}/`))).status).toBe(404);
    const all = await server.request(surveysPath(server, 'activity/'));
    expect(all.body.results[0]).toMatchObject({ activity: 'deleted', item_id: survey.id, detail: { name: 'Renamed survey' } });
  });

  it('answers 404 for unknown and malformed ids', async () => {
    expect((await server.request(surveysPath(server, '00000000-0000-0000-0000-000000000000/'))).status).toBe(404);
    expect((await server.request(surveysPath(server, 'not-a-uuid/'))).status).toBe(404);
    expect((await patchSurvey(server, 'not-a-uuid', { name: 'x' })).status).toBe(404);
  });
});

describe('survey validation (PostHog’s messages)', () => {
  const cases: Array<[string, Record<string, unknown>, Partial<{ detail: string; attr: string | null; code: string }>]> = [
    ['name is required', { type: 'popover' }, { detail: 'This field is required.', attr: 'name', code: 'required' }],
    ['type is required', { name: 'x' }, { detail: 'This field is required.', attr: 'type', code: 'required' }],
    [
      'type is a choice',
      { name: 'x', type: 'banner' },
      { detail: '"banner" is not a valid choice.', attr: 'type', code: 'invalid_choice' },
    ],
    ['name is at most 400 characters', { name: 'n'.repeat(401), type: 'api' }, { attr: 'name', code: 'max_length' }],
    [
      'questions must be a list',
      { name: 'x', type: 'api', questions: { a: 1 } },
      { detail: 'Questions must be a list of objects', attr: 'questions' },
    ],
    [
      'questions must be objects',
      { name: 'x', type: 'api', questions: ['why?'] },
      { detail: 'Questions must be a list of objects', attr: 'questions' },
    ],
    [
      'question text is required',
      { name: 'x', type: 'api', questions: [{ type: 'open', question: '' }] },
      { detail: 'Question text is required' },
    ],
    [
      'question text is a string (posthog-js renders it as HTML)',
      { name: 'x', type: 'api', questions: [{ type: 'open', question: ['<img src=x onerror=alert(1)>'] }] },
      { detail: 'Question text must be a string', attr: 'questions' },
    ],
    [
      'a question description is a string',
      { name: 'x', type: 'api', questions: [{ type: 'open', question: 'q', description: ['<img src=x onerror=alert(1)>'] }] },
      { detail: 'Question description must be a string', attr: 'questions' },
    ],
    [
      'a thank-you text is a string',
      { name: 'x', type: 'api', appearance: { thankYouMessageDescription: { html: '<img src=x onerror=alert(1)>' } } },
      { detail: 'thankYouMessageDescription must be a string', attr: 'appearance' },
    ],
    [
      'at most 100 questions',
      { name: 'x', type: 'api', questions: Array.from({ length: 101 }, (_, i) => ({ type: 'open', question: `q${i}` })) },
      { detail: 'A survey can have at most 100 questions', attr: 'questions' },
    ],
    [
      'targeting filters are an object',
      { name: 'x', type: 'api', targeting_flag_filters: 5 },
      { detail: 'Targeting flag filters must be an object of feature flag filters.', attr: 'targeting_flag_filters' },
    ],
    [
      'a linked flag id of 0 names no flag',
      { name: 'x', type: 'api', linked_flag_id: 0 },
      { detail: 'Feature Flag with this ID does not exist' },
    ],
    [
      'choices must be a list',
      { name: 'x', type: 'api', questions: [{ type: 'single_choice', question: 'q', choices: 'a, b' }] },
      { detail: 'Question choices must be a list of strings' },
    ],
    [
      'choices cannot be empty',
      { name: 'x', type: 'api', questions: [{ type: 'multiple_choice', question: 'q', choices: ['a', '  '] }] },
      { detail: 'Question choices cannot be empty' },
    ],
    [
      'description content type',
      { name: 'x', type: 'api', questions: [{ type: 'open', question: 'q', descriptionContentType: 'markdown' }] },
      { detail: "Question descriptionContentType must be one of ['text', 'html']" },
    ],
    [
      'links are https or mailto',
      { name: 'x', type: 'api', questions: [{ type: 'link', question: 'q', link: 'http://example.com' }] },
      { detail: 'Link must be a URL with one of these schemes: [https, mailto]', attr: 'questions' },
    ],
    [
      'javascript links are refused',
      { name: 'x', type: 'api', questions: [{ type: 'link', question: 'q', link: 'javascript:alert(1)' }] },
      { detail: 'Link must be a URL with one of these schemes: [https, mailto]' },
    ],
    [
      'mailto links hold an address',
      { name: 'x', type: 'api', questions: [{ type: 'link', question: 'q', link: 'mailto:nobody' }] },
      { detail: 'Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).' },
    ],
    [
      'https links have a host',
      { name: 'x', type: 'api', questions: [{ type: 'link', question: 'q', link: 'https:/path' }] },
      { detail: 'Invalid HTTPS URL. Please enter a valid HTTPS link.' },
    ],
    [
      'appearance is an object',
      { name: 'x', type: 'api', appearance: [1] },
      { detail: 'Appearance must be an object', attr: 'appearance' },
    ],
    [
      'popup delay is positive',
      { name: 'x', type: 'api', appearance: { surveyPopupDelaySeconds: -1 } },
      { detail: 'Survey popup delay seconds must be a positive integer', attr: 'appearance' },
    ],
    ['whiteLabel is a boolean', { name: 'x', type: 'api', appearance: { whiteLabel: 'yes' } }, { detail: 'whiteLabel must be a boolean' }],
    [
      'conditions are an object',
      { name: 'x', type: 'api', conditions: 'url' },
      { detail: 'Conditions must be an object', attr: 'conditions' },
    ],
    [
      'schedule is a known one',
      { name: 'x', type: 'api', schedule: 'weekly' },
      { detail: 'Schedule must be one of: once, recurring, always', attr: 'schedule' },
    ],
    [
      'iteration count at most 500',
      { name: 'x', type: 'api', iteration_count: 501 },
      { detail: 'Ensure this value is less than or equal to 500.', attr: 'iteration_count', code: 'max_value' },
    ],
    [
      'iteration start dates are a list',
      { name: 'x', type: 'api', iteration_start_dates: 'soon' },
      { detail: 'Expected a list of items but got type "str".', attr: 'iteration_start_dates', code: 'not_a_list' },
    ],
    [
      'start date is a datetime',
      { name: 'x', type: 'api', start_date: 'tomorrow' },
      { attr: 'start_date', detail: expect.stringContaining('Datetime has wrong format') as unknown as string },
    ],
    [
      'linked flag exists',
      { name: 'x', type: 'api', linked_flag_id: 987654 },
      { detail: 'Feature Flag with this ID does not exist', attr: null },
    ],
    [
      'variant needs a linked flag',
      { name: 'x', type: 'api', conditions: { linkedFlagVariant: 'test' } },
      { detail: 'linkedFlagVariant can only be used when a linked_flag_id is specified' },
    ],
    [
      'targeting that rolls out to everyone',
      { name: 'x', type: 'popover', targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
      {
        detail: 'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
        attr: null,
      },
    ],
    [
      'external surveys take no display conditions',
      { name: 'x', type: 'external_survey', conditions: { url: '/a', selector: '#b' } },
      { detail: 'The following condition fields are not allowed for external surveys: url, selector', attr: 'conditions' },
    ],
    [
      'sampling interval above zero',
      { name: 'x', type: 'api', response_sampling_interval: 0 },
      { detail: 'Response sampling interval must be greater than 0.', attr: 'response_sampling_interval' },
    ],
    [
      'targeting filters are valid flag filters',
      {
        name: 'x',
        type: 'popover',
        targeting_flag_filters: { groups: [{ properties: [{ key: 'a', value: 'b', type: 'event' }], rollout_percentage: 50 }] },
      },
      { detail: 'Filters are not valid (can only use person, cohort, and flag properties)', attr: 'filters' },
    ],
  ];
  for (const [name, body, expected] of cases) {
    it(name, async () => {
      expect(await refusal(body)).toMatchObject({ code: 'invalid_input', ...expected });
    });
  }

  it('refuses a name another survey of the project has, on create and on rename', async () => {
    const first = await createSurvey(server, { name: 'Taken name', type: 'api' });
    expect(await refusal({ name: 'Taken name', type: 'api' })).toMatchObject({
      detail: 'There is already a survey with this name.',
      code: 'unique',
    });
    const second = await createSurvey(server, { name: 'Other name', type: 'api' });
    expect(await refusal({ name: 'Taken name' }, surveysPath(server, `${second.id}/`), 'PATCH')).toMatchObject({
      detail: 'There is already another survey with this name.',
      code: 'unique',
    });
    expect((await patchSurvey(server, first.id, { name: 'Taken name' })).status).toBe(200);
  });

  it('checks a linked flag’s variant against its variants', async () => {
    const flag = await createFlag(server, {
      key: 'checkout-test',
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 50 },
            { key: 'test', rollout_percentage: 50 },
          ],
        },
      },
    });
    expect(await refusal({ name: 'x', type: 'api', linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'blue' } })).toMatchObject({
      detail: "Feature flag variant 'blue' does not exist. Available variants: control, test",
    });
    const plain = await createFlag(server, { key: 'plain-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    expect(await refusal({ name: 'x', type: 'api', linked_flag_id: plain.id, conditions: { linkedFlagVariant: 'blue' } })).toMatchObject({
      detail: "Feature flag variant 'blue' specified but the linked feature flag has no variants",
    });
    const linked = await createSurvey(server, {
      name: uniqueName(),
      type: 'api',
      linked_flag_id: flag.id,
      conditions: { linkedFlagVariant: 'test' },
    });
    expect(linked.linked_flag).toMatchObject({ id: flag.id, key: 'checkout-test' });
    const read = await server.request(surveysPath(server, `${linked.id}/`));
    expect(read.body.linked_flag_id).toBe(flag.id);
  });

  it('refuses lowering the recurrence below the current iteration', async () => {
    const survey = await createSurvey(server, {
      name: uniqueName(),
      type: 'popover',
      iteration_count: 4,
      iteration_frequency_days: 7,
      start_date: '2030-01-01T00:00:00Z',
    });
    expect(survey.current_iteration).toBe(1);
    expect(survey.iteration_start_dates).toEqual([
      '2030-01-01T00:00:00Z',
      '2030-01-08T00:00:00Z',
      '2030-01-15T00:00:00Z',
      '2030-01-22T00:00:00Z',
    ]);
    await server.running.ctx.database.db.updateTable('surveys').set({ current_iteration: 3 }).where('id', '=', survey.id).execute();
    expect(await refusal({ iteration_count: 2, iteration_frequency_days: 7 }, surveysPath(server, `${survey.id}/`), 'PATCH')).toMatchObject(
      {
        detail: 'Cannot change survey recurrence to 2, should be at least 3',
      },
    );
  });

  it('cleans markup in question texts and thank-you messages', async () => {
    const survey = await createSurvey(server, {
      name: uniqueName(),
      type: 'popover',
      questions: [
        {
          type: 'open',
          question: 'Hi <script>alert(1)</script><b onclick="x()">there</b>',
          description: '<a href="javascript:alert(1)">docs</a> <img src=x onerror=alert(1)>',
          descriptionContentType: 'html',
        },
      ],
      appearance: { thankYouMessageHeader: '<iframe src="https://evil"></iframe>Thanks <em>a lot</em>' },
    });
    expect(survey.questions[0].question).toBe('Hi <b>there</b>');
    expect(survey.questions[0].description).toBe('<a rel="noopener">docs</a> <img src="x">');
    expect(survey.appearance.thankYouMessageHeader).toBe('Thanks <em>a lot</em>');
  });
});

describe('targeting flags', () => {
  it('builds a survey-targeting flag from the targeting filters, follows the survey’s launch and end, and can remove it', async () => {
    const survey = await createSurvey(server, { name: uniqueName(), type: 'popover', targeting_flag_filters: targeting });
    expect(survey.targeting_flag).toMatchObject({
      key: expect.stringMatching(/^survey-targeting-[0-9a-f]{10}$/),
      name: `Targeting flag for survey ${survey.name}`,
      active: false,
      filters: targeting,
    });
    const launched = await patchSurvey(server, survey.id, { start_date: '2024-05-01T10:00:00Z' });
    expect(launched.body.start_date).toBe('2024-05-01T10:00:00Z');
    expect(launched.body.targeting_flag.active).toBe(true);
    expect(launched.body.internal_targeting_flag.active).toBe(true);

    const ended = await patchSurvey(server, survey.id, { end_date: '2024-06-01T10:00:00Z' });
    expect(ended.body.targeting_flag.active).toBe(false);
    expect(ended.body.internal_targeting_flag.active).toBe(false);

    const newFilters = { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 50 }] };
    const retargeted = await patchSurvey(server, survey.id, { targeting_flag_filters: newFilters, end_date: null });
    expect(retargeted.body.targeting_flag).toMatchObject({ id: survey.targeting_flag.id, filters: newFilters, active: true });

    const removed = await patchSurvey(server, survey.id, { remove_targeting_flag: true });
    expect(removed.body.targeting_flag).toBeNull();
    expect((await server.request(flagsPath(server, `${survey.targeting_flag.id}/`))).status).toBe(404);
    const history = await server.request(surveysPath(server, `${survey.id}/activity/`));
    expect(history.body.results[0].detail.changes[0]).toMatchObject({ action: 'deleted', field: 'targeting_flag' });
  });

  it('renews the internal flag’s keys with the iteration and adds the wait period, keeping its other filters', async () => {
    const survey = await createSurvey(server, { name: uniqueName(), type: 'popover', start_date: '2024-05-01T10:00:00Z' });
    const internalPath = flagsPath(server, `${survey.internal_targeting_flag.id}/`);
    const keysOf = async () =>
      ((await server.request(internalPath)).body.filters.groups as Array<{ properties: Array<{ key: string }> }>).map((g) =>
        g.properties.map((p) => p.key),
      );
    expect(await keysOf()).toEqual([[`$survey_dismissed/${survey.id}`, `$survey_responded/${survey.id}`]]);

    const recurring = await patchSurvey(server, survey.id, { schedule: 'recurring', iteration_count: 5, iteration_frequency_days: 30 });
    expect(recurring.status, recurring.text).toBe(200);
    expect(await keysOf()).toEqual([[`$survey_dismissed/${survey.id}/1`, `$survey_responded/${survey.id}/1`]]);

    const waiting = await patchSurvey(server, survey.id, { conditions: { seenSurveyWaitPeriodInDays: 14 } });
    expect(waiting.status, waiting.text).toBe(200);
    const flag = (await server.request(internalPath)).body;
    expect(flag.filters.groups.map((g: any) => g.properties[2])).toEqual([
      { key: '$survey_last_seen_date', value: 'is_not_set', operator: 'is_not_set', type: 'person' },
      { key: '$survey_last_seen_date', value: '14d', operator: 'is_date_before', type: 'person' },
    ]);
  });

  it('changes no flag when an edit is refused', async () => {
    const survey = await createSurvey(server, {
      name: uniqueName(),
      type: 'popover',
      start_date: '2030-01-01T00:00:00Z',
      iteration_count: 4,
      iteration_frequency_days: 7,
      targeting_flag_filters: targeting,
    });
    await server.running.ctx.database.db.updateTable('surveys').set({ current_iteration: 3 }).where('id', '=', survey.id).execute();
    const refused = await patchSurvey(server, survey.id, { remove_targeting_flag: true, iteration_count: 2, iteration_frequency_days: 7 });
    expect(refused.status).toBe(400);
    expect((await server.request(flagsPath(server, `${survey.targeting_flag.id}/`))).status).toBe(200);
  });

  it('keeps a survey’s flags out of the flag list, but not other flags', async () => {
    const survey = await createSurvey(server, { name: uniqueName(), type: 'popover', targeting_flag_filters: targeting });
    const mine = await createFlag(server, { key: 'an-ordinary-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    const list = await server.request(flagsPath(server, '?limit=500'));
    const keys = list.body.results.map((f: any) => f.key);
    expect(keys).toContain(mine.key);
    expect(keys).not.toContain(survey.targeting_flag.key);
    expect(keys).not.toContain(survey.internal_targeting_flag.key);
    expect(list.body.count).toBe(list.body.results.length);
  });
});

describe('access', () => {
  it('needs survey:read to read and survey:write to write', async () => {
    const readOnly = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['survey:read']);
    const flagsOnly = await createKey(server.running.ctx.database, server.bootstrap.user.id, ['feature_flag:write']);
    expect((await server.request(surveysPath(server), { key: readOnly })).status).toBe(200);
    const write = await server.request(surveysPath(server), { key: readOnly, method: 'POST', body: { name: uniqueName(), type: 'api' } });
    expect(write.status).toBe(403);
    expect(write.body.detail).toBe("API key missing required scope 'survey:write'");
    const read = await server.request(surveysPath(server), { key: flagsOnly });
    expect(read.status).toBe(403);
    expect(read.body.detail).toBe("API key missing required scope 'survey:read'");
  });

  it('keeps each project’s surveys to itself', async () => {
    const survey = await createSurvey(server, { name: 'Shared name', type: 'api' });
    const { team: other } = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
    const otherPath = surveysPath(server, '', 'projects', other.id);
    expect((await server.request(`${otherPath}${survey.id}/`)).status).toBe(404);
    expect((await server.request(`${otherPath}${survey.id}/`, { method: 'PATCH', body: { name: 'hijack' } })).status).toBe(404);
    expect((await server.request(`${otherPath}${survey.id}/`, { method: 'DELETE' })).status).toBe(404);
    // The same name is free in another project.
    const theirs = await server.request(otherPath, { method: 'POST', body: { name: 'Shared name', type: 'api' } });
    expect(theirs.status, theirs.text).toBe(201);
    expect((await server.request(otherPath)).body.results.map((s: any) => s.id)).toEqual([theirs.body.id]);
    // A flag of another project cannot be linked.
    const foreignFlag = await server.request(`/api/projects/${other.id}/feature_flags/`, {
      method: 'POST',
      body: { key: 'theirs', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    expect(await refusal({ name: uniqueName(), type: 'api', linked_flag_id: foreignFlag.body.id })).toMatchObject({
      detail: 'Feature Flag with this ID does not exist',
    });
    const foreign = await createForeignOrganization(server.running.ctx.database);
    expect((await server.request(surveysPath(server, '', 'projects', foreign.team.id))).status).toBe(403);
  });
});
