/**
 * Setting passwords: through the CLI, the profile (with the current password), or a one-time token
 * (the first start's link, PostHog's reset e-mail). Setting one ends the user's other sessions and
 * voids the user's outstanding tokens.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import type { Schema } from '../platform/db/schema.js';
import { hashPassword, passwordProblem } from './passwords.js';
import {
  consumePasswordToken,
  deletePasswordTokensOfUser,
  deleteSessionsOfUser,
  insertPasswordToken,
  setPasswordHash,
} from './sessions-store.js';

/** Django's PASSWORD_RESET_TIMEOUT (3 days), for e-mailed reset links. */
export const RESET_TOKEN_AGE_MS = 3 * 24 * 3600 * 1000;
/** The first start's link lasts a week: the one who installs may not sign in that day. */
export const FIRST_USER_TOKEN_AGE_MS = 7 * 24 * 3600 * 1000;

export class PasswordRefused extends Error {}

/** Stores the new password's hash; every session of the user but `keepSession` (a token hash) ends. */
export async function setPassword(database: Database, userId: number, password: string, keepSession?: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new PasswordRefused(problem.detail);
  const hash = await hashPassword(password);
  await database.db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, userId, hash);
    await deleteSessionsOfUser(trx, userId, keepSession);
    await deletePasswordTokensOfUser(trx, userId);
  });
}

/** A new one-time token for the user (256 random bits, base64url); only its hash is stored. */
export async function createPasswordToken(db: Kysely<Schema>, userId: number, ageMs: number, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertPasswordToken(db, userId, token, now, new Date(now.getTime() + ageMs));
  return token;
}

/** Uses the token and sets the password, in one transaction: a token sets one password at most. */
export async function setPasswordWithToken(database: Database, userId: number, token: string, password: string): Promise<boolean> {
  const problem = passwordProblem(password);
  if (problem) throw new PasswordRefused(problem.detail);
  const hash = await hashPassword(password);
  return database.db.transaction().execute(async (trx) => {
    if (!(await consumePasswordToken(trx, userId, token, new Date()))) return false;
    await setPasswordHash(trx, userId, hash);
    await deleteSessionsOfUser(trx, userId);
    await deletePasswordTokensOfUser(trx, userId);
    return true;
  });
}
