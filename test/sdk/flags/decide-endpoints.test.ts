import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { askFlags, createFlag, flagsPath, personFilter, storeGroup, storePerson } from '../../flags/flag-helpers.js';

let server: TestServer;
let multiId: number;

beforeAll(async () => {
  server = await startTestServer();
  await createFlag(server, {
    key: 'everyone',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"cta":"hi"}' } },
  });
  await createFlag(server, { key: 'pros', filters: { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 100 }] } });
  const multi = await createFlag(server, {
    key: 'layout',
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
  multiId = multi.id;
  await createFlag(server, { key: 'switched-off', active: false });
  const gone = await createFlag(server, { key: 'gone' });
  await server.request(flagsPath(server, `${gone.id}/`), { method: 'PATCH', body: { deleted: true } });
});

afterAll(async () => {
  await server?.close();
});

describe('/decide and /flags response versions', () => {
  it('decide v3 carries the contract fields, payloads as JSON text, and the SDK config', async () => {
    const body = await askFlags(server, '/decide/?v=3', { distinct_id: 'user-1', person_properties: { plan: 'pro' } });
    expect(body.featureFlags).toEqual({ everyone: true, pros: true, layout: expect.stringMatching(/^(control|test)$/) });
    expect(body.featureFlagPayloads).toEqual({ everyone: '{"cta":"hi"}' });
    expect(body.errorsWhileComputingFlags).toBe(false);
    expect(body.config).toEqual({ enable_collect_everything: true });
    expect(body.toolbarParams).toEqual({});
    expect(body.isAuthenticated).toBe(false);
    expect(body.supportedCompression).toEqual(['gzip', 'gzip-js', 'lz64']);
    for (const key of ['sessionRecording', 'capturePerformance', 'autocapture_opt_out', 'surveys', 'heatmaps', 'siteApps']) {
      expect(body, key).toHaveProperty(key);
    }
    expect(body.sessionRecording).toBe(false);
  });

  it('decide v1 lists enabled keys, v2 maps enabled flags, v4 gives details', async () => {
    const request = { distinct_id: 'user-1', person_properties: { plan: 'free' } };
    const v1 = await askFlags(server, '/decide/', request);
    expect(v1.featureFlags.sort()).toEqual(['everyone', 'layout']);
    const v2 = await askFlags(server, '/decide/?v=2', request);
    expect(Object.keys(v2.featureFlags).sort()).toEqual(['everyone', 'layout']);
    expect(v2.featureFlags.everyone).toBe(true);
    const v4 = await askFlags(server, '/decide/?v=4', request);
    expect(v4.flags.pros).toMatchObject({ key: 'pros', enabled: false, variant: null, reason: { code: 'no_condition_match' } });
    expect(v4.flags.layout.metadata).toMatchObject({ id: multiId, version: 1 });
  });

  it('flags v1 is the legacy map, flags v2 the detailed one with a request id', async () => {
    const v1 = await askFlags(server, '/flags/?v=1', { distinct_id: 'user-2' });
    expect(v1.featureFlags).toMatchObject({ everyone: true, pros: false });
    expect(v1).not.toHaveProperty('sessionRecording');
    const v2 = await askFlags(server, '/flags/?v=2', { distinct_id: 'user-2' });
    expect(v2.flags.everyone).toMatchObject({ enabled: true, metadata: { payload: '{"cta":"hi"}' } });
    expect(typeof v2.requestId).toBe('string');
    const withConfig = await askFlags(server, '/flags/?v=2&config=true', { distinct_id: 'user-2' });
    expect(withConfig).toHaveProperty('sessionRecording');
  });

  it('never returns inactive or deleted flags', async () => {
    for (const path of ['/decide/?v=3', '/flags/?v=2']) {
      const body = await askFlags(server, path, { distinct_id: 'user-3' });
      const keys = Object.keys(body.featureFlags ?? body.flags);
      expect(keys).not.toContain('switched-off');
      expect(keys).not.toContain('gone');
    }
  });
});

describe('which flags a request gets', () => {
  it('leaves out flags limited to the other runtime', async () => {
    await createFlag(server, { key: 'server-only', evaluation_runtime: 'server' });
    await createFlag(server, { key: 'client-only', evaluation_runtime: 'client' });
    const browser = await askFlags(server, '/flags/?v=2', { distinct_id: 'r' }, { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' });
    expect(Object.keys(browser.flags)).toContain('client-only');
    expect(Object.keys(browser.flags)).not.toContain('server-only');
    const node = await askFlags(server, '/flags/?v=2', { distinct_id: 'r' }, { 'user-agent': 'posthog-node/5.70.0' });
    expect(Object.keys(node.flags)).toContain('server-only');
    expect(Object.keys(node.flags)).not.toContain('client-only');
    const explicit = await askFlags(
      server,
      '/flags/?v=2',
      { distinct_id: 'r', evaluation_runtime: 'server' },
      { 'user-agent': 'Mozilla/5.0' },
    );
    expect(Object.keys(explicit.flags)).toContain('server-only');
    // (Node's fetch sends Sec-Fetch-Mode, a browser-only header, so an unknown agent reads as a client here.)
    const unknown = await askFlags(server, '/flags/?v=2', { distinct_id: 'r' }, { 'user-agent': 'mystery' });
    expect(Object.keys(unknown.flags)).not.toContain('server-only');
    expect(Object.keys(unknown.flags)).toContain('everyone');
  });

  it('evaluates only flag_keys when given, and nothing with disable_flags', async () => {
    const some = await askFlags(server, '/flags/?v=2', { distinct_id: 'k', flag_keys_to_evaluate: ['everyone'] });
    expect(Object.keys(some.flags)).toEqual(['everyone']);
    const none = await askFlags(server, '/decide/?v=3', { distinct_id: 'k', disable_flags: true });
    expect(none.featureFlags).toEqual({});
  });
});

describe('request decoding and errors', () => {
  it('reads token aliases, gzip and base64 bodies, and form data', async () => {
    const json = JSON.stringify({ token: server.bootstrap.team.apiToken, distinct_id: 'user-4' });
    const gz = await server.request('/flags/?v=2', {
      method: 'POST',
      key: null,
      rawBody: gzipSync(json),
      headers: { 'content-type': 'text/plain' },
    });
    expect(gz.status).toBe(200);
    expect(gz.body.flags.everyone.enabled).toBe(true);
    const b64 = await server.request('/decide/?v=3', {
      method: 'POST',
      key: null,
      rawBody: Buffer.from(json).toString('base64'),
      headers: { 'content-type': 'text/plain' },
    });
    expect(b64.body.featureFlags.everyone).toBe(true);
    const form = await server.request('/decide/?v=3', {
      method: 'POST',
      key: null,
      rawBody: `data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.body.featureFlags.everyone).toBe(true);
  });

  it('answers 401 for a missing or unknown api key and 400 without distinct_id', async () => {
    const missing = await server.request('/decide/?v=3', { method: 'POST', key: null, body: { distinct_id: 'x' } });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    const unknown = await server.request('/decide/?v=3', { method: 'POST', key: null, body: { api_key: 'phc_nope', distinct_id: 'x' } });
    expect(unknown.status).toBe(401);
    const noId = await server.request('/flags/?v=2', { method: 'POST', key: null, body: { api_key: server.bootstrap.team.apiToken } });
    expect(noId.status).toBe(400);
    expect(noId.body).toMatchObject({ type: 'validation_error', code: 'missing_distinct_id' });
  });

  it('is open to browsers: CORS headers and OPTIONS answered', async () => {
    const preflight = await server.request('/decide/?v=3', {
      method: 'OPTIONS',
      key: null,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const res = await server.request('/flags/?v=2', {
      method: 'POST',
      key: null,
      body: { api_key: server.bootstrap.team.apiToken, distinct_id: 'c' },
      headers: { origin: 'https://shop.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
  });
});

describe('properties used for evaluation', () => {
  it('uses stored person properties, overridden by the request', async () => {
    await storePerson(server, ['stored-pro', 'stored-pro-alias'], { plan: 'pro' });
    expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'stored-pro' })).featureFlags.pros).toBe(true);
    expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'stored-pro-alias' })).featureFlags.pros).toBe(true);
    const overridden = await askFlags(server, '/decide/?v=3', { distinct_id: 'stored-pro', person_properties: { plan: 'free' } });
    expect(overridden.featureFlags.pros).toBe(false);
    expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'nobody' })).featureFlags.pros).toBe(false);
  });

  it('uses stored group properties, overridden by group_properties', async () => {
    const index = await storeGroup(server, 'company', 'acme', { tier: 'gold' });
    await createFlag(server, {
      key: 'gold-companies',
      filters: {
        aggregation_group_type_index: index,
        groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: index }], rollout_percentage: 100 }],
      },
    });
    const stored = await askFlags(server, '/flags/?v=2', { distinct_id: 'u', groups: { company: 'acme' } });
    expect(stored.flags['gold-companies'].enabled).toBe(true);
    const overridden = await askFlags(server, '/flags/?v=2', {
      distinct_id: 'u',
      groups: { company: 'acme' },
      group_properties: { company: { tier: 'silver' } },
    });
    expect(overridden.flags['gold-companies'].enabled).toBe(false);
    const noGroup = await askFlags(server, '/flags/?v=2', { distinct_id: 'u' });
    expect(noGroup.flags['gold-companies'].reason.code).toBe('no_group_type');
  });

  it('sees flag changes at once (cached definitions are invalidated)', async () => {
    const flag = await createFlag(server, { key: 'toggled', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'z' })).featureFlags.toggled).toBe(true);
    await server.request(flagsPath(server, `${flag.id}/`), {
      method: 'PATCH',
      body: { filters: { groups: [{ properties: [], rollout_percentage: 0 }] } },
    });
    expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'z' })).featureFlags.toggled).toBe(false);
    await server.request(flagsPath(server, `${flag.id}/`), { method: 'PATCH', body: { active: false } });
    expect((await askFlags(server, '/decide/?v=3', { distinct_id: 'z' })).featureFlags).not.toHaveProperty('toggled');
  });

  it('keeps the anonymous bucket after identification (experience continuity)', async () => {
    await createFlag(server, {
      key: 'continuity',
      ensure_experience_continuity: true,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: { variants: Array.from({ length: 10 }, (_, i) => ({ key: `v${i}`, rollout_percentage: 10 })) },
      },
    });
    // Find an anonymous id whose variant differs from the identified id's own variant.
    const identified = 'identified-user';
    const own = (await askFlags(server, '/decide/?v=3', { distinct_id: identified })).featureFlags.continuity;
    let anon = '';
    let anonVariant = own;
    for (let i = 0; anonVariant === own; i++) {
      anon = `anon-${i}`;
      anonVariant = (await askFlags(server, '/decide/?v=3', { distinct_id: anon })).featureFlags.continuity;
    }
    await storePerson(server, [identified, anon]);
    const after = await askFlags(server, '/decide/?v=3', { distinct_id: identified, $anon_distinct_id: anon });
    expect(after.featureFlags.continuity).toBe(anonVariant);
    // Stored per person: later requests without the anonymous id keep it.
    const later = await askFlags(server, '/decide/?v=3', { distinct_id: identified });
    expect(later.featureFlags.continuity).toBe(anonVariant);
  });

  it('still answers the other flags when a flag cannot be computed', async () => {
    await createFlag(server, {
      key: 'needs-person',
      filters: { groups: [{ properties: [personFilter('plan', 'pro')], rollout_percentage: 100 }] },
    });
    const { db } = server.running.ctx.database;
    const original = db.selectFrom.bind(db);
    // Storage fails for person reads only.
    (db as any).selectFrom = (table: any) => {
      if (String(table).startsWith('person_distinct_ids')) throw new Error('storage down');
      return original(table);
    };
    try {
      const body = await askFlags(server, '/flags/?v=2', { distinct_id: 'someone' });
      expect(body.errorsWhileComputingFlags).toBe(true);
      expect(body.flags['needs-person']).toMatchObject({ enabled: false, failed: true });
      expect(body.flags.everyone.enabled).toBe(true);
      const legacy = await askFlags(server, '/decide/?v=3', { distinct_id: 'someone' });
      expect(legacy.errorsWhileComputingFlags).toBe(true);
      expect(legacy.featureFlags.everyone).toBe(true);
    } finally {
      (db as any).selectFrom = original;
    }
  });
});

describe('remote config', () => {
  it('says hasFeatureFlags only while the project has an active flag', async () => {
    const { project, team } = await createProject(server.running.ctx.database, server.bootstrap.organization.id, 'Flagless');
    const hasFlags = async () => {
      const config = await server.request(`/array/${team.apiToken}/config`, { key: null });
      const decide = await server.request('/decide/?v=3', {
        method: 'POST',
        key: null,
        body: { api_key: team.apiToken, distinct_id: 'someone' },
      });
      expect(decide.body.hasFeatureFlags).toBe(config.body.hasFeatureFlags);
      return config.body.hasFeatureFlags;
    };
    expect(await hasFlags()).toBe(false);
    const created = await server.request(`/api/projects/${project.id}/feature_flags/`, {
      method: 'POST',
      body: { key: 'later', active: false },
    });
    expect(created.status, created.text).toBe(201);
    expect(await hasFlags()).toBe(false);
    const activated = await server.request(`/api/projects/${project.id}/feature_flags/${created.body.id}/`, {
      method: 'PATCH',
      body: { active: true },
    });
    expect(activated.status, activated.text).toBe(200);
    expect(await hasFlags()).toBe(true);
  });

  it('serves /array/<token>/config and config.js from the environment settings', async () => {
    const token = server.bootstrap.team.apiToken;
    const json = await server.request(`/array/${token}/config`, { key: null });
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ token, hasFeatureFlags: true, sessionRecording: false, autocapture_opt_out: false });
    const js = await server.request(`/array/${token}/config.js`, { key: null });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect(js.text).toContain(`window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}]`);
    const unknown = await server.request('/array/phc_unknown/config', { key: null });
    expect(unknown.status).toBe(404);
  });
});
