import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromJson } from '../../src/platform/db/values.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let projectId: number;
beforeAll(async () => {
  server = await startTestServer();
  projectId = server.bootstrap.project.id;
});
afterAll(async () => {
  await server?.close();
});

const base = () => `/api/projects/${projectId}/environments`;

async function createEnv(body: Record<string, unknown> = {}) {
  const res = await server.request(`${base()}/`, { method: 'POST', body: { name: 'Staging', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('environments: list, create, retrieve, update, delete', () => {
  it('creates with PostHog defaults and a fresh project API key', async () => {
    const env = await createEnv({ timezone: 'Europe/Lisbon', anonymize_ips: true, app_urls: ['https://a.example'] });
    expect(env.id).not.toBe(projectId);
    expect(env.project_id).toBe(projectId);
    expect(env.api_token).toMatch(/^phc_/);
    expect(env.api_token).not.toBe(server.bootstrap.team.apiToken);
    expect(env).toMatchObject({
      name: 'Staging',
      timezone: 'Europe/Lisbon',
      anonymize_ips: true,
      app_urls: ['https://a.example'],
      data_attributes: ['data-attr'],
      capture_console_log_opt_in: true,
      capture_performance_opt_in: true,
      session_recording_opt_in: false,
      session_recording_sample_rate: null,
      session_recording_url_trigger_config: [],
      autocapture_opt_out: null,
      is_demo: false,
      ingested_event: false,
      completed_snippet_onboarding: false,
      cookieless_server_hash_mode: 0,
      product_intents: [],
      has_group_types: false,
      effective_membership_level: 15,
    });
    for (const field of [
      'uuid',
      'organization',
      'created_at',
      'updated_at',
      'default_modifiers',
      'person_on_events_querying_enabled',
      'live_events_token',
      'user_access_level',
      'access_control_version',
    ]) {
      expect(env, field).toHaveProperty(field);
    }
  });

  it('lists only the contract subset, paginated', async () => {
    const res = await server.request(`${base()}/?limit=1`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBeGreaterThanOrEqual(2);
    expect(res.body.next).toContain('limit=1&offset=1');
    expect(Object.keys(res.body.results[0]).sort()).toEqual(
      [
        'id',
        'uuid',
        'organization',
        'project_id',
        'api_token',
        'name',
        'completed_snippet_onboarding',
        'has_completed_onboarding_for',
        'ingested_event',
        'is_demo',
        'timezone',
        'access_control',
      ].sort(),
    );
    const all = await server.request('/api/environments/');
    expect(all.body.count).toBe(res.body.count);
  });

  it('retrieves and updates under both addresses, ignoring read-only fields', async () => {
    const env = await createEnv({ name: 'Both' });
    const nested = await server.request(`${base()}/${env.id}/`);
    const flat = await server.request(`/api/environments/${env.id}/`);
    expect(nested.body).toEqual(flat.body);
    const patched = await server.request(`/api/environments/${env.id}/`, {
      method: 'PATCH',
      body: {
        name: 'Renamed',
        week_start_day: 1,
        completed_snippet_onboarding: true,
        session_recording_sample_rate: '0.5',
        api_token: 'phc_mine',
        id: 999,
        uuid: 'x',
        ingested_event: true,
      },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      id: env.id,
      name: 'Renamed',
      week_start_day: 1,
      completed_snippet_onboarding: true,
      session_recording_sample_rate: '0.50',
      api_token: env.api_token,
      ingested_event: false,
    });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(env.updated_at));
  });

  it('answers 404 for an environment under another project, and refuses POST /api/environments/', async () => {
    const env = await createEnv();
    expect((await server.request(`/api/projects/999999/environments/${env.id}/`)).status).toBe(404);
    const res = await server.request('/api/environments/', { method: 'POST', body: { name: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Environments must be created under a specific project/);
  });
});

describe('environment validation', () => {
  const cases: Array<[string, Record<string, unknown>, string, string, string]> = [
    ['timezone', { timezone: 'Mars/Olympus' }, 'invalid_choice', '"Mars/Olympus" is not a valid choice.', 'timezone'],
    ['week_start_day', { week_start_day: 3 }, 'invalid_choice', '"3" is not a valid choice.', 'week_start_day'],
    [
      'sample rate above 1',
      { session_recording_sample_rate: '1.5' },
      'max_value',
      'Ensure this value is less than or equal to 1.',
      'session_recording_sample_rate',
    ],
    [
      'sample rate decimals',
      { session_recording_sample_rate: '0.125' },
      'max_decimal_places',
      'Ensure that there are no more than 2 decimal places.',
      'session_recording_sample_rate',
    ],
    [
      'sample rate text',
      { session_recording_sample_rate: 'half' },
      'invalid_input',
      'A valid number is required.',
      'session_recording_sample_rate',
    ],
    ['boolean', { anonymize_ips: 'maybe' }, 'invalid_input', 'Must be a valid boolean.', 'anonymize_ips'],
    [
      'integer',
      { session_recording_minimum_duration_milliseconds: 'long' },
      'invalid_input',
      'A valid integer is required.',
      'session_recording_minimum_duration_milliseconds',
    ],
    [
      '32-bit',
      { default_data_theme: 2147483648 },
      'max_value',
      'Ensure this value is less than or equal to 2147483647.',
      'default_data_theme',
    ],
    ['list', { app_urls: 'https://x' }, 'not_a_list', 'Expected a list of items but got type "str".', 'app_urls'],
    ['list item', { recording_domains: ['ok', { a: 1 }] }, 'invalid_input', 'Not a valid string.', 'recording_domains__1'],
    ['blank name', { name: '  ' }, 'blank', 'This field may not be blank.', 'name'],
    ['null name', { name: null }, 'null', 'This field may not be null.', 'name'],
    ['null boolean', { anonymize_ips: null }, 'null', 'This field may not be null.', 'anonymize_ips'],
    ['string', { slack_incoming_webhook: ['x'] }, 'invalid_input', 'Not a valid string.', 'slack_incoming_webhook'],
  ];
  for (const [name, body, code, detail, attr] of cases) {
    it(`rejects ${name}`, async () => {
      for (const [method, path] of [
        ['POST', `${base()}/`],
        ['PATCH', `/api/environments/${projectId}/`],
      ] as const) {
        const res = await server.request(path, { method, body });
        expect(res.status, `${method} ${res.text}`).toBe(400);
        expect(res.body).toEqual({ type: 'validation_error', code, detail, attr });
      }
    });
  }

  it('takes primary_dashboard only as a live dashboard of the same environment', async () => {
    const env = await createEnv({ name: 'With dashboard' });
    const own = await server.request(`/api/environments/${env.id}/dashboards/`, { method: 'POST', body: { name: 'Main' } });
    expect(own.status, own.text).toBe(201);
    const foreign = await server.request(`/api/environments/${projectId}/dashboards/`, { method: 'POST', body: { name: 'Elsewhere' } });
    const ok = await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { primary_dashboard: own.body.id } });
    expect(ok.status).toBe(200);
    expect(ok.body.primary_dashboard).toBe(own.body.id);
    for (const id of [foreign.body.id, 999999]) {
      const res = await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { primary_dashboard: id } });
      expect(res.body).toEqual({
        type: 'validation_error',
        code: 'does_not_exist',
        detail: `Invalid pk "${id}" - object does not exist.`,
        attr: 'primary_dashboard',
      });
    }
    await server.request(`/api/environments/${env.id}/dashboards/${own.body.id}/`, { method: 'PATCH', body: { deleted: true } });
    const gone = await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { primary_dashboard: own.body.id } });
    expect(gone.body.code).toBe('does_not_exist');
    const onCreate = await server.request(`${base()}/`, { method: 'POST', body: { primary_dashboard: own.body.id } });
    expect(onCreate.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Primary dashboard cannot be set on project creation.',
      attr: 'primary_dashboard',
    });
  });

  it('rejects a body that is not an object', async () => {
    const res = await server.request(`/api/environments/${projectId}/`, { method: 'PATCH', body: [1, 2] });
    expect(res.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Invalid data. Expected a dictionary, but got list.',
      attr: null,
    });
  });
});

describe('environment actions and activity', () => {
  it('records changes in the activity log, newest first, with before and after', async () => {
    const env = await createEnv({ name: 'Audited' });
    await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { timezone: 'Asia/Tokyo' } });
    await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { name: 'Audited 2', anonymize_ips: true } });
    const res = await server.request(`/api/environments/${env.id}/activity/?limit=2`);
    expect(res.status).toBe(200);
    expect(res.body.total_count).toBe(3);
    expect(res.body.next).toContain('page=2');
    expect(res.body.previous).toBeNull();
    const [latest, previous] = res.body.results;
    expect(latest.activity).toBe('updated');
    expect(latest.user).toEqual({ first_name: 'Admin', email: 'admin@hoglet.local' });
    expect(latest.scope).toBe('Team');
    expect(latest.item_id).toBe(String(env.id));
    expect(latest.detail.changes).toEqual(
      expect.arrayContaining([
        { type: 'Team', action: 'changed', field: 'name', before: 'Audited', after: 'Audited 2' },
        { type: 'Team', action: 'changed', field: 'anonymize_ips', before: false, after: true },
      ]),
    );
    expect(previous.detail.changes).toEqual([{ type: 'Team', action: 'changed', field: 'timezone', before: 'UTC', after: 'Asia/Tokyo' }]);
    const page2 = await server.request(`/api/environments/${env.id}/activity/?limit=2&page=2`);
    expect(page2.body.results.map((r: any) => r.activity)).toEqual(['created']);
    expect(page2.body.previous).toContain('page=1');
  });

  it('records product intents and completed onboarding', async () => {
    const env = await createEnv();
    const added = await server.request(`/api/environments/${env.id}/add_product_intent/`, {
      method: 'PATCH',
      body: { product_type: 'feature_flags', intent_context: 'onboarding' },
    });
    expect(added.status).toBe(201);
    expect(added.body.product_intents).toEqual([expect.objectContaining({ product_type: 'feature_flags', onboarding_completed_at: null })]);
    const done = await server.request(`/api/environments/${env.id}/complete_product_onboarding/`, {
      method: 'PATCH',
      body: { product_type: 'feature_flags' },
    });
    expect(done.status).toBe(200);
    expect(done.body.product_intents[0].onboarding_completed_at).toMatch(/^\d{4}-/);
    const missing = await server.request(`/api/environments/${env.id}/complete_product_onboarding/`, { method: 'PATCH', body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toBe('product_type is required');
  });

  it('counts concurrent intents for a product new to the environment, each answered', async () => {
    const env = await createEnv();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        server.request(`/api/environments/${env.id}/add_product_intent/`, {
          method: 'PATCH',
          body: { product_type: 'surveys', intent_context: 'race' },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    const row = await server.running.ctx.database.db
      .selectFrom('product_intents')
      .select('contexts')
      .where('team_id', '=', env.id)
      .where('product_type', '=', 'surveys')
      .executeTakeFirstOrThrow();
    expect(fromJson(row.contexts)).toEqual({ race: 8 });
  });

  it('says whether demo data is being generated', async () => {
    const res = await server.request(`/api/environments/${projectId}/is_generating_demo_data/`);
    expect(res.body).toEqual({ is_generating_demo_data: false });
  });

  it('resets the project API key: the old one stops working for capture at once', async () => {
    const env = await createEnv();
    const send = (token: string) =>
      fetch(`${server.url}/capture/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, event: 'e', distinct_id: 'd' }),
      });
    const decide = (token: string) =>
      fetch(`${server.url}/decide/?v=3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, distinct_id: 'd' }),
      });
    expect((await send(env.api_token)).status).toBe(200);
    expect((await decide(env.api_token)).status).toBe(200);
    const reset = await server.request(`/api/projects/${projectId}/environments/${env.id}/reset_token/`, { method: 'PATCH', body: {} });
    expect(reset.status).toBe(200);
    expect(reset.body.api_token).toMatch(/^phc_/);
    expect(reset.body.api_token).not.toBe(env.api_token);
    expect(reset.body.id).toBe(env.id);
    expect((await send(env.api_token)).status).toBe(401);
    expect((await decide(env.api_token)).status).toBe(401);
    expect((await send(reset.body.api_token)).status).toBe(200);
    expect((await decide(reset.body.api_token)).status).toBe(200);
    const activity = await server.request(`/api/environments/${env.id}/activity/`);
    expect(activity.body.results[0].detail.changes[0]).toMatchObject({
      field: 'api_token',
      before: env.api_token,
      after: reset.body.api_token,
    });
  });

  it('removes $ip after GeoIP when anonymize_ips is on', async () => {
    const env = await createEnv({ anonymize_ips: true });
    await fetch(`${server.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: env.api_token, event: 'anon', distinct_id: 'ip-user' }),
    });
    const plain = await createEnv();
    await fetch(`${server.url}/capture/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: plain.api_token, event: 'anon', distinct_id: 'ip-user' }),
    });
    await server.settle();
    const anonymous = await server.request(`/api/environments/${env.id}/events/?event=anon`);
    expect(anonymous.body.results[0].properties.$ip).toBeUndefined();
    const kept = await server.request(`/api/environments/${plain.id}/events/?event=anon`);
    expect(kept.body.results[0].properties.$ip).toBe('127.0.0.1');
    expect((await server.request(`/api/environments/${env.id}/`)).body.ingested_event).toBe(true);
  });
});
