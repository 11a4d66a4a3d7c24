import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Each setting, changed through PATCH, changes the next /decide answer. */
let server: TestServer;
let env: { id: number; api_token: string };
beforeAll(async () => {
  server = await startTestServer();
  const res = await server.request(`/api/projects/${server.bootstrap.project.id}/environments/`, {
    method: 'POST',
    body: { name: 'Effects' },
  });
  env = res.body;
});
afterAll(async () => {
  await server?.close();
});

async function decide(): Promise<any> {
  const res = await fetch(`${server.url}/decide/?v=3`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: env.api_token, distinct_id: 'settings-user' }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

async function patch(body: Record<string, unknown>) {
  const res = await server.request(`/api/environments/${env.id}/`, { method: 'PATCH', body });
  expect(res.status, res.text).toBe(200);
}

const cases: Array<[string, Record<string, unknown>, (before: any, after: any) => void]> = [
  [
    'session_recording_opt_in',
    { session_recording_opt_in: true },
    (b, a) => {
      expect(b.sessionRecording).toBe(false);
      expect(a.sessionRecording).toMatchObject({ endpoint: '/s/' });
    },
  ],
  [
    'capture_console_log_opt_in',
    { capture_console_log_opt_in: false },
    (b, a) => {
      expect(b.sessionRecording.consoleLogRecordingEnabled).toBe(true);
      expect(a.sessionRecording.consoleLogRecordingEnabled).toBe(false);
    },
  ],
  [
    'session_recording_sample_rate',
    { session_recording_sample_rate: '0.25' },
    (b, a) => {
      expect(b.sessionRecording.sampleRate).toBeNull();
      expect(a.sessionRecording.sampleRate).toBe('0.25');
    },
  ],
  [
    'session_recording_minimum_duration_milliseconds',
    { session_recording_minimum_duration_milliseconds: 2500 },
    (b, a) => {
      expect(b.sessionRecording.minimumDurationMilliseconds).toBeNull();
      expect(a.sessionRecording.minimumDurationMilliseconds).toBe(2500);
    },
  ],
  [
    'session_recording_linked_flag',
    { session_recording_linked_flag: { id: 1, key: 'record-me' } },
    (b, a) => {
      expect(b.sessionRecording.linkedFlag).toBeNull();
      expect(a.sessionRecording.linkedFlag).toBe('record-me');
    },
  ],
  [
    'session_recording_url_trigger_config',
    { session_recording_url_trigger_config: [{ url: '/checkout', matching: 'regex' }] },
    (b, a) => {
      expect(b.sessionRecording.urlTriggers).toEqual([]);
      expect(a.sessionRecording.urlTriggers).toEqual([{ url: '/checkout', matching: 'regex' }]);
    },
  ],
  [
    'session_recording_url_blocklist_config',
    { session_recording_url_blocklist_config: [{ url: '/admin', matching: 'regex' }] },
    (b, a) => {
      expect(b.sessionRecording.urlBlocklist).toEqual([]);
      expect(a.sessionRecording.urlBlocklist).toEqual([{ url: '/admin', matching: 'regex' }]);
    },
  ],
  [
    'capture_performance_opt_in',
    { capture_performance_opt_in: false },
    (b, a) => {
      expect(b.capturePerformance).toMatchObject({ network_timing: true });
      expect(a.capturePerformance).toBe(false);
    },
  ],
  [
    'autocapture_web_vitals_opt_in',
    { autocapture_web_vitals_opt_in: true, autocapture_web_vitals_allowed_metrics: ['LCP', 'CLS'] },
    (b, a) => {
      expect(b.capturePerformance).toBe(false);
      expect(a.capturePerformance).toMatchObject({ web_vitals: true, web_vitals_allowed_metrics: ['LCP', 'CLS'] });
    },
  ],
  [
    'autocapture_opt_out',
    { autocapture_opt_out: true },
    (b, a) => {
      expect(b.autocapture_opt_out).toBe(false);
      expect(a.autocapture_opt_out).toBe(true);
    },
  ],
  [
    'surveys_opt_in',
    { surveys_opt_in: true, survey_config: { appearance: { backgroundColor: '#fff' } } },
    (b, a) => {
      // As PostHog's RemoteConfig: opting in serves the surveys themselves, and an environment
      // without any still says false (test/surveys/surveys-sdk.test.ts has the list).
      expect(b.surveys).toBe(false);
      expect(a.surveys).toBe(false);
      expect(a.survey_config).toBeUndefined();
    },
  ],
  [
    'heatmaps_opt_in',
    { heatmaps_opt_in: true },
    (b, a) => {
      expect(b.heatmaps).toBe(false);
      expect(a.heatmaps).toBe(true);
    },
  ],
];

describe('environment settings shape the decide config', () => {
  for (const [name, body, check] of cases) {
    it(name, async () => {
      const before = await decide();
      await patch(body);
      const after = await decide();
      check(before, after);
    });
  }

  it('serves the same config at /array/<token>/config', async () => {
    const res = await fetch(`${server.url}/array/${env.api_token}/config`);
    const config = (await res.json()) as any;
    expect(config.sessionRecording).toMatchObject({ endpoint: '/s/', sampleRate: '0.25' });
    expect(config.heatmaps).toBe(true);
  });

  it('evaluates flag date rules in the environment timezone', async () => {
    // A bare date in a rule means midnight in the environment's timezone: midnight in New York is
    // 05:00 UTC, so a signup at 00:30 UTC that day is before it there, and not before it in UTC.
    const tomorrowUtc = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await server.request(`/api/projects/${server.bootstrap.project.id}/feature_flags/`, {
      method: 'POST',
      body: {
        key: 'tz-flag',
        filters: {
          groups: [
            { properties: [{ key: 'signup', type: 'person', operator: 'is_date_before', value: tomorrowUtc }], rollout_percentage: 100 },
          ],
        },
      },
    });
    const ask = async () => {
      const res = await fetch(`${server.url}/decide/?v=3`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          api_key: server.bootstrap.team.apiToken,
          distinct_id: 'tz',
          person_properties: { signup: `${tomorrowUtc}T00:30:00Z` },
        }),
      });
      return ((await res.json()) as any).featureFlags['tz-flag'];
    };
    expect(await ask()).toBe(false);
    await server.request(`/api/environments/${server.bootstrap.team.id}/`, { method: 'PATCH', body: { timezone: 'America/New_York' } });
    expect(await ask()).toBe(true);
    await server.request(`/api/environments/${server.bootstrap.team.id}/`, { method: 'PATCH', body: { timezone: 'Asia/Tokyo' } });
    expect(await ask()).toBe(false);
  });
});
