/**
 * Browser sessions as PostHog (Django) has them: an HttpOnly `sessionid` cookie whose value only
 * the browser holds (the database keeps its sha256), and Django's CSRF scheme: a JS-readable
 * `posthog_csrftoken` cookie that every unsafe request made with the session echoes in an
 * `X-CSRFToken` header. The CSRF token is derived from the session token (an HMAC), so a cookie
 * planted by another site or subdomain matches no session.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../platform/db/database.js';
import type { User } from '../environments/models.js';
import { permissionDenied } from '../posthog/errors.js';
import { constantTimeEqual, readCookie, serializeCookie } from './core/cookies.js';
import {
  deleteSession,
  extendSession,
  findSession,
  hashToken,
  insertSession,
  touchLastLogin,
  type StoredSession,
} from './sessions-store.js';

export const SESSION_COOKIE = 'sessionid';
export const CSRF_COOKIE = 'posthog_csrftoken';
export const CSRF_HEADER = 'x-csrftoken';

/** Django's SESSION_COOKIE_AGE as PostHog sets it: two weeks, renewed while the session is used. */
export const SESSION_AGE_MS = 14 * 24 * 3600 * 1000;
/** A session's expiry is pushed forward at most this often: one write an hour, not one per request. */
const SLIDE_EVERY_MS = 3600 * 1000;

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface ActiveSession {
  user: User;
  /** sha256 of the cookie value: the row's key, used to keep this session when others end. */
  tokenHash: string;
}

export const csrfTokenFor = (sessionToken: string) => createHmac('sha256', sessionToken).update('posthog_csrftoken').digest('base64url');

const secure = (request: FastifyRequest) => request.protocol === 'https';

function setSessionCookies(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeMs: number): void {
  const maxAgeSeconds = Math.floor(maxAgeMs / 1000);
  reply.header('set-cookie', [
    serializeCookie(SESSION_COOKIE, token, { maxAgeSeconds, httpOnly: true, secure: secure(request) }),
    // Readable by the page's scripts, which echo it in X-CSRFToken (Django's CSRF_COOKIE_HTTPONLY = False).
    serializeCookie(CSRF_COOKIE, csrfTokenFor(token), { maxAgeSeconds, httpOnly: false, secure: secure(request) }),
  ]);
  // A response that sets a session must never be kept by a shared cache.
  reply.header('cache-control', 'no-store');
}

/** Starts a session for the user: a new random token (256 bits), its hash stored, both cookies set. */
export async function startSession(database: Database, request: FastifyRequest, reply: FastifyReply, user: User): Promise<ActiveSession> {
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  await insertSession(database.db, user.id, token, now, new Date(now.getTime() + SESSION_AGE_MS));
  await touchLastLogin(database.db, user.id, now);
  setSessionCookies(request, reply, token, SESSION_AGE_MS);
  return { user, tokenHash: hashToken(token) };
}

export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const token = readCookie(request.headers.cookie, SESSION_COOKIE);
  // Our tokens are 43 base64url characters; anything else names no session and is not looked up.
  return token && /^[A-Za-z0-9_-]{43}$/.test(token) ? token : undefined;
}

/**
 * The request's session, if its cookie names a live one. A session used an hour or more after its
 * last renewal is renewed (server side and cookie), so it lasts two weeks from its last use.
 */
export async function currentSession(
  database: Database,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<(ActiveSession & { token: string }) | undefined> {
  const token = sessionTokenOf(request);
  if (!token) return undefined;
  const now = new Date();
  const found = await findSession(database.db, token, now);
  if (!found) return undefined;
  if (now.getTime() - Date.parse(found.session.lastSeenAt) >= SLIDE_EVERY_MS) {
    await extendSession(database.db, found.session.tokenHash, now, new Date(now.getTime() + SESSION_AGE_MS));
    setSessionCookies(request, reply, token, SESSION_AGE_MS);
  }
  return { user: found.user, tokenHash: found.session.tokenHash, token };
}

/** Ends the request's session (its row deleted) and clears both cookies. */
export async function endSession(database: Database, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const token = sessionTokenOf(request);
  if (token) await deleteSession(database.db, hashToken(token));
  reply.header('set-cookie', [
    serializeCookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, httpOnly: true, secure: secure(request) }),
    serializeCookie(CSRF_COOKIE, '', { maxAgeSeconds: 0, httpOnly: false, secure: secure(request) }),
  ]);
  reply.header('cache-control', 'no-store');
}

/**
 * Django's origin check, for unsafe requests from browsers: an Origin header, when sent, must be
 * this server's own (scheme, host and port as the request arrived, X-Forwarded-* when trusted).
 * Also guards login and sign-up, which have no session yet.
 */
export function checkOrigin(request: FastifyRequest): void {
  if (!UNSAFE.has(request.method)) return;
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (origin !== `${request.protocol}://${request.host}`) {
    throw permissionDenied(`CSRF Failed: Origin checking failed - ${origin.slice(0, 200)} does not match any trusted origins.`);
  }
}

/**
 * Django's CSRF check for a request authenticated by its session: unsafe methods need the
 * `posthog_csrftoken` cookie and the same value in `X-CSRFToken`, compared in constant time, and
 * that value must be this session's.
 */
export function checkCsrf(request: FastifyRequest, sessionToken: string): void {
  if (!UNSAFE.has(request.method)) return;
  checkOrigin(request);
  const cookie = readCookie(request.headers.cookie, CSRF_COOKIE);
  if (!cookie) throw permissionDenied('CSRF Failed: CSRF cookie not set.');
  const header = request.headers[CSRF_HEADER];
  const sent = Array.isArray(header) ? header[0] : header;
  if (!sent) throw permissionDenied('CSRF Failed: CSRF token missing.');
  const expected = csrfTokenFor(sessionToken);
  if (!constantTimeEqual(sent, cookie) || !constantTimeEqual(sent, expected)) throw permissionDenied('CSRF Failed: CSRF token incorrect.');
}

export type { StoredSession };
