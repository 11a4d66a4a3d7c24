/**
 * Browser sessions in tests: sign in through `POST /api/login/` and send the cookies (and the CSRF
 * header on unsafe methods) as a browser's page would.
 */
import { expect } from 'vitest';
import { setPassword } from '../../src/auth/password-service.js';
import type { Database } from '../../src/platform/db/database.js';
import type { ApiResponse, RequestOptions, TestServer } from './server.js';

export interface SessionClient {
  /** The `sessionid` cookie's value. */
  sessionId: string;
  /** The `posthog_csrftoken` cookie's value. */
  csrfToken: string;
  /** The Set-Cookie lines of the login answer. */
  setCookies: string[];
  /** A request with both cookies; `csrf: false` leaves out the X-CSRFToken header. */
  request<T = any>(path: string, options?: RequestOptions & { csrf?: boolean | string }): Promise<ApiResponse<T>>;
}

export function cookieOf(setCookies: string[], name: string): string | undefined {
  for (const line of setCookies) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    if (pair!.slice(0, eq) === name) return pair!.slice(eq + 1);
  }
  return undefined;
}

/** Gives a user a password (straight through the service, as the CLI does). */
export async function givePassword(database: Database, userId: number, password: string): Promise<void> {
  await setPassword(database, userId, password);
}

export async function login(server: Pick<TestServer, 'request'>, email: string, password: string): Promise<ApiResponse> {
  return server.request('/api/login/', { method: 'POST', key: null, body: { email, password } });
}

export async function signIn(server: Pick<TestServer, 'request'>, email: string, password: string): Promise<SessionClient> {
  const res = await login(server, email, password);
  expect(res.status, res.text).toBe(200);
  const setCookies = res.headers.getSetCookie();
  const sessionId = cookieOf(setCookies, 'sessionid')!;
  const csrfToken = cookieOf(setCookies, 'posthog_csrftoken')!;
  expect(sessionId).toBeTruthy();
  expect(csrfToken).toBeTruthy();
  return {
    sessionId,
    csrfToken,
    setCookies,
    request(path, options = {}) {
      const method = (options.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = { cookie: `sessionid=${sessionId}; posthog_csrftoken=${csrfToken}`, ...options.headers };
      const csrf = options.csrf ?? true;
      if (csrf !== false && !['GET', 'HEAD', 'OPTIONS'].includes(method)) headers['x-csrftoken'] = csrf === true ? csrfToken : csrf;
      return server.request(path, { ...options, key: null, headers });
    },
  };
}
