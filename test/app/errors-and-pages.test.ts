import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/server.js';
import { createProject } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('error envelope', () => {
  it('answers unknown routes with 404 Not found.', async () => {
    const res = await server.request('/api/nothing/here/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    expect((await server.request('/no/such/page')).body.code).toBe('not_found');
  });

  it('answers an unknown project with 404 Project not found.', async () => {
    for (const id of ['999999', 'abc', '-1']) {
      const res = await server.request(`/api/projects/${id}/`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null });
    }
  });

  it("answers a path that is not UTF-8, or with a segment past the router's length, with the 404 envelope", async () => {
    const long = 'x'.repeat(3000);
    const paths = [
      '/api/projects/%FF/',
      '/api/projects/1/feature_flags/%C3%28/',
      '/array/%ED%A0%80/config',
      `/api/projects/${long}/`,
      `/array/${long}/config`,
    ];
    for (const path of paths) {
      const res = await server.request(path);
      expect(res.status, path.slice(0, 50)).toBe(404);
      expect(res.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
  });

  it('answers an unsupported method with 405 after authentication', async () => {
    const res = await server.request('/api/projects/', { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail: 'Method "DELETE" not allowed.',
      attr: null,
    });
    expect((await server.request('/api/projects/', { method: 'DELETE', key: null })).status).toBe(401);
  });

  it('answers malformed JSON with 400 parse_error', async () => {
    const res = await server.request('/api/projects/', {
      method: 'PUT',
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_request');
    expect(res.body.code).toBe('parse_error');
    expect(res.body.detail).toMatch(/^JSON parse error - /);
    expect(res.body.attr).toBeNull();
  });

  it('refuses JSON nested deeper than 1000 levels with 400 parse_error, and reads 1000', async () => {
    const flags = `/api/projects/${server.bootstrap.team.id}/feature_flags/`;
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const deep = await server.request(flags, {
      method: 'POST',
      rawBody: `{"key": "too-deep", "filters": {"groups": ${nested(5000)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status, deep.text).toBe(400);
    expect(deep.body).toEqual({
      type: 'invalid_request',
      code: 'parse_error',
      detail: 'JSON parse error - nested deeper than 1000 levels',
      attr: null,
    });
    const deepest = await server.request(flags, {
      method: 'POST',
      rawBody: `{"key": "deep-enough", "filters": {"groups": [{"rollout_percentage": 100}]}, "unread": ${nested(999)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deepest.status, deepest.text).toBe(201);
  });

  it("answers a JSON body that is not an object as DRF's serializers do, on every resource", async () => {
    const base = `/api/projects/${server.bootstrap.team.id}`;
    const collections = ['feature_flags', 'cohorts', 'insights', 'dashboards', 'subscriptions'];
    const invalid = (type: string) => ({
      type: 'validation_error',
      code: 'invalid_input',
      detail: `Invalid data. Expected a dictionary, but got ${type}.`,
      attr: null,
    });
    const cases: Array<[string, unknown]> = [
      ['"text"', invalid('str')],
      ['[{}]', invalid('list')],
      ['1.5', invalid('float')],
      ['false', invalid('bool')],
      ['null', { type: 'validation_error', code: 'null', detail: 'No data provided', attr: null }],
    ];
    for (const collection of [...collections.map((c) => `${base}/${c}/`), `/api/environments/${server.bootstrap.team.id}/`]) {
      const method = collection.includes('/environments/') ? 'PATCH' : 'POST';
      for (const [rawBody, expected] of cases) {
        const res = await server.request(collection, { method, rawBody, headers: { 'content-type': 'application/json' } });
        expect(res.status, `${collection} ${rawBody}`).toBe(400);
        expect(res.body, `${collection} ${rawBody}`).toEqual(expected);
      }
    }
    // No body at all is an empty one, as Django reads it: a dashboard needs no field.
    const empty = await server.request(`${base}/dashboards/`, { method: 'POST' });
    expect(empty.status, empty.text).toBe(201);
  });

  it('answers a body DRF has no parser for (text/plain) with its 415, and reads an empty one as none', async () => {
    const flags = `/api/projects/${server.bootstrap.team.id}/feature_flags/`;
    for (const contentType of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
      const res = await server.request(flags, {
        method: 'POST',
        rawBody: '{"key": "plain-text"}',
        headers: { 'content-type': contentType },
      });
      expect(res.status, contentType).toBe(415);
      expect(res.body).toEqual({
        type: 'invalid_request',
        code: 'unsupported_media_type',
        detail: `Unsupported media type "${contentType}" in request.`,
        attr: null,
      });
    }
    const nowhere = await server.request('/api/nothing/here/', {
      method: 'POST',
      rawBody: 'text',
      headers: { 'content-type': 'text/plain' },
    });
    expect(nowhere.status).toBe(404);
    const empty = await server.request(flags, { method: 'POST', rawBody: '', headers: { 'content-type': 'text/plain' } });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'key' });
  });

  it('reads a PATCH with an empty body as {} (DRF): nothing changes, the object is answered', async () => {
    const base = `/api/projects/${server.bootstrap.team.id}`;
    const made = async (path: string, body: unknown) => {
      const res = await server.request(`${base}/${path}`, { method: 'POST', body });
      expect(res.status, res.text).toBe(201);
      return res.body.id as number;
    };
    const objects = [
      `/api/environments/${server.bootstrap.team.id}/`,
      `${base}/feature_flags/${await made('feature_flags/', { key: 'empty-patch', filters: { groups: [{ rollout_percentage: 100 }] } })}/`,
      `${base}/cohorts/${await made('cohorts/', { name: 'Empty patch', filters: { properties: { type: 'OR', values: [] } } })}/`,
      `${base}/dashboards/${await made('dashboards/', { name: 'Empty patch' })}/`,
    ];
    for (const path of objects) {
      const before = await server.request(path);
      for (const headers of [{}, { 'content-type': 'application/json' }] as Array<Record<string, string>>) {
        const res = await server.request(path, { method: 'PATCH', rawBody: '', headers });
        expect(res.status, `${path} ${res.text}`).toBe(200);
        expect(res.body.id).toBe(before.body.id);
        expect(res.body.name).toBe(before.body.name);
      }
    }
  });

  it('answers an unexpected failure with a 500 envelope, no stack, one log line', async () => {
    const lines: string[] = [];
    const pino = (await import('pino')).default;
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const app = await buildServer({ ...server.running.ctx, log });
    app.get('/boom', async () => {
      throw new Error('secret internals at /srv/hoglet/file.ts:12');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const address = app.server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${address.port}/boom`);
      const text = await res.text();
      expect(res.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
      expect(text).not.toContain('secret internals');
      const errorLines = lines.filter((l) => l.includes('unhandled error'));
      expect(errorLines).toHaveLength(1);
      expect(errorLines[0]).toContain('secret internals');
    } finally {
      await app.close();
    }
  });
});

describe('pagination', () => {
  it('pages with limit and offset and absolute, sorted next/previous URLs', async () => {
    const { database } = server.running.ctx;
    for (let i = 0; i < 4; i++) await createProject(database, server.bootstrap.organization.id, `P${i}`);
    const all = await server.request('/api/projects/');
    expect(all.body.count).toBe(5);
    expect(all.body.next).toBeNull();
    expect(all.body.previous).toBeNull();
    expect(Object.keys(all.body)).toEqual(['count', 'next', 'previous', 'results']);

    const first = await server.request('/api/projects/?limit=2');
    expect(first.body.results).toHaveLength(2);
    expect(first.body.next).toBe(`${server.url}/api/projects/?limit=2&offset=2`);
    expect(first.body.previous).toBeNull();

    const middle = await server.request('/api/projects/?offset=2&limit=2&zeta=1');
    expect(middle.body.results.map((p: { id: number }) => p.id)).toEqual(all.body.results.slice(2, 4).map((p: { id: number }) => p.id));
    expect(middle.body.next).toBe(`${server.url}/api/projects/?limit=2&offset=4&zeta=1`);
    expect(middle.body.previous).toBe(`${server.url}/api/projects/?limit=2&zeta=1`);

    const last = await server.request('/api/projects/?limit=2&offset=4');
    expect(last.body.results).toHaveLength(1);
    expect(last.body.next).toBeNull();
    expect(last.body.previous).toBe(`${server.url}/api/projects/?limit=2&offset=2`);

    const odd = await server.request('/api/projects/?limit=2&offset=3');
    expect(odd.body.previous).toBe(`${server.url}/api/projects/?limit=2&offset=1`);
  });

  it('falls back to the defaults for unreadable values', async () => {
    const res = await server.request('/api/projects/?limit=abc&offset=-3');
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBe(res.body.count);
    const zero = await server.request('/api/projects/?limit=0');
    expect(zero.body.results.length).toBe(zero.body.count);
  });
});

describe('projects, users and health', () => {
  it('retrieves a project as the full environment body, also as @current', async () => {
    const res = await server.request(`/api/projects/${server.bootstrap.team.id}/`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(server.bootstrap.team.id);
    expect(res.body.project_id).toBe(server.bootstrap.team.id);
    expect(res.body.name).toBe('Default project');
    expect(res.body.timezone).toBe('UTC');
    expect(res.body.data_attributes).toEqual(['data-attr']);
    expect(res.body.capture_console_log_opt_in).toBe(true);
    expect(res.body.autocapture_opt_out).toBeNull();
    expect(res.body.session_recording_url_trigger_config).toEqual([]);
    expect(res.body.effective_membership_level).toBe(15);
    expect(res.body.test_account_filters[0]).toEqual({
      key: 'email',
      operator: 'not_icontains',
      value: '@hoglet.local',
      type: 'person',
    });
    const current = await server.request('/api/projects/@current/');
    expect(current.body.id).toBe(server.bootstrap.team.id);
  });

  it('answers /api/users/@me/ with the key owner', async () => {
    const res = await server.request('/api/users/@me/');
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('admin@hoglet.local');
    expect(res.body.team.id).toBe(server.bootstrap.team.id);
    expect(res.body.organizations[0].membership_level).toBe(15);
  });

  it('answers health and readiness', async () => {
    expect((await server.request('/_health', { key: null })).body).toEqual({ status: 'ok' });
    expect((await server.request('/_readiness', { key: null })).body).toEqual({ status: 'ok', database: 'ok' });
  });
});
