/**
 * Who reads the local-evaluation feed and how it answers: `/flags/definitions` as the Rust flags
 * service does (rust/feature-flags/src/api/flag_definitions.rs, auth.rs, errors.rs), and the
 * project-scoped Django action, whose `token` overrides the URL (posthog/api/routing.py).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForeignOrganization, createKey, createProject } from '../../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { createFlag } from '../../flags/flag-helpers.js';

let server: TestServer;
let second: { id: number; apiToken: string };
let foreignToken: string;

beforeAll(async () => {
  server = await startTestServer();
  const { database } = server.running.ctx;
  await createFlag(server, { key: 'first-only' });
  const { team } = await createProject(database, server.bootstrap.organization.id);
  second = { id: team.id, apiToken: team.apiToken };
  const res = await server.request(`/api/projects/${second.id}/feature_flags/`, { method: 'POST', body: { key: 'second-only' } });
  expect(res.status, res.text).toBe(201);
  foreignToken = (await createForeignOrganization(database)).team.apiToken;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const token = () => server.bootstrap.team.apiToken;
const get = (path: string, key: string | null = server.key, headers: Record<string, string> = {}) => server.request(path, { key, headers });
const authFailed = (detail: string) => ({ type: 'authentication_error', code: 'authentication_failed', detail, attr: null });
const RUST_TOKEN_INVALID = 'The provided API key is invalid or has expired. Please check your API key and try again.';

describe('/flags/definitions errors, as the Rust service gives them', () => {
  it('needs the token when a personal API key is sent, and credentials otherwise', async () => {
    const missing = await get('/flags/definitions?send_cohorts');
    expect({ status: missing.status, detail: missing.body.detail }).toEqual({
      status: 400,
      detail:
        "The 'token' query parameter is required when authenticating with a personal API key. It can be omitted only when using a project secret API key (phs_).",
    });
    const bare = await get('/flags/definitions', null);
    // Rust's JSON error carries no WWW-Authenticate header.
    expect({ status: bare.status, body: bare.body, challenge: bare.headers.get('www-authenticate') }).toEqual({
      status: 401,
      body: {
        type: 'authentication_error',
        code: 'not_authenticated',
        detail: 'Authentication credentials were not provided.',
        attr: null,
      },
      challenge: null,
    });
  });

  it('checks the token before the key', async () => {
    for (const key of [null, server.key, 'phx_not_a_key']) {
      const res = await get('/flags/definitions?token=phc_unknown', key);
      expect({ status: res.status, body: res.body }, String(key)).toEqual({ status: 401, body: authFailed(RUST_TOKEN_INVALID) });
    }
    const empty = await get('/flags/definitions?token=');
    expect(empty.body).toEqual(authFailed(RUST_TOKEN_INVALID));
  });

  it('calls a key invalid when it is unknown or does not reach the token’s project', async () => {
    const { database } = server.running.ctx;
    const invalid = { status: 401, body: authFailed('Personal API key is invalid.') };
    const unknown = await get(`/flags/definitions?token=${token()}`, 'phx_not_a_key');
    expect({ status: unknown.status, body: unknown.body }).toEqual(invalid);
    const foreign = await get(`/flags/definitions?token=${foreignToken}`);
    expect({ status: foreign.status, body: foreign.body }).toEqual(invalid);
    const scoped = await createKey(database, server.bootstrap.user.id, ['feature_flag:read'], [second.id]);
    expect((await get(`/flags/definitions?token=${token()}`, scoped)).body).toEqual(authFailed('Personal API key is invalid.'));
  });
});

describe('feed caching headers', () => {
  it('sends the Rust Cache-Control and content type on /flags/definitions, and a 304 for a bare ETag', async () => {
    const path = `/flags/definitions?token=${token()}&send_cohorts`;
    const first = await get(path);
    expect(first.headers.get('cache-control')).toBe('private, must-revalidate');
    expect(first.headers.get('content-type')).toBe('application/json');
    const etag = first.headers.get('etag')!;
    const bare = etag.replace(/^W\//, '').replace(/"/g, '');
    const again = await get(path, server.key, { 'if-none-match': bare });
    expect({ status: again.status, cacheControl: again.headers.get('cache-control'), etag: again.headers.get('etag') }).toEqual({
      status: 304,
      cacheControl: 'private, must-revalidate',
      etag,
    });
    // extract_etag_from_header reads the whole header as one ETag, so a list never matches.
    expect((await get(path, server.key, { 'if-none-match': `"other", ${etag}` })).status).toBe(200);
  });

  it('gives the Django addresses a 304 for a bare ETag too', async () => {
    const path = `/api/feature_flag/local_evaluation/?token=${token()}`;
    const first = await get(path);
    const bare = first.headers.get('etag')!.replace(/^W\//, '').replace(/"/g, '');
    expect((await get(path, server.key, { 'if-none-match': bare })).status).toBe(304);
    expect((await get(path, server.key, { 'if-none-match': `"other", ${bare}` })).status).toBe(304);
  });
});

describe('project-scoped feed with a token', () => {
  const projectFeed = (projectId: number | string, query: string, key: string | null = server.key) =>
    get(`/api/projects/${projectId}/feature_flags/local_evaluation/${query}`, key);

  it('serves the token’s environment instead of the URL’s', async () => {
    const keysOf = (res: { status: number; body: any }) => ({ status: res.status, keys: res.body.flags?.map((f: any) => f.key) });
    expect(keysOf(await projectFeed(server.bootstrap.team.id, `?token=${second.apiToken}`))).toEqual({
      status: 200,
      keys: ['second-only'],
    });
    // The URL's project is not even looked at, as in PostHog.
    expect(keysOf(await projectFeed(999_999, `?api_key=${second.apiToken}`))).toEqual({ status: 200, keys: ['second-only'] });
  });

  it('refuses an unknown token', async () => {
    const res = await projectFeed(server.bootstrap.team.id, '?token=phc_unknown');
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: authFailed('Incorrect authentication credentials.') });
  });

  it('never lets a key reach a project it is not allowed into', async () => {
    const { database } = server.running.ctx;
    const scoped = await createKey(database, server.bootstrap.user.id, ['feature_flag:read'], [server.bootstrap.team.id]);
    const other = await projectFeed(server.bootstrap.team.id, `?token=${second.apiToken}`, scoped);
    expect({ status: other.status, detail: other.body.detail }).toEqual({
      status: 403,
      detail: `API key does not have access to the requested project: ID ${second.id}.`,
    });
    const foreign = await projectFeed(server.bootstrap.team.id, `?token=${foreignToken}`);
    expect({ status: foreign.status, detail: foreign.body.detail }).toEqual({
      status: 403,
      detail: "You don't have access to the project.",
    });
  });
});
