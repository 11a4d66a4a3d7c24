import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/server.js';
import { createFlag } from '../../flags/flag-helpers.js';

/**
 * `/decide` and `/flags` read their query and methods as PostHog's flags service does
 * (rust/feature-flags/src/api/endpoint.rs, api/types.rs FlagsQueryParams, handler/flags.rs,
 * handler/authentication.rs): the body shape and config members per `v` and `config`, the survey
 * restriction, the minimal GET answer, 405 for other methods, and disable_flags without an id.
 */
const server = useTestServer();

beforeAll(async () => {
  await createFlag(server, { key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await createFlag(server, { key: 'survey-targeting-nps', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
});

type Shape = 'decide_v1' | 'decide_v2' | 'flags_v1' | 'flags_v2';

function shapeOf(body: Record<string, unknown>): Shape {
  if ('flags' in body) return 'flags_v2';
  if ('featureFlagPayloads' in body) return 'flags_v1';
  return Array.isArray(body.featureFlags) ? 'decide_v1' : 'decide_v2';
}

async function post(path: string, body: Record<string, unknown> = { distinct_id: 'someone' }) {
  return server.request(path, { method: 'POST', key: null, body: { api_key: server.token, ...body } });
}

describe('v and config, as PostHog resolves them', () => {
  // [path, body shape, config members]
  const table: Array<[string, Shape, boolean]> = [
    ['/flags/', 'flags_v2', true], // neither given: v=2&config=true
    ['/flags/?v=', 'flags_v2', true], // an empty v is no v
    ['/flags/?v=1', 'flags_v1', false],
    ['/flags/?v=2', 'flags_v2', false],
    ['/flags/?v=3', 'flags_v2', false],
    ['/flags/?v=abc', 'flags_v1', false], // not an integer: 1
    ['/flags/?v=2.5', 'flags_v1', false],
    ['/flags/?v=%202', 'flags_v1', false],
    ['/flags/?v=99999999999', 'flags_v1', false], // past 32 bits: 1
    ['/flags/?v=%2B2', 'flags_v2', false], // "+2" is 2
    ['/flags/?v=-1', 'flags_v1', false],
    ['/flags/?version=2', 'flags_v2', false], // v's alias
    ['/flags/?config=true', 'flags_v1', true], // config alone: no v, so legacy
    ['/flags/?config=false', 'flags_v1', false],
    ['/flags/?v=&config=false', 'flags_v1', false],
    ['/flags/?v=2&config=true', 'flags_v2', true],
    ['/flags/?v=2&config=1', 'flags_v2', true],
    ['/flags/?v=2&config', 'flags_v2', true], // presence is true
    ['/flags/?v=2&config=', 'flags_v2', true],
    ['/flags/?v=2&config=whatever', 'flags_v2', true],
    ['/flags/?v=2&config=0', 'flags_v2', false],
    ['/flags/?v=2&config=No', 'flags_v2', false],
    ['/flags/?v=2&config=OFF', 'flags_v2', false],
    ['/decide/', 'decide_v1', true], // decide turns config on, so no v stays no v
    ['/decide/?v=', 'decide_v1', true],
    ['/decide/?v=0', 'decide_v1', true],
    ['/decide/?v=abc', 'decide_v1', true],
    ['/decide/?v=2', 'decide_v2', true],
    ['/decide/?v=3', 'flags_v1', true],
    ['/decide/?v=4', 'flags_v2', true],
    ['/decide/?v=7', 'flags_v2', true],
    ['/decide/?v=3&config=false', 'flags_v1', false], // decide honours an explicit config
    ['/decide/?v=4&config=0', 'flags_v2', false],
    ['/decide/?config=false', 'decide_v1', false],
  ];

  it.each(table)('%s → %s, config %s', async (path, shape, withConfig) => {
    const res = await post(path);
    expect(res.status, res.text).toBe(200);
    expect(shapeOf(res.body)).toBe(shape);
    expect('supportedCompression' in res.body).toBe(withConfig);
    expect('sessionRecording' in res.body).toBe(withConfig);
  });
});

describe('only_evaluate_survey_feature_flags', () => {
  const keys = async (path: string, body: Record<string, unknown> = {}) =>
    Object.keys((await post(path, { distinct_id: 's', ...body })).body.flags).sort();

  it('evaluates only survey-targeting- flags when the query asks', async () => {
    expect(await keys('/flags/?v=2&only_evaluate_survey_feature_flags=true')).toEqual(['survey-targeting-nps']);
    expect(await keys('/flags/?v=2&only_evaluate_survey_feature_flags=1')).toEqual(['survey-targeting-nps']);
    expect(await keys('/flags/?v=2&only_evaluate_survey_feature_flags')).toEqual(['survey-targeting-nps']);
    expect(await keys('/decide/?v=4&only_evaluate_survey_feature_flags=yes')).toEqual(['survey-targeting-nps']);
  });

  it('evaluates every flag otherwise, a body field included (PostHog reads only the query)', async () => {
    expect(await keys('/flags/?v=2')).toEqual(['everyone', 'survey-targeting-nps']);
    expect(await keys('/flags/?v=2&only_evaluate_survey_feature_flags=false')).toEqual(['everyone', 'survey-targeting-nps']);
    expect(await keys('/flags/?v=2', { only_evaluate_survey_feature_flags: true })).toEqual(['everyone', 'survey-targeting-nps']);
  });

  it('still names the requested survey flags with flag_keys', async () => {
    const body = { flag_keys_to_evaluate: ['everyone', 'survey-targeting-nps'] };
    expect(await keys('/flags/?v=2&only_evaluate_survey_feature_flags=true', body)).toEqual(['survey-targeting-nps']);
  });
});

describe('methods other than POST', () => {
  const minimalConfig = {
    supportedCompression: ['gzip', 'gzip-js', 'lz64'],
    config: { enable_collect_everything: true },
    toolbarParams: {},
    isAuthenticated: false,
    sessionRecording: false,
  };

  it('GET is the minimal answer, legacy below v=2 and detailed from it, on both paths, with no key', async () => {
    const requestId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const legacy = {
      errorsWhileComputingFlags: false,
      featureFlags: {},
      featureFlagPayloads: {},
      requestId,
      evaluatedAt: expect.any(Number),
      ...minimalConfig,
    };
    const detailed = { errorsWhileComputingFlags: false, flags: {}, requestId, evaluatedAt: expect.any(Number), ...minimalConfig };
    const cases: Array<[string, object]> = [
      ['/flags/', legacy], // no POST defaults here: no v is 1
      ['/flags/?v=', legacy],
      ['/flags/?v=1', legacy],
      ['/flags/?v=abc', legacy],
      ['/flags/?v=2', detailed],
      ['/decide/', legacy],
      ['/decide/?v=3', detailed],
      ['/decide/?v=4&config=false', detailed],
    ];
    for (const [path, expected] of cases) {
      const res = await server.request(path, { key: null, headers: { 'x-request-id': requestId } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body, path).toEqual(expected);
    }
    // Nothing of the query's data is evaluated.
    const data = encodeURIComponent(JSON.stringify({ api_key: server.token, distinct_id: 'g' }));
    expect((await server.request(`/decide/?v=1&data=${data}`, { key: null })).body.featureFlags).toEqual({});
  });

  it('HEAD is 200 with no body', async () => {
    for (const path of ['/flags/?v=2', '/decide/']) {
      const res = await server.request(path, { method: 'HEAD', key: null });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.text).toBe('');
    }
  });

  it('other methods are 405 with the methods PostHog allows', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/flags/?v=2', '/decide', '/flags']) {
        const res = await server.request(path, { method, key: null, body: { api_key: server.token, distinct_id: 'm' } });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, POST, OPTIONS, HEAD');
        expect(res.body).toEqual({
          type: 'invalid_request',
          code: 'method_not_allowed',
          detail: `Method "${method}" not allowed.`,
          attr: null,
        });
      }
    }
    // The flag feed next to them is not the lane's: still fastify's 404.
    expect((await server.request('/flags/definitions', { method: 'PUT', key: null })).status).toBe(404);
  });

  it('keeps the CORS preflight and the CORS headers of a 405', async () => {
    const origin = 'https://shop.example';
    const preflight = await server.request('/flags/?v=2', {
      method: 'OPTIONS',
      key: null,
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    const refused = await server.request('/decide/', { method: 'DELETE', key: null, headers: { origin } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
  });
});

describe('disable_flags', () => {
  it('needs no distinct_id: no flags, and the config when asked', async () => {
    const flags = await post('/flags/?v=2&config=true', { disable_flags: true });
    expect(flags.status, flags.text).toBe(200);
    expect(flags.body).toMatchObject({ flags: {}, errorsWhileComputingFlags: false, supportedCompression: ['gzip', 'gzip-js', 'lz64'] });
    const decide = await post('/decide/?v=3', { disable_flags: true });
    expect(decide.status, decide.text).toBe(200);
    expect(decide.body).toMatchObject({ featureFlags: {}, featureFlagPayloads: {}, config: { enable_collect_everything: true } });
  });

  it('without it, a missing distinct_id is still 400', async () => {
    for (const body of [{}, { disable_flags: false }]) {
      const res = await post('/flags/?v=2', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'validation_error', code: 'missing_distinct_id' });
    }
  });
});
