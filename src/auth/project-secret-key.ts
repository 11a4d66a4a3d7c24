/**
 * Project secret API keys (`phs_…`): an environment's own key for server SDKs, not tied to a user,
 * accepted by the local-evaluation feed and the remote-config payload only (PostHog's
 * TeamSecretTokenAuthentication, posthog/auth.py, and the Rust flags service's auth.rs). The key
 * names its environment; whoever checks it must still compare that with the one asked for.
 */
import type { FastifyRequest } from 'fastify';
import type { Database } from '../platform/db/database.js';
import type { Team } from '../environments/models.js';
import { getTeamBySecretApiToken } from '../environments/tenancy-store.js';

const SECRET_PREFIX = 'phs_';
/** posthog/auth.py `_SECRET_API_KEY_RE`: anything else is left to the personal API key check. */
const DJANGO_SECRET_KEY = /^phs_[a-zA-Z0-9]+$/;
const DJANGO_BEARER = /^Bearer\s+(.+)$/;

/**
 * Django's `_extract_phs_token`: a `phs_` bearer token in the Authorization header. (Django also
 * reads a body's `secret_api_key`; the routes that take these keys are GETs, whose bodies are not
 * read.)
 */
export function findProjectSecretKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const token = DJANGO_BEARER.exec(header)?.[1]?.trim();
  return token && DJANGO_SECRET_KEY.test(token) ? token : undefined;
}

/** The Rust service's `extract_team_secret_token`: a bearer token (header only) that starts with `phs_`. */
export function bearerSecretKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string' || !header.startsWith('Bearer ')) return undefined;
  const token = header.slice('Bearer '.length).trim();
  return token.startsWith(SECRET_PREFIX) ? token : undefined;
}

/**
 * The environment a secret key belongs to: its current key or the backup the last rotation kept.
 * Read from the database each time, so a rotation or a deleted backup takes effect at once.
 */
export async function teamOfSecretKey(database: Database, key: string): Promise<Team | undefined> {
  return getTeamBySecretApiToken(database.db, key);
}
