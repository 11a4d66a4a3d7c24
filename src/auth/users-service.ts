/** Users made and given passwords outside the API: `hoglet users …`. */
import type { Database } from '../platform/db/database.js';
import type { User } from '../environments/models.js';
import { getUserByEmail, insertMembership, insertUser } from '../environments/tenancy-store.js';
import { isValidEmail } from '../subscriptions/core/targets.js';
import { LEVELS } from './core/membership-rules.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { deleteSessionsOfUser, setPasswordHash } from './sessions-store.js';
import { emailTaken, firstTeamOf } from './users-store.js';

export class UserInputError extends Error {}

export const LEVEL_NAMES = { member: LEVELS.member, admin: LEVELS.admin, owner: LEVELS.owner } as const;

export interface NewAccount {
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** Default: the oldest organization (the one the first start made). */
  organizationId?: string | undefined;
  level: number;
  password: string;
}

/** A new user, a member of one organization, with a password. */
export async function createAccount(database: Database, input: NewAccount): Promise<User> {
  const email = input.email.trim();
  if (!isValidEmail(email)) throw new UserInputError(`--email: "${email}" is not a valid e-mail address`);
  const problem = passwordProblem(input.password);
  if (problem) throw new UserInputError(problem.detail);
  const { db } = database;
  if (await emailTaken(db, email)) throw new UserInputError(`there is already a user with e-mail ${email}`);
  const organization = input.organizationId
    ? await db.selectFrom('organizations').select('id').where('id', '=', input.organizationId).executeTakeFirst()
    : await db.selectFrom('organizations').select('id').orderBy('created_at').limit(1).executeTakeFirst();
  if (!organization)
    throw new UserInputError(
      input.organizationId ? `no organization with id ${input.organizationId}` : 'no organization yet: start the server once',
    );
  const teamId = await firstTeamOf(db, organization.id);
  const hash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    const user = await insertUser(trx, {
      email,
      firstName: input.firstName ?? '',
      lastName: input.lastName ?? '',
      currentOrganizationId: organization.id,
      currentTeamId: teamId ?? 0,
    });
    await setPasswordHash(trx, user.id, hash);
    await insertMembership(trx, organization.id, user.id, input.level);
    return user;
  });
}

/** Sets the password of the user with this e-mail; every session of the user ends. */
export async function resetPasswordOf(database: Database, email: string, password: string): Promise<{ user: User; endedSessions: number }> {
  const problem = passwordProblem(password);
  if (problem) throw new UserInputError(problem.detail);
  const user = await getUserByEmail(database.db, email.trim());
  if (!user) throw new UserInputError(`no user with e-mail ${email}`);
  const hash = await hashPassword(password);
  const endedSessions = await database.db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, user.id, hash);
    await trx.deleteFrom('password_tokens').where('user_id', '=', user.id).execute();
    return deleteSessionsOfUser(trx, user.id);
  });
  return { user, endedSessions };
}
