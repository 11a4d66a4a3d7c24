/**
 * What posthog-js receives: the public `/api/surveys/?token=` in SurveyAPISerializer's shape, the
 * remote config's `surveys`, and a survey's targeting flags evaluated by `/flags` (also when
 * posthog-js asks only for survey flags).
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { createProject } from '../helpers/fixtures.js';
import { askFlags, personFilter, storePerson } from '../flags/flag-helpers.js';
import { createSurvey, openQuestion, patchSurvey } from './survey-helpers.js';

const server = useTestServer();

async function publicSurveys(token: string = server.token) {
  const res = await server.request(`/api/surveys/?token=${encodeURIComponent(token)}`, {
    key: null,
    headers: { origin: 'https://shop.example' },
  });
  return res;
}

async function optIn(value: boolean) {
  const res = await server.request(`/api/environments/${server.bootstrap.team.id}/`, { method: 'PATCH', body: { surveys_opt_in: value } });
  expect(res.status, res.text).toBe(200);
}

describe('the public surveys endpoint', () => {
  it('refuses a missing or unknown project key in PostHog’s words', async () => {
    const missing = await server.request('/api/surveys/', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      type: 'authentication_error',
      code: 'missing_api_key',
      detail: 'API key not provided. You can find your project API key in your PostHog project settings.',
      attr: null,
    });
    const unknown = await publicSurveys('phc_nobody');
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('invalid_api_key');
  });

  it('serves the project’s surveys that are not archived, without descriptions, flag keys only when set', async () => {
    const plain = await createSurvey(server, { name: 'Plain', description: 'secret notes', type: 'api', questions: [openQuestion()] });
    const targeted = await createSurvey(server, {
      name: 'Targeted',
      type: 'popover',
      questions: [{ type: 'single_choice', question: 'Pick', choices: ['a', 'b'] }],
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      appearance: { position: 'right' },
      targeting_flag_filters: { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 100 }] },
    });
    const archived = await createSurvey(server, { name: 'Old', type: 'popover' });
    await patchSurvey(server, archived.id, { archived: true });
    const launched = await patchSurvey(server, targeted.id, { start_date: '2024-03-01T12:00:00Z' });

    const res = await publicSurveys();
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeTruthy();
    expect(Object.keys(res.body)).toEqual(['surveys', 'survey_config']);
    expect(res.body.survey_config).toBeNull();
    const byId = new Map(res.body.surveys.map((s: any) => [s.id, s]));
    expect(byId.has(archived.id)).toBe(false);
    expect(byId.get(plain.id)).toEqual({
      id: plain.id,
      name: 'Plain',
      type: 'api',
      internal_targeting_flag_key: plain.internal_targeting_flag.key,
      questions: plain.questions,
      conditions: null,
      appearance: null,
      start_date: null,
      end_date: null,
      current_iteration: null,
      current_iteration_start_date: null,
      schedule: 'once',
      enable_partial_responses: false,
    });
    expect(byId.get(targeted.id)).toMatchObject({
      targeting_flag_key: targeted.targeting_flag.key,
      internal_targeting_flag_key: targeted.internal_targeting_flag.key,
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      appearance: { position: 'right' },
      start_date: '2024-03-01T12:00:00Z',
    });
    expect(launched.body.start_date).toBe('2024-03-01T12:00:00Z');

    // Another project's key sees none of them.
    const { team: other } = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
    expect((await publicSurveys(other.apiToken)).body).toEqual({ surveys: [], survey_config: null });

    // An edit is served at once (the cached list is dropped).
    await patchSurvey(server, plain.id, { archived: true });
    expect((await publicSurveys()).body.surveys.map((s: any) => s.id)).not.toContain(plain.id);
  });
});

describe('the remote config', () => {
  it('carries the surveys when the environment opted in and has some, false otherwise', async () => {
    const config = async () => (await server.request(`/array/${server.token}/config`, { key: null })).body;
    const decide = async () => askFlags(server, '/flags/?v=2&config=true', { distinct_id: 'config-reader' });
    await optIn(false);
    expect((await config()).surveys).toBe(false);
    expect((await decide()).surveys).toBe(false);
    await optIn(true);
    const served = (await publicSurveys()).body.surveys;
    expect(served.length).toBeGreaterThan(0);
    expect((await config()).surveys).toEqual(served);
    expect((await decide()).surveys).toEqual(served);
    const script = await server.request(`/array/${server.token}/config.js`, { key: null });
    expect(script.text).toContain(JSON.stringify(served[0].id));
    const withConfig = await server.request(`/api/environments/${server.bootstrap.team.id}/`, {
      method: 'PATCH',
      body: { survey_config: { appearance: { backgroundColor: '#123456' } } },
    });
    expect(withConfig.status).toBe(200);
    expect((await config()).survey_config).toEqual({ appearance: { backgroundColor: '#123456' } });
    expect((await publicSurveys()).body.survey_config).toEqual({ appearance: { backgroundColor: '#123456' } });
  });
});

describe('targeting flags at /flags', () => {
  it('evaluates a launched survey’s flags, also when only survey flags are asked for', async () => {
    const survey = await createSurvey(server, {
      name: 'Pro users only',
      type: 'popover',
      targeting_flag_filters: { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 100 }] },
    });
    await patchSurvey(server, survey.id, { start_date: new Date().toISOString() });
    const targetingKey = survey.targeting_flag.key;
    const internalKey = survey.internal_targeting_flag.key;
    await storePerson(server, ['pro-user'], { plan: 'pro' });
    await storePerson(server, ['free-user'], { plan: 'free' });
    await storePerson(server, ['answered-user'], { plan: 'pro', [`$survey_responded/${survey.id}`]: true });
    await storePerson(server, ['dismissed-user'], { plan: 'pro', [`$survey_dismissed/${survey.id}`]: true });

    const flagsOf = async (distinctId: string) =>
      (await askFlags(server, '/flags/?v=2&only_evaluate_survey_feature_flags=true', { distinct_id: distinctId })).flags;
    const pro = await flagsOf('pro-user');
    expect(pro[targetingKey].enabled).toBe(true);
    expect(pro[internalKey].enabled).toBe(true);
    expect((await flagsOf('free-user'))[targetingKey].enabled).toBe(false);
    expect((await flagsOf('answered-user'))[internalKey].enabled).toBe(false);
    expect((await flagsOf('dismissed-user'))[internalKey].enabled).toBe(false);

    // A flag of the project's own is left out of a survey-only request, and served otherwise.
    await server.request(`/api/projects/${server.bootstrap.team.id}/feature_flags/`, {
      method: 'POST',
      body: { key: 'regular-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    expect(Object.keys(pro)).not.toContain('regular-flag');
    expect(Object.keys(await flagsOf('pro-user'))).not.toContain('regular-flag');
    const all = (await askFlags(server, '/flags/?v=2', { distinct_id: 'pro-user' })).flags;
    expect(all['regular-flag'].enabled).toBe(true);
    expect(all[targetingKey].enabled).toBe(true);

    // Ending the survey turns its flags off: inactive flags are not served at all.
    await patchSurvey(server, survey.id, { end_date: new Date().toISOString() });
    const ended = await flagsOf('pro-user');
    expect(Object.keys(ended)).not.toContain(targetingKey);
    expect(Object.keys(ended)).not.toContain(internalKey);
  });
});
