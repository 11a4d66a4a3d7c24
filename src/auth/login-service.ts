/**
 * Signing in with an e-mail and a password, and the throttle on failures: at most
 * LOGIN_FAILURES_PER_EMAIL failed attempts per e-mail address and LOGIN_FAILURES_PER_ADDRESS per
 * client address in a window of LOGIN_FAILURE_WINDOW_MS; past either, every attempt (right or wrong)
 * is refused with DRF's 429 until the window ends. Counted in the database, so all HTTP processes
 * share the counts (docs/decisions/0011-accounts.md).
 */
import type { Database } from '../platform/db/database.js';
import type { User } from '../environments/models.js';
import { throttled, validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import { emailKey, readEmail, readRawPassword } from './account-fields.js';
import { hashPassword, needsRehash, verifyPassword } from './passwords.js';
import { findUserWithPassword, setPasswordHash } from './sessions-store.js';
import { clearFailures, deleteOldFailures, failuresSince, recordFailure } from './throttle-store.js';

export const LOGIN_FAILURES_PER_EMAIL = 10;
export const LOGIN_FAILURES_PER_ADDRESS = 50;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

/** How often a process sweeps ended windows out of the table. */
const SWEEP_EVERY_MS = 60 * 1000;
let lastSweep = 0;

export const invalidCredentials = () => validationError('Invalid email or password.', null, 'invalid_credentials');

async function refuseWhenThrottled(database: Database, keys: Array<[string, number]>, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS);
  for (const [key, limit] of keys) {
    const counted = await failuresSince(database.db, key, windowStart);
    if (counted && counted.failures >= limit) {
      const endsAt = Date.parse(counted.startedAt) + LOGIN_FAILURE_WINDOW_MS;
      throw throttled((endsAt - now.getTime()) / 1000);
    }
  }
}

/**
 * The user whose e-mail and password the body holds (PostHog's LoginSerializer), or PostHog's 400
 * `invalid_credentials`; 429 once the e-mail or the address has failed too often. A correct
 * password clears the e-mail's count (not the address's).
 */
export async function authenticateLogin(database: Database, body: unknown, clientAddress: string, now = new Date()): Promise<User> {
  const data = serializerData(body);
  const email = readEmail(data);
  const password = readRawPassword(data);
  const keys: Array<[string, number]> = [
    [`email:${emailKey(email)}`, LOGIN_FAILURES_PER_EMAIL],
    [`ip:${clientAddress}`, LOGIN_FAILURES_PER_ADDRESS],
  ];
  await refuseWhenThrottled(database, keys, now);
  const found = await findUserWithPassword(database.db, email);
  const ok = await verifyPassword(password, found?.user.isActive ? found.password : null);
  if (!found || !ok) {
    const windowStart = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS);
    for (const [key] of keys) await recordFailure(database.db, key, now, windowStart);
    if (now.getTime() - lastSweep >= SWEEP_EVERY_MS) {
      lastSweep = now.getTime();
      await deleteOldFailures(database.db, windowStart);
    }
    throw invalidCredentials();
  }
  await clearFailures(database.db, keys[0]![0]);
  // Parameters raised since this hash was made: the password is at hand, so it is rehashed now.
  if (found.password && needsRehash(found.password)) await setPasswordHash(database.db, found.user.id, await hashPassword(password));
  return found.user;
}
