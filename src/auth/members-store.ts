/** Organization members and invites: their SQL. */
import type { Kysely, Selectable } from 'kysely';
import type { Schema } from '../platform/db/schema.js';
import { fromBool, nowIso } from '../platform/db/values.js';
import { toUser } from '../environments/tenancy-store.js';
import type { User } from '../environments/models.js';
import type { OrganizationInvitesTable } from './tables.js';

type Db = Kysely<Schema>;

export interface Member {
  id: string;
  level: number;
  joinedAt: string;
  updatedAt: string;
  lastLogin: string | null;
  user: User;
}

function memberQuery(db: Db, organizationId: string) {
  return db
    .selectFrom('organization_memberships as m')
    .innerJoin('users', 'users.id', 'm.user_id')
    .where('m.organization_id', '=', organizationId)
    .where('users.is_active', '=', true);
}

function toMember(row: Record<string, unknown>): Member {
  const r = row as { m_uuid: string; m_level: number; m_joined_at: string; m_updated_at: string | null; last_login: string | null };
  return {
    id: r.m_uuid,
    level: Number(r.m_level),
    joinedAt: r.m_joined_at,
    updatedAt: r.m_updated_at ?? r.m_joined_at,
    lastLogin: r.last_login,
    user: toUser(row as never),
  };
}

const memberColumns = ['m.uuid as m_uuid', 'm.level as m_level', 'm.joined_at as m_joined_at', 'm.updated_at as m_updated_at'] as const;

/** Active members, newest first (PostHog's default `-joined_at`), paginated. */
export async function listMembers(
  db: Db,
  organizationId: string,
  page: { limit: number; offset: number },
  email?: string,
): Promise<{ count: number; members: Member[] }> {
  let query = memberQuery(db, organizationId);
  if (email !== undefined) query = query.where('users.email', '=', email);
  const total = await query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await query
    .selectAll('users')
    .select([...memberColumns])
    .orderBy('m.joined_at', 'desc')
    .orderBy('m.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), members: rows.map(toMember) };
}

export async function getMemberByUserUuid(db: Db, organizationId: string, userUuid: string): Promise<Member | undefined> {
  const row = await memberQuery(db, organizationId)
    .selectAll('users')
    .select([...memberColumns])
    .where('users.uuid', '=', userUuid)
    .executeTakeFirst();
  return row && toMember(row);
}

export async function getMemberByUserId(db: Db, organizationId: string, userId: number): Promise<Member | undefined> {
  const row = await memberQuery(db, organizationId)
    .selectAll('users')
    .select([...memberColumns])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  return row && toMember(row);
}

export async function setMemberLevel(db: Db, membershipId: string, level: number): Promise<void> {
  await db.updateTable('organization_memberships').set({ level, updated_at: nowIso() }).where('uuid', '=', membershipId).execute();
}

export async function deleteMembership(db: Db, membershipId: string): Promise<void> {
  await db.deleteFrom('organization_memberships').where('uuid', '=', membershipId).execute();
}

export async function isMemberByEmail(db: Db, organizationId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('organization_memberships as m')
    .innerJoin('users', 'users.id', 'm.user_id')
    .select('m.id')
    .where('m.organization_id', '=', organizationId)
    .where('users.email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

export interface Invite {
  id: string;
  organizationId: string;
  targetEmail: string;
  firstName: string;
  level: number;
  message: string | null;
  emailingAttemptMade: boolean;
  createdById: number | null;
  createdAt: string;
  updatedAt: string;
}

function toInvite(row: Selectable<OrganizationInvitesTable>): Invite {
  return {
    id: row.id,
    organizationId: row.organization_id,
    targetEmail: row.target_email,
    firstName: row.first_name,
    level: Number(row.level),
    message: row.message,
    emailingAttemptMade: fromBool(row.emailing_attempt_made),
    createdById: row.created_by_id === null ? null : Number(row.created_by_id),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function insertInvite(db: Db, invite: Invite): Promise<void> {
  await db
    .insertInto('organization_invites')
    .values({
      id: invite.id,
      organization_id: invite.organizationId,
      target_email: invite.targetEmail,
      first_name: invite.firstName,
      level: invite.level,
      message: invite.message,
      emailing_attempt_made: invite.emailingAttemptMade,
      created_by_id: invite.createdById,
      created_at: invite.createdAt,
      updated_at: invite.updatedAt,
    })
    .execute();
}

export async function markInviteEmailed(db: Db, id: string): Promise<void> {
  await db.updateTable('organization_invites').set({ emailing_attempt_made: true, updated_at: nowIso() }).where('id', '=', id).execute();
}

/** The organization's invites, newest first, each with its creator when still there. */
export async function listInvites(
  db: Db,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; invites: Array<{ invite: Invite; createdBy: User | undefined }> }> {
  const base = db.selectFrom('organization_invites').where('organization_id', '=', organizationId);
  const total = await base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute();
  const creatorIds = [...new Set(rows.map((r) => r.created_by_id).filter((id): id is number => id !== null))];
  const creators = creatorIds.length ? await db.selectFrom('users').selectAll().where('id', 'in', creatorIds).execute() : [];
  const byId = new Map(creators.map((u) => [Number(u.id), toUser(u)]));
  return {
    count: Number(total?.n ?? 0),
    invites: rows.map((r) => ({
      invite: toInvite(r),
      createdBy: r.created_by_id === null ? undefined : byId.get(Number(r.created_by_id)),
    })),
  };
}

export async function getInvite(db: Db, id: string): Promise<Invite | undefined> {
  const row = await db.selectFrom('organization_invites').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toInvite(row);
}

export async function deleteInvite(db: Db, organizationId: string, id: string): Promise<boolean> {
  const row = await db
    .deleteFrom('organization_invites')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Every invite of the organization to this address (a new invite replaces them; a used one ends them). */
export async function deleteInvitesTo(db: Db, organizationId: string, email: string): Promise<void> {
  await db.deleteFrom('organization_invites').where('organization_id', '=', organizationId).where('target_email', '=', email).execute();
}
