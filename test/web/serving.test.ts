/**
 * Hoglet serves the web app (web/dist/, built by the global setup) at `/` and the app's own paths,
 * with its security headers; every other path (the API, the SDK endpoints, anything unknown) stays
 * as it was.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';
import { CONTENT_SECURITY_POLICY } from '../../src/web-app/routes.js';
import { PROJECT_SECTIONS } from '../../src/web-app/sections.js';

const server = useTestServer();

const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers, redirect: 'manual' });

async function expectAppPage(path: string) {
  const res = await get(path, { accept: 'text/html' });
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
  expect(await res.text(), path).toContain('<div id="root"></div>');
  return res;
}

describe('the web app', () => {
  it('is the page at / with a Content-Security-Policy and no inline script', async () => {
    const res = await expectAppPage('/');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await (await get('/')).text();
    // Every script is a file of the app's own.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).toMatch(/<script type="module" crossorigin src="\/app-assets\/index-[\w-]+\.js"><\/script>/);
  });

  it("answers the app's own paths and PostHog's link shapes with the page", async () => {
    const token = server.token;
    const paths = [
      '/login',
      '/login?next=%2Factivity',
      '/reset/0190-uuid/some-token',
      '/activity',
      '/get-started/',
      `/project/${server.bootstrap.team.id}`,
      `/project/${server.bootstrap.team.id}/activity?event=%24pageview`,
      // posthog-js's get_session_replay_url()
      `/project/${token}/replay/0190a1b2-c3d4`,
      // the links of subscription e-mails (src/subscriptions/delivery/report.ts)
      `/project/${server.bootstrap.team.id}/insights/AbC123`,
      `/project/${server.bootstrap.team.id}/insights/AbC123/subscriptions/4`,
      `/project/${server.bootstrap.team.id}/dashboard/2/subscriptions/5`,
      ...PROJECT_SECTIONS.map((section) => `/${section}/anything/below`),
    ];
    for (const path of paths) await expectAppPage(path);
  });

  it('leaves /api, the SDK paths and unknown paths as they were', async () => {
    for (const path of ['/api/', '/api/nothing-here/', '/api/projects/999999/nothing/', '/nothing-here', '/activityx', '/projects']) {
      const res = await get(path, { accept: 'text/html' });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await res.json(), path).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    }
    const api = await get('/api/projects/', { accept: 'text/html' });
    expect(api.status).toBe(401);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
    const arrayJs = await get('/static/array.js', { accept: 'text/html' });
    expect(arrayJs.status).toBe(200);
    expect(arrayJs.headers.get('content-type')).toMatch(/javascript/);
    const decide = await fetch(`${server.url}/decide/?v=3`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: JSON.stringify({ token: server.token, distinct_id: 'someone' }),
    });
    expect(decide.status).toBe(200);
    expect(await decide.json()).toHaveProperty('featureFlags');
    const capture = await fetch(`${server.url}/e/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: server.token, event: 'x', distinct_id: 'someone' }),
    });
    expect(await capture.json()).toEqual({ status: 1 });
    for (const path of ['/batch/', '/flags/?v=2', '/i/v0/e/', '/s/', '/_health']) {
      const res = await get(path, { accept: 'text/html' });
      expect(res.headers.get('content-type') ?? '', path).not.toMatch(/text\/html/);
    }
  });

  it('serves its hashed assets for a year, gzipped when the browser takes it, and nothing else', async () => {
    const html = await (await get('/')).text();
    const script = /src="(\/app-assets\/[^"]+\.js)"/.exec(html)![1]!;
    const stylesheet = /href="(\/app-assets\/[^"]+\.css)"/.exec(html)![1]!;
    const plain = await get(script, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const body = await plain.text();
    // node's fetch decompresses: the same script, fewer bytes on the wire.
    const gzipped = await get(script, { 'accept-encoding': 'gzip, deflate, br' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(await gzipped.text()).toBe(body);
    expect((await get(stylesheet)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const path of [
      '/app-assets/nothing-0000.js',
      '/app-assets/..%2Fpackage.json',
      '/app-assets/%2E%2E%2Findex.html',
      '/app-assets/.build-stamp',
      '/app-assets/',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
    }
    // The manifest and stamp beside the page are not served either.
    expect((await get('/.vite/manifest.json')).status).toBe(404);
    expect((await get('/index.html')).status).toBe(404);
  });
});
