import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Every request field of the contract's environment table, with a value of its type. */
const FIELDS: Record<string, unknown> = {
  app_urls: ['https://app.example.com'],
  name: 'All fields',
  slack_incoming_webhook: 'https://hooks.slack.example/T000/B000/XXX',
  anonymize_ips: true,
  completed_snippet_onboarding: true,
  test_account_filters: [{ key: '$host', operator: 'not_icontains', value: 'staging', type: 'event' }],
  test_account_filters_default_checked: true,
  path_cleaning_filters: [{ alias: '/user/<id>', regex: '/user/\\d+' }],
  is_demo: false,
  timezone: 'Europe/Berlin',
  data_attributes: ['data-attr', 'data-testid'],
  person_display_name_properties: ['email', 'name'],
  correlation_config: { excluded_person_property_names: ['$os'] },
  autocapture_opt_out: true,
  autocapture_exceptions_opt_in: true,
  autocapture_web_vitals_opt_in: true,
  autocapture_web_vitals_allowed_metrics: ['LCP', 'INP'],
  autocapture_exceptions_errors_to_ignore: ['ResizeObserver loop'],
  capture_console_log_opt_in: false,
  capture_performance_opt_in: false,
  session_recording_opt_in: true,
  session_recording_sample_rate: '0.75',
  session_recording_minimum_duration_milliseconds: 1500,
  session_recording_linked_flag: { id: 7, key: 'replay', variant: null },
  session_recording_network_payload_capture_config: { recordHeaders: true, recordBody: false },
  session_recording_url_trigger_config: [{ url: '/checkout', matching: 'regex' }],
  session_recording_url_blocklist_config: [{ url: '/admin', matching: 'regex' }],
  session_recording_event_trigger_config: ['purchase'],
  session_replay_config: { record_canvas: true },
  survey_config: { appearance: { backgroundColor: '#fff' } },
  access_control: true,
  week_start_day: 1,
  live_events_columns: ['event', 'person'],
  recording_domains: ['https://app.example.com'],
  cookieless_server_hash_mode: 1,
  human_friendly_comparison_periods: true,
  inject_web_apps: true,
  extra_settings: { recorder_script: 'posthog-recorder' },
  modifiers: { personsOnEventsMode: 'person_id_no_override_properties_on_events' },
  has_completed_onboarding_for: { product_analytics: true },
  surveys_opt_in: true,
  heatmaps_opt_in: true,
  flags_persistence_default: true,
  capture_dead_clicks: true,
  default_data_theme: 2,
  revenue_tracking_config: { events: [], baseCurrency: 'EUR' },
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('every contract field of an environment', () => {
  it('is accepted on create and answered back as written', async () => {
    const created = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, { method: 'POST', body: FIELDS });
    expect(created.status, created.text).toBe(201);
    for (const [field, value] of Object.entries(FIELDS)) expect(created.body[field], field).toEqual(value);
  });

  it('is accepted one at a time by PATCH, and read back by GET', async () => {
    const env = (
      await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, { method: 'POST', body: { name: 'Patched' } })
    ).body;
    for (const [field, value] of Object.entries(FIELDS)) {
      const res = await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body: { [field]: value } });
      expect(res.status, `${field}: ${res.text}`).toBe(200);
      expect(res.body[field], field).toEqual(value);
    }
    const read = await server.request(`/api/environments/${env.id}/`);
    for (const [field, value] of Object.entries(FIELDS)) expect(read.body[field], field).toEqual(value);
    // Every response-only field of the contract is present.
    for (const field of [
      'id',
      'uuid',
      'organization',
      'project_id',
      'api_token',
      'created_at',
      'updated_at',
      'ingested_event',
      'effective_membership_level',
      'has_group_types',
      'person_on_events_querying_enabled',
      'default_modifiers',
      'live_events_token',
      'product_intents',
      'user_access_level',
      'access_control_version',
    ]) {
      expect(read.body, field).toHaveProperty(field);
    }
  });
});
