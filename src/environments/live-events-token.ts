/**
 * An environment's `live_events_token`, as PostHog mints it (posthog/api/team.py,
 * `get_or_mint_live_events_token`, and posthog/jwt.py `encode_jwt`): an HS256 JWT for the
 * livestream service, audience `posthog:livestream`, valid seven days, with the claims `team_id`,
 * `api_token`, `user_id` (the caller) and `organization_id`. It is signed with the installation's
 * key (018-instance-secrets), so every process signs alike and a reader holding the key can check it.
 */
import { createHmac } from 'node:crypto';
import type { Database } from '../platform/db/database.js';
import type { Team } from './models.js';
import { instanceSecret } from './store.js';

export const LIVE_EVENTS_AUDIENCE = 'posthog:livestream';
const LIFETIME_SECONDS = 7 * 24 * 60 * 60;

const signingKeys = new WeakMap<Database, Promise<string>>();

/** The installation's JWT signing key, read once per database handle. */
export function jwtSigningKey(database: Database): Promise<string> {
  let key = signingKeys.get(database);
  if (!key) {
    key = instanceSecret(database.db, 'jwt_signing_key');
    // A failed read (the database away) is not remembered: the next request tries again.
    key.catch(() => signingKeys.delete(database));
    signingKeys.set(database, key);
  }
  return key;
}

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** PyJWT's HS256 encoding: compact JSON header and claims, unpadded base64url, HMAC-SHA256. */
export function encodeJwt(claims: Record<string, unknown>, key: string): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${createHmac('sha256', key).update(signingInput).digest('base64url')}`;
}

export async function liveEventsToken(database: Database, team: Team, userId: number | null, now = Date.now()): Promise<string> {
  return encodeJwt(
    {
      team_id: team.id,
      api_token: team.apiToken,
      user_id: userId,
      organization_id: team.organizationId,
      exp: Math.floor(now / 1000) + LIFETIME_SECONDS,
      aud: LIVE_EVENTS_AUDIENCE,
    },
    await jwtSigningKey(database),
  );
}
