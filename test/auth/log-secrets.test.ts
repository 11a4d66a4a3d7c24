/**
 * No session token, CSRF token, password or reset token reaches the server's log lines, at the
 * most verbose level, through logins (right, wrong, throttled), session requests, password changes,
 * reset links and errors.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { freshStorage, type TestStorage } from '../helpers/backend.js';
import type { ApiResponse, RequestOptions } from '../helpers/server.js';
import { cookieOf } from '../helpers/sessions.js';

let storage: TestStorage;
let running: RunningApp;
const lines: string[] = [];

beforeAll(async () => {
  storage = await freshStorage();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  running = await startApp(loadConfig({ ...storage.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'trace' }), {
    log: pino({ level: 'trace' }, sink),
  });
});
afterAll(async () => {
  await running?.close();
  await storage?.dispose();
});

async function request(path: string, options: RequestOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(running.url + path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined, text };
}

it('keeps secrets out of the log', async () => {
  const { user, setPasswordToken } = running.bootstrap!;
  const password = 'log-test password one';
  const set = await request(`/api/reset/${user.uuid}/`, { method: 'POST', body: { token: setPasswordToken, password } });
  expect(set.status).toBe(204);
  const wrong = 'log-test wrong password';
  for (let i = 0; i < 11; i++) await request('/api/login/', { method: 'POST', body: { email: user.email, password: wrong } });
  const unknown = await request('/api/login/', { method: 'POST', body: { email: 'other@example.com', password } });
  expect(unknown.status).toBe(400);
  // The e-mail is throttled now; the bootstrap key still works, and a session from the reset answer does.
  const sessionId = cookieOf(set.headers.getSetCookie(), 'sessionid')!;
  const csrf = cookieOf(set.headers.getSetCookie(), 'posthog_csrftoken')!;
  const cookie = `sessionid=${sessionId}; posthog_csrftoken=${csrf}`;
  expect((await request('/api/users/@me/', { headers: { cookie } })).status).toBe(200);
  const newPassword = 'log-test password two';
  const changed = await request('/api/users/@me/', {
    method: 'PATCH',
    headers: { cookie, 'x-csrftoken': csrf },
    body: { password: newPassword, current_password: password },
  });
  expect(changed.status).toBe(200);
  expect((await request('/api/users/@me/', { method: 'PATCH', headers: { cookie }, body: { first_name: 'x' } })).status).toBe(403);
  expect((await request(`/api/reset/${user.uuid}/?token=${setPasswordToken}`)).status).toBe(400);
  await request('/api/logout/', { method: 'POST', headers: { cookie, 'x-csrftoken': csrf } });

  const log = lines.join('');
  expect(log).toContain('api request');
  for (const secret of [password, wrong, newPassword, sessionId, csrf, setPasswordToken]) expect(log).not.toContain(secret);
  expect(log).not.toContain('scrypt$');
});
