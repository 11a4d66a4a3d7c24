/**
 * Every request the app makes goes through `api()`: Hoglet's public /api with the session cookie,
 * nothing else (whatever the app does, a script with a personal API key can do too).
 *
 * Unsafe methods carry the CSRF token: Django's scheme, the `posthog_csrftoken` cookie echoed in the
 * `X-CSRFToken` header. A 401 or 403 that says the session is missing or over sends the app to the
 * sign-in page (`onSignedOut`), keeping where the user was.
 */

/** PostHog's error envelope. */
export interface ApiErrorBody {
  type?: string;
  code?: string;
  detail?: string;
  attr?: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.detail ?? `Request failed (${status})`);
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_COOKIE = 'posthog_csrftoken';

export function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/**
 * Whether a session may be open: the CSRF cookie is set with the session cookie (which scripts
 * cannot read) and cleared with it. A page's requests started before the session is checked are
 * only worth sending then; a visitor who is signed out is sent to sign in instead.
 */
export function mayBeSignedIn(): boolean {
  return readCookie(CSRF_COOKIE) !== undefined;
}

let signedOutHandler: (() => void) | undefined;
/** What to do when the API says the session is gone (set once by the router). */
export function onSignedOut(handler: () => void): void {
  signedOutHandler = handler;
}

export interface ApiOptions {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Do not treat 401/403 as "signed out" (the sign-in form itself, for one). */
  allowUnauthenticated?: boolean;
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const method = (options.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (!SAFE_METHODS.has(method)) Object.assign(headers, csrfHeader());
  const response = await fetch(path.startsWith('/') ? path : `/api/${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal,
  });
  return readResponse<T>(response, (body) => {
    if (!options.allowUnauthenticated && isSignedOut(response.status, body)) signedOutHandler?.();
  });
}

/** The CSRF header an unsafe request carries (none before the cookie is set). */
export function csrfHeader(): Record<string, string> {
  const token = readCookie(CSRF_COOKIE);
  return token ? { 'x-csrftoken': token } : {};
}

/**
 * A response's JSON (a body that is not JSON becomes `{ detail: text }`); an ApiError for a status
 * that is not ok, after `onError` has seen its body.
 */
export async function readResponse<T>(response: Response, onError?: (body: ApiErrorBody) => void): Promise<T> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { detail: text };
  }
  if (!response.ok) {
    const body = (parsed ?? {}) as ApiErrorBody;
    onError?.(body);
    throw new ApiError(response.status, body);
  }
  return parsed as T;
}

/**
 * PostHog answers a missing or expired session with 401, or 403 `not_authenticated` (DRF's
 * NotAuthenticated under session authentication). A 403 for a missing permission is not a sign-out.
 */
export function isSignedOut(status: number, body: ApiErrorBody): boolean {
  if (status === 401) return true;
  return status === 403 && (body.code === 'not_authenticated' || body.code === 'authentication_failed');
}

/** A page of a DRF list. */
export interface Paginated<T> {
  count?: number;
  next: string | null;
  previous: string | null;
  results: T[];
}
