/** Browser sessions, password tokens and users' passwords: their SQL. Tokens are looked up by hash only. */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool } from '../platform/db/values.js';
import { toUser } from '../environments/tenancy-store.js';
import type { User } from '../environments/models.js';

type Db = Kysely<Schema>;

export const hashToken = (raw: string) => createHash('sha256').update(raw, 'utf8').digest('hex');

export interface StoredSession {
  tokenHash: string;
  userId: number;
  lastSeenAt: string;
  expiresAt: string;
}

export async function insertSession(db: Db, userId: number, rawToken: string, now: Date, expiresAt: Date): Promise<void> {
  const at = now.toISOString();
  await db
    .insertInto('user_sessions')
    .values({ token_hash: hashToken(rawToken), user_id: userId, created_at: at, last_seen_at: at, expires_at: expiresAt.toISOString() })
    .execute();
}

/** The unexpired session of this cookie value and its active user, in one read by primary key. */
export async function findSession(db: Db, rawToken: string, now: Date): Promise<{ session: StoredSession; user: User } | undefined> {
  const row = await db
    .selectFrom('user_sessions')
    .innerJoin('users', 'users.id', 'user_sessions.user_id')
    .selectAll('users')
    .select(['user_sessions.token_hash', 'user_sessions.last_seen_at', 'user_sessions.expires_at'])
    .where('user_sessions.token_hash', '=', hashToken(rawToken))
    .where('user_sessions.expires_at', '>', now.toISOString())
    .executeTakeFirst();
  if (!row || !fromBool(row.is_active)) return undefined;
  return {
    session: { tokenHash: row.token_hash, userId: Number(row.id), lastSeenAt: row.last_seen_at, expiresAt: row.expires_at },
    user: toUser(row),
  };
}

export async function extendSession(db: Db, tokenHash: string, now: Date, expiresAt: Date): Promise<void> {
  await db
    .updateTable('user_sessions')
    .set({ last_seen_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .where('token_hash', '=', tokenHash)
    .execute();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom('user_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends every session of the user but `keep` (a hash), if given. */
export async function deleteSessionsOfUser(db: Db, userId: number, keep?: string): Promise<number> {
  let query = db.deleteFrom('user_sessions').where('user_id', '=', userId);
  if (keep) query = query.where('token_hash', '!=', keep);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredSessions(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('user_sessions').where('expires_at', '<=', now.toISOString()).execute();
}

export async function countSessionsOfUser(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('user_sessions')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function getPasswordHash(db: Db, userId: number): Promise<string | null> {
  const row = await db.selectFrom('users').select('password').where('id', '=', userId).executeTakeFirst();
  return row?.password ?? null;
}

/** The user of this e-mail, its case ignored (an exact match first), with the stored password hash. */
export async function findUserWithPassword(db: Db, email: string): Promise<{ user: User; password: string | null } | undefined> {
  const rows = await db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .limit(10)
    .execute();
  const row = rows.find((r) => r.email === email) ?? rows[0];
  return row && { user: toUser(row), password: row.password };
}

export async function setPasswordHash(db: Db, userId: number, hash: string): Promise<void> {
  await db.updateTable('users').set({ password: hash }).where('id', '=', userId).execute();
}

export async function touchLastLogin(db: Db, userId: number, now: Date): Promise<void> {
  await db.updateTable('users').set({ last_login: now.toISOString() }).where('id', '=', userId).execute();
}

export async function insertPasswordToken(db: Db, userId: number, rawToken: string, now: Date, expiresAt: Date): Promise<void> {
  await db
    .insertInto('password_tokens')
    .values({ token_hash: hashToken(rawToken), user_id: userId, created_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .execute();
}

/** Whether this unexpired token belongs to the user (GET /api/reset/<uuid>/ checks without using it). */
export async function passwordTokenIsValid(db: Db, userId: number, rawToken: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('password_tokens')
    .select('token_hash')
    .where('token_hash', '=', hashToken(rawToken))
    .where('user_id', '=', userId)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Uses the token: deletes it, and answers whether it was there, unexpired and the user's. One
 * statement, so two requests racing with one token cannot both use it.
 */
export async function consumePasswordToken(db: Db, userId: number, rawToken: string, now: Date): Promise<boolean> {
  const row = await db
    .deleteFrom('password_tokens')
    .where('token_hash', '=', hashToken(rawToken))
    .where('user_id', '=', userId)
    .where('expires_at', '>', now.toISOString())
    .returning('token_hash')
    .executeTakeFirst();
  return row !== undefined;
}

export async function deletePasswordTokensOfUser(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('password_tokens').where('user_id', '=', userId).execute();
}
