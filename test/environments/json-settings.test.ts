/**
 * The environment's JSON settings as PostHog's TeamSerializer checks and merges them
 * (posthog/api/team.py: `validate_test_account_filters`, `validate_path_cleaning_filters`,
 * `validate_session_replay_config`, `validate_modifiers`, `validate_team_attrs`, `update`).
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

async function createEnv(body: Record<string, unknown> = {}) {
  const res = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
    method: 'POST',
    body: { name: 'Parity', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const patch = (id: number, body: unknown, key?: string) =>
  server.request(`/api/environments/${id}/`, { method: 'PATCH', body, ...(key ? { key } : {}) });

describe('PATCH merges JSON settings as TeamSerializer.update does', () => {
  it('merges session_replay_config one level deep, keeping keys the request leaves out; null clears it', async () => {
    const env = await createEnv();
    const first = await patch(env.id, {
      session_replay_config: { record_canvas: true, ai_config: { opt_in: true, preferred_events: ['$pageview'] } },
    });
    expect(first.status, first.text).toBe(200);
    const second = await patch(env.id, { session_replay_config: { ai_config: { excluded_events: ['$autocapture'] } } });
    expect(second.body.session_replay_config).toEqual({
      record_canvas: true,
      ai_config: { opt_in: true, preferred_events: ['$pageview'], excluded_events: ['$autocapture'] },
    });
    const third = await patch(env.id, { session_replay_config: { record_canvas: false } });
    expect(third.body.session_replay_config).toEqual({
      record_canvas: false,
      ai_config: { opt_in: true, preferred_events: ['$pageview'], excluded_events: ['$autocapture'] },
    });
    expect((await server.request(`/api/environments/${env.id}/`)).body.session_replay_config).toEqual(third.body.session_replay_config);
    const cleared = await patch(env.id, { session_replay_config: null });
    expect(cleared.body.session_replay_config).toBeNull();
    const fresh = await patch(env.id, { session_replay_config: { record_canvas: true } });
    expect(fresh.body.session_replay_config).toEqual({ record_canvas: true });
  });

  it('keeps every key of PATCHes that arrive together', async () => {
    const env = await createEnv();
    await patch(env.id, { session_replay_config: { ai_config: {} } });
    const writes = [
      { record_canvas: true },
      { ai_config: { opt_in: true } },
      { ai_config: { preferred_events: ['$pageview'] } },
      { ai_config: { excluded_events: ['$autocapture'] } },
      { ai_config: { included_event_properties: ['$browser'] } },
      { ai_config: { important_user_properties: ['email'] } },
    ];
    const answers = await Promise.all(writes.map((w) => patch(env.id, { session_replay_config: w })));
    for (const res of answers) expect(res.status, res.text).toBe(200);
    const read = await server.request(`/api/environments/${env.id}/`);
    expect(read.body.session_replay_config).toEqual({
      record_canvas: true,
      ai_config: {
        opt_in: true,
        preferred_events: ['$pageview'],
        excluded_events: ['$autocapture'],
        included_event_properties: ['$browser'],
        important_user_properties: ['email'],
      },
    });
  });

  it('merges modifiers and survey_config at the top level; null clears them', async () => {
    const env = await createEnv();
    await patch(env.id, {
      modifiers: { personsOnEventsMode: 'person_id_no_override_properties_on_events' },
      survey_config: { appearance: { backgroundColor: '#fff' } },
    });
    const merged = await patch(env.id, {
      modifiers: { bounceRatePageViewMode: 'uniq_urls' },
      survey_config: { appearance: { borderColor: '#000' }, thankYouMessage: 'Thanks' },
    });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.modifiers).toEqual({
      personsOnEventsMode: 'person_id_no_override_properties_on_events',
      bounceRatePageViewMode: 'uniq_urls',
    });
    // survey_config is merged at the top level only: the appearance given replaces the stored one.
    expect(merged.body.survey_config).toEqual({ appearance: { borderColor: '#000' }, thankYouMessage: 'Thanks' });
    const cleared = await patch(env.id, { modifiers: null, survey_config: null });
    expect(cleared.body).toMatchObject({ modifiers: null, survey_config: null });
  });

  it('refuses a session_replay_config or modifiers that is not a dictionary of known keys', async () => {
    const env = await createEnv();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ session_replay_config: ['record_canvas'] }, 'Must provide a dictionary or None.', 'session_replay_config'],
      [
        { session_replay_config: { record_canvas: true, fps: 4 } },
        'Must provide a dictionary with only known keys. One or more of record_canvas, ai_config.',
        'session_replay_config',
      ],
      [
        { session_replay_config: { ai_config: { model: 'x' } } },
        'Must provide a dictionary with only allowed keys: included_event_properties, opt_in, preferred_events, excluded_events, important_user_properties.',
        'session_replay_config',
      ],
      [{ modifiers: 'fast' }, 'Must provide a dictionary or None.', 'modifiers'],
    ];
    for (const [body, detail, attr] of cases) {
      const res = await patch(env.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail, attr });
    }
  });
});

describe("JSON settings are checked as PostHog's newer versions check them", () => {
  const FILTERS = 'Must provide an array of valid property filters. ';
  const refused: Array<[string, Record<string, unknown>, string | RegExp, string | null, string?]> = [
    [
      'test_account_filters not a list',
      { test_account_filters: { key: 'email' } },
      `${FILTERS}Input should be a valid list`,
      'test_account_filters',
    ],
    [
      'a person filter without operator',
      { test_account_filters: [{ key: 'email', type: 'person', value: 'x' }] },
      `${FILTERS}0.PersonPropertyFilter.operator: Field required`,
      'test_account_filters',
    ],
    [
      'a filter with an unknown field',
      {
        test_account_filters: [
          { key: '$host', type: 'event', value: 'x', operator: 'exact' },
          { key: 'id', type: 'cohort', value: 3, operator: 'not_in', negation: true },
        ],
      },
      `${FILTERS}1.CohortPropertyFilter.negation: Extra inputs are not permitted`,
      'test_account_filters',
    ],
    [
      'a cohort filter naming no cohort',
      { test_account_filters: [{ key: 'id', type: 'cohort', value: 'internal' }] },
      `${FILTERS}0.CohortPropertyFilter.value: Input should be a valid integer`,
      'test_account_filters',
    ],
    [
      'an unknown operator',
      { test_account_filters: [{ key: '$host', operator: 'like', value: 'x' }] },
      new RegExp(`^${FILTERS}0\\.EventPropertyFilter\\.operator: Input should be 'exact', `),
      'test_account_filters',
    ],
    [
      'a filter that is not an object',
      { test_account_filters: ['email'] },
      `${FILTERS}0: Input should be a valid dictionary`,
      'test_account_filters',
    ],
    ['null test_account_filters', { test_account_filters: null }, 'This field may not be null.', 'test_account_filters', 'null'],
    [
      'path_cleaning_filters not a list',
      { path_cleaning_filters: 'x' },
      'Must provide a list of path cleaning rules.',
      'path_cleaning_filters',
    ],
    [
      'a bad path cleaning regex',
      { path_cleaning_filters: [{ alias: '/user/<id>', regex: '/user/(\\d+' }] },
      "Invalid path cleaning regex '/user/(\\d+': missing ): /user/(\\d+",
      'path_cleaning_filters',
    ],
    [
      'a path cleaning rule without regex',
      { path_cleaning_filters: [{ alias: '/x' }] },
      'A path cleaning rule needs a regex. Remove the rule or give it one.',
      'path_cleaning_filters',
    ],
    [
      'an alias naming a missing group',
      { path_cleaning_filters: [{ regex: '/user/(\\d+)/(\\w+)', alias: '/user/\\1/\\3' }] },
      "The alias '/user/\\1/\\3' references capture group \\3, but its regex has 2 capture group(s). Add the group to the regex or fix the reference.",
      'path_cleaning_filters',
    ],
    [
      'errors to ignore not a list',
      { autocapture_exceptions_errors_to_ignore: 'ResizeObserver' },
      'Must provide a list for field: autocapture_exceptions_errors_to_ignore.',
      null,
    ],
    [
      'errors to ignore set to null',
      { autocapture_exceptions_errors_to_ignore: null },
      'Must provide a list for field: autocapture_exceptions_errors_to_ignore.',
      null,
    ],
    [
      'errors to ignore not strings',
      { autocapture_exceptions_errors_to_ignore: ['ok', { regex: 'x' }] },
      'Must provide a list of strings to field: autocapture_exceptions_errors_to_ignore.',
      null,
    ],
    [
      'errors to ignore over 300 characters',
      // 48 strings of 4 characters: json.dumps writes 48 × 6 + 47 × 2 + 2 = 384 characters.
      { autocapture_exceptions_errors_to_ignore: Array.from({ length: 48 }, (_, i) => `e${String(i).padStart(3, '0')}`) },
      'Field autocapture_exceptions_errors_to_ignore must be less than 300 characters. Complex config should be provided in posthog-js initialization.',
      null,
    ],
  ];
  for (const [name, body, detail, attr, code = 'invalid_input'] of refused) {
    it(`refuses ${name}, on create and on update`, async () => {
      for (const [method, path] of [
        ['POST', `/api/projects/${server.bootstrap.project.id}/environments/`],
        ['PATCH', `/api/environments/${server.bootstrap.team.id}/`],
      ] as const) {
        const res = await server.request(path, { method, body });
        expect(res.status, `${method} ${res.text}`).toBe(400);
        expect(res.body, method).toEqual({
          type: 'validation_error',
          code,
          detail: typeof detail === 'string' ? detail : expect.stringMatching(detail),
          attr,
        });
      }
    });
  }

  it('accepts the filters, rules and lists PostHog accepts, and keeps them as written', async () => {
    const env = await createEnv();
    const body = {
      test_account_filters: [
        { key: 'email', type: 'person', value: '@example.com', operator: 'not_icontains' },
        { key: '$host', type: 'event', value: 'localhost', operator: 'icontains' },
        { key: 'id', type: 'cohort', value: 8814, operator: 'not_in' },
        { key: '$browser', value: ['Chrome', 'Firefox'] },
        { key: 'plan', type: 'group', group_type_index: 0, operator: 'exact', value: 'free', label: 'Free orgs' },
        { key: 'properties.$host', type: 'hogql' },
        {},
      ],
      // Rules that are not objects are left as they are, as PostHog does.
      path_cleaning_filters: [{ regex: '/user/(\\d+)', alias: '/user/<\\1>' }, { regex: '\\?.*', alias: '' }, 'legacy'],
      autocapture_exceptions_errors_to_ignore: ['ResizeObserver loop', '^Script error\\.?$'],
    };
    const res = await patch(env.id, body);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject(body);
    const empty = await patch(env.id, {
      test_account_filters: [],
      path_cleaning_filters: null,
      autocapture_exceptions_errors_to_ignore: [],
    });
    expect(empty.body).toMatchObject({
      test_account_filters: [],
      path_cleaning_filters: null,
      autocapture_exceptions_errors_to_ignore: [],
    });
  });
});
