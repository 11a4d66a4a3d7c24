/**
 * Project secret API keys (`phs_…`) on the addresses server SDKs read: `/flags/definitions` as the
 * Rust flags service answers (rust/feature-flags/src/api/flag_definitions.rs, auth.rs, errors.rs),
 * the Django local-evaluation actions and the remote-config payload (posthog/auth.py
 * TeamSecretTokenAuthentication, posthog/permissions.py ProjectSecretAPITokenPermission). A key
 * reaches its own environment and nothing else.
 */
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createFlag, personFilter } from './flag-helpers.js';

let server: TestServer;
/** The bootstrap project's first environment (A), a second environment of it (A2), and another project (B). */
let a: { id: number; token: string; key: string; backup: string };
let a2: { id: number; token: string; key: string };
let b: { id: number; token: string; key: string };
let configFlagId: number;
let bFlagId: number;

async function rotate(path: string): Promise<{ secret_api_token: string; secret_api_token_backup: string | null }> {
  const res = await server.request(`${path}/rotate_secret_token/`, { method: 'PATCH', body: {} });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  server = await startTestServer();
  const aId = server.bootstrap.team.id;
  await createFlag(server, {
    key: 'a-only',
    filters: { groups: [{ properties: [personFilter('email', '@corp.io', 'icontains')], rollout_percentage: 100 }] },
  });
  configFlagId = (
    await createFlag(server, {
      key: 'a-config',
      is_remote_configuration: true,
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { color: 'red' } } },
    })
  ).id;
  await createFlag(server, {
    key: 'a-plain',
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { color: 'blue' } } },
  });
  const backup = (await rotate(`/api/projects/${aId}`)).secret_api_token;
  const key = (await rotate(`/api/projects/${aId}`)).secret_api_token;
  a = { id: aId, token: server.bootstrap.team.apiToken, key, backup };

  const env = await server.request(`/api/projects/${aId}/environments/`, { method: 'POST', body: { name: 'A2' } });
  expect(env.status, env.text).toBe(201);
  a2 = { id: env.body.id, token: env.body.api_token, key: (await rotate(`/api/environments/${env.body.id}`)).secret_api_token };

  const { team } = await createProject(server.running.ctx.database, server.bootstrap.organization.id);
  const flag = await server.request(`/api/projects/${team.id}/feature_flags/`, {
    method: 'POST',
    body: { key: 'b-only', is_remote_configuration: true },
  });
  expect(flag.status, flag.text).toBe(201);
  bFlagId = flag.body.id;
  const plain = await server.request(`/api/projects/${team.id}/feature_flags/`, { method: 'POST', body: { key: 'b-flag' } });
  expect(plain.status, plain.text).toBe(201);
  b = { id: team.id, token: team.apiToken, key: (await rotate(`/api/projects/${team.id}`)).secret_api_token };
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const get = (path: string, key: string | null) => server.request(path, { key });
const flagKeys = (res: { body: any }) => (res.body.flags as Array<{ key: string }>).map((f) => f.key).sort();
const authFailed = (detail: string) => ({ type: 'authentication_error', code: 'authentication_failed', detail, attr: null });
const SECRET_INVALID = authFailed('Secret API token is invalid.');
const PERSONAL_INVALID = authFailed('Personal API key found in request Authorization header is invalid.');
const FORBIDDEN = {
  type: 'authentication_error',
  code: 'permission_denied',
  detail: 'You do not have permission to perform this action.',
  attr: null,
};

describe('/flags/definitions with a project secret key', () => {
  it('serves the key’s environment, with the current key and with the backup', async () => {
    for (const key of [a.key, a.backup]) {
      const res = await get(`/flags/definitions?token=${a.token}&send_cohorts`, key);
      expect(res.status, res.text).toBe(200);
      expect(flagKeys(res)).toEqual(['a-only', 'a-plain']);
    }
  });

  it('needs no token: the key names its environment', async () => {
    const own = await get('/flags/definitions', a.key);
    expect({ status: own.status, keys: flagKeys(own) }).toEqual({ status: 200, keys: ['a-only', 'a-plain'] });
    const other = await get('/flags/definitions?send_cohorts', b.key);
    expect({ status: other.status, keys: flagKeys(other) }).toEqual({ status: 200, keys: ['b-flag'] });
  });

  it('refuses another environment’s key and a wrong key, as Rust does', async () => {
    for (const [key, query] of [
      [b.key, `?token=${a.token}`],
      [a2.key, `?token=${a.token}`],
      [a.key, `?token=${b.token}`],
      ['phs_NotAKeyOfAnyEnvironment123', `?token=${a.token}`],
      ['phs_NotAKeyOfAnyEnvironment123', ''],
    ] as const) {
      const res = await get(`/flags/definitions${query}`, key);
      expect({ status: res.status, body: res.body }, `${key} ${query}`).toEqual({ status: 401, body: SECRET_INVALID });
    }
  });

  it('stops taking a key once rotated out of the backup, or once the backup is deleted', async () => {
    const env = await server.request(`/api/projects/${a.id}/environments/`, { method: 'POST', body: { name: 'Rotating' } });
    const path = `/api/environments/${env.body.id}`;
    const first = (await rotate(path)).secret_api_token;
    const second = (await rotate(path)).secret_api_token;
    const feed = (key: string) => get(`/flags/definitions?token=${env.body.api_token}`, key);
    expect((await feed(first)).status).toBe(200);
    const third = (await rotate(path)).secret_api_token;
    expect((await feed(first)).body).toEqual(SECRET_INVALID);
    expect((await feed(second)).status).toBe(200);
    expect((await server.request(`${path}/delete_secret_token_backup/`, { method: 'PATCH', body: {} })).status).toBe(200);
    expect((await feed(second)).body).toEqual(SECRET_INVALID);
    expect((await feed(third)).status).toBe(200);
  });
});

describe('Django local-evaluation actions with a project secret key', () => {
  const projectFeed = (project: number | string, query: string, key: string) =>
    get(`/api/projects/${project}/feature_flags/local_evaluation/${query}`, key);

  it('serve the key’s environment by its project, `@current` or its token', async () => {
    for (const res of [
      await projectFeed(a.id, '', a.key),
      await projectFeed('@current', '', a.backup),
      await projectFeed(a.id, `?token=${a.token}`, a.key),
    ]) {
      expect({ status: res.status, keys: flagKeys(res) }).toEqual({ status: 200, keys: ['a-only', 'a-plain'] });
    }
    const legacy = await get(`/api/feature_flag/local_evaluation/?token=${a.token}`, a.key);
    expect({ status: legacy.status, keys: flagKeys(legacy) }).toEqual({ status: 200, keys: ['a-only', 'a-plain'] });
    // Without a token the legacy address resolves the key's project.
    expect((await get('/api/feature_flag/local_evaluation/', a.key)).status).toBe(200);
    // A second environment's key reaches it through its own token.
    expect((await projectFeed(a.id, `?token=${a2.token}`, a2.key)).status).toBe(200);
    expect((await get(`/api/feature_flag/local_evaluation/?token=${a2.token}`, a2.key)).status).toBe(200);
  });

  it('refuse any other environment, whether named by the URL or by a token', async () => {
    const attempts = [
      await projectFeed(b.id, '', a.key),
      await projectFeed(999_999, '', a.key),
      await projectFeed(a.id, `?token=${b.token}`, a.key),
      await projectFeed(b.id, `?token=${a.token}`, b.key),
      // The project's first environment is not a second environment's.
      await projectFeed(a.id, '', a2.key),
      await get(`/api/feature_flag/local_evaluation/?token=${b.token}`, a.key),
      await get('/api/feature_flag/local_evaluation/', a2.key),
    ];
    for (const res of attempts) expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: FORBIDDEN });
  });

  it('judge an unknown secret key as a personal API key, which it is not', async () => {
    for (const path of [`/api/projects/${a.id}/feature_flags/local_evaluation/`, `/api/feature_flag/local_evaluation/?token=${a.token}`]) {
      expect((await get(path, a.key)).status, path).toBe(200);
      const res = await get(path, 'phs_NotAKeyOfAnyEnvironment123');
      expect({ status: res.status, body: res.body }, path).toEqual({ status: 401, body: PERSONAL_INVALID });
    }
  });
});

describe('remote-config payload', () => {
  const remoteConfig = (project: number | string, flag: number | string, key: string, query = '') =>
    get(`/api/projects/${project}/feature_flags/${flag}/remote_config${query}`, key);

  it('answers a remote-configuration flag’s payload to the environment’s secret key and to a personal key', async () => {
    for (const res of [
      await remoteConfig('@current', 'a-config', a.key, `?token=${a.token}`),
      await remoteConfig(a.id, configFlagId, a.backup),
      await remoteConfig(a.id, 'a-config', server.key),
    ]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: '{"color":"red"}' });
    }
    const empty = await remoteConfig(b.id, 'b-only', b.key);
    expect({ status: empty.status, text: empty.text }).toEqual({ status: 200, text: 'null' });
  });

  it('answers a bare 404 for a flag that is not remote configuration, or not the project’s', async () => {
    for (const res of [
      await remoteConfig(a.id, 'a-plain', a.key),
      await remoteConfig(a.id, 'missing', a.key),
      await remoteConfig(a.id, bFlagId, a.key),
    ]) {
      expect({ status: res.status, text: res.text }).toEqual({ status: 404, text: '' });
    }
  });

  it('refuses another environment’s key', async () => {
    for (const res of [await remoteConfig(a.id, 'a-config', b.key), await remoteConfig(b.id, 'b-only', a.key, `?token=${b.token}`)]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: FORBIDDEN });
    }
  });
});

describe('a project secret key anywhere else under /api', () => {
  it('is an invalid personal API key', async () => {
    // The key is good: its own feed answers it.
    expect((await get(`/api/projects/${a.id}/feature_flags/local_evaluation/`, a.key)).status).toBe(200);
    const flags = `/api/projects/${a.id}/feature_flags/`;
    const attempts: Array<[string, string]> = [
      ['GET', '/api/projects/'],
      ['GET', `/api/projects/${a.id}/`],
      ['GET', `/api/environments/${a.id}/`],
      ['GET', '/api/users/@me/'],
      ['GET', flags],
      ['GET', `${flags}${configFlagId}/`],
      ['POST', flags],
      ['GET', `/api/projects/${a.id}/cohorts/`],
      ['GET', `/api/environments/${a.id}/events/`],
      ['GET', `/api/environments/${a.id}/persons/`],
      ['PATCH', `/api/projects/${a.id}/rotate_secret_token/`],
      ['PATCH', `/api/environments/${a.id}/delete_secret_token_backup/`],
    ];
    for (const [method, path] of attempts) {
      const res = await server.request(path, { method, key: a.key, ...(method === 'GET' ? {} : { body: { key: 'sneaky' } }) });
      expect({ status: res.status, body: res.body }, `${method} ${path}`).toEqual({ status: 401, body: PERSONAL_INVALID });
    }
  });
});

describe('posthog-node with the project secret key as personalApiKey', () => {
  it('evaluates flags locally and reads a remote-config payload', async () => {
    const client = new PostHog(a.token, { host: server.url, personalApiKey: a.key, featureFlagsPollingInterval: 60_000, flushAt: 1000 });
    try {
      expect(await client.waitForLocalEvaluationReady(10_000)).toBe(true);
      const options = { onlyEvaluateLocally: true, sendFeatureFlagEvents: false };
      expect(await client.getFeatureFlag('a-only', 'insider', { ...options, personProperties: { email: 'ada@corp.io' } })).toBe(true);
      expect(await client.getFeatureFlag('a-only', 'outsider', { ...options, personProperties: { email: 'bob@else.io' } })).toBe(false);
      expect(await client.getRemoteConfigPayload('a-config')).toEqual({ color: 'red' });
    } finally {
      await client.shutdown();
    }
  });

  it('gets nothing with another environment’s key, which serves its own environment', async () => {
    const own = new PostHog(b.token, { host: server.url, personalApiKey: b.key, featureFlagsPollingInterval: 60_000, flushAt: 1000 });
    const other = new PostHog(a.token, { host: server.url, personalApiKey: b.key, featureFlagsPollingInterval: 60_000, flushAt: 1000 });
    other.on('error', () => {});
    try {
      expect(await own.waitForLocalEvaluationReady(10_000)).toBe(true);
      expect(await other.waitForLocalEvaluationReady(3_000)).toBe(false);
      expect(
        await other.getFeatureFlag('a-only', 'insider', { onlyEvaluateLocally: true, personProperties: { email: 'ada@corp.io' } }),
      ).toBeUndefined();
    } finally {
      await own.shutdown();
      await other.shutdown();
    }
  });
});
