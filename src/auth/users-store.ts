/** The user rows accounts change: names, e-mail, current organization and environment. */
import { sql, type Kysely, type Updateable } from 'kysely';
import type { UsersTable } from '../environments/tables.js';
import type { Schema } from '../platform/db/schema.js';
import { toUser } from '../environments/tenancy-store.js';
import type { User } from '../environments/models.js';

type Db = Kysely<Schema>;

export interface UserChanges {
  firstName?: string;
  lastName?: string;
  email?: string;
  currentOrganizationId?: string | null;
  currentTeamId?: number | null;
}

export async function updateUser(db: Db, userId: number, changes: UserChanges): Promise<User | undefined> {
  const set: Updateable<UsersTable> = {};
  if (changes.firstName !== undefined) set.first_name = changes.firstName;
  if (changes.lastName !== undefined) set.last_name = changes.lastName;
  if (changes.email !== undefined) set.email = changes.email;
  if (changes.currentOrganizationId !== undefined) set.current_organization_id = changes.currentOrganizationId;
  if (changes.currentTeamId !== undefined) set.current_team_id = changes.currentTeamId;
  const query = Object.keys(set).length
    ? db.updateTable('users').set(set).where('id', '=', userId).returningAll()
    : db.selectFrom('users').selectAll().where('id', '=', userId);
  const row = await query.executeTakeFirst();
  return row && toUser(row);
}

/** Whether another user has this e-mail, its case ignored. */
export async function emailTaken(db: Db, email: string, exceptUserId?: number): Promise<boolean> {
  let query = db
    .selectFrom('users')
    .select('id')
    .where(sql`lower(email)`, '=', email.toLowerCase());
  if (exceptUserId !== undefined) query = query.where('id', '!=', exceptUserId);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

export async function getUserByUuid(db: Db, uuid: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  return row && toUser(row);
}

export async function hasPassword(db: Db, userId: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('password').where('id', '=', userId).executeTakeFirst();
  return Boolean(row?.password);
}

/** The environment a user lands in for an organization: its oldest. */
export async function firstTeamOf(db: Db, organizationId: string): Promise<number | null> {
  const row = await db
    .selectFrom('teams')
    .select('id')
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}
