/**
 * PostHog's OrganizationMemberViewSet and OrganizationInviteViewSet: members change each other's
 * level and remove each other by PostHog's rules (core/membership-rules.ts); invites are links
 * (`/signup/<id>`), e-mailed when SMTP is configured; accepting one (`/api/signup/<id>/`) creates
 * the account or adds the signed-in user.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Organization, User } from '../environments/models.js';
import { serializeUserBasic } from '../environments/serializers.js';
import { insertMembership, insertUser } from '../environments/tenancy-store.js';
import { formatDrfDateTime } from '../posthog/drf-datetime.js';
import { DRF_MESSAGES, FieldError, parseBoolean, parseChoice, parseString } from '../posthog/drf-fields.js';
import { ApiError, notFound, permissionDenied, validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import { readEmail, readName, readNewPassword } from './account-fields.js';
import {
  CANNOT_EDIT_MEMBERS,
  INVITE_VALIDITY_MS,
  inviteExpired,
  inviteRefusal,
  LEVEL_VALUES,
  LEVELS,
  updateRefusal,
} from './core/membership-rules.js';
import {
  deleteInvitesTo,
  deleteMembership,
  getInvite,
  getMemberByUserId,
  getMemberByUserUuid,
  insertInvite,
  isMemberByEmail,
  markInviteEmailed,
  setMemberLevel,
  type Invite,
  type Member,
} from './members-store.js';
import type { Mailer } from './reset-mail.js';
import { hashPassword } from './passwords.js';
import { setPasswordHash } from './sessions-store.js';
import { emailTaken, firstTeamOf, updateUser } from './users-store.js';

const drfTime = (value: string | null) => (value === null ? null : formatDrfDateTime(new Date(value)));

export function serializeMember(member: Member) {
  return {
    id: member.id,
    user: serializeUserBasic(member.user),
    level: member.level,
    joined_at: drfTime(member.joinedAt),
    updated_at: drfTime(member.updatedAt),
    is_2fa_enabled: false,
    has_social_auth: false,
    last_login: drfTime(member.lastLogin),
  };
}

export function serializeInvite(invite: Invite, createdBy: User | undefined, now = new Date()) {
  return {
    id: invite.id,
    target_email: invite.targetEmail,
    first_name: invite.firstName,
    emailing_attempt_made: invite.emailingAttemptMade,
    level: invite.level,
    is_expired: inviteExpired(invite.createdAt, now),
    created_by: createdBy ? serializeUserBasic(createdBy) : null,
    created_at: drfTime(invite.createdAt),
    updated_at: drfTime(invite.updatedAt),
    message: invite.message,
    private_project_access: [],
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The member a detail route names: a user's uuid, or `@me`. */
export async function memberOf(ctx: AppContext, organization: Organization, user: User, lookup: string): Promise<Member> {
  const { db } = ctx.database;
  const member =
    lookup === '@me'
      ? await getMemberByUserId(db, organization.id, user.id)
      : UUID.test(lookup)
        ? await getMemberByUserUuid(db, organization.id, lookup.toLowerCase())
        : undefined;
  if (!member) throw notFound();
  return member;
}

function readLevel(value: unknown, attr = 'level'): number {
  try {
    return Number(parseChoice(value, LEVEL_VALUES.map(String)));
  } catch (error) {
    if (error instanceof FieldError) throw validationError(error.detail, attr, error.code);
    throw error;
  }
}

/** PATCH (or PUT) of a membership: only `level` is writable. */
export async function updateMember(
  ctx: AppContext,
  organization: Organization,
  requester: Member,
  target: Member,
  body: unknown,
): Promise<Member> {
  const data = serializerData(body);
  // The object permission first (without a level): DRF's 403 with the permission's message.
  if (updateRefusal(requester, target) !== null) throw permissionDenied(CANNOT_EDIT_MEMBERS);
  if (data.level === undefined) return target;
  const level = readLevel(data.level);
  const refusal = updateRefusal(requester, target, level);
  if (refusal) throw permissionDenied(refusal);
  await setMemberLevel(ctx.database.db, target.id, level);
  return (await getMemberByUserId(ctx.database.db, organization.id, target.user.id)) ?? target;
}

/** DELETE of a membership: one may leave, admins remove others of their level or below; an owner never leaves. */
export async function removeMember(ctx: AppContext, organization: Organization, requester: Member, target: Member): Promise<void> {
  if (updateRefusal(requester, target) !== null) throw permissionDenied(CANNOT_EDIT_MEMBERS);
  // User.leave: an owner must be made admin by another owner first, so an organization keeps one.
  if (target.level === LEVELS.owner) throw validationError('Cannot leave the organization as its owner!');
  const { db } = ctx.database;
  await db.transaction().execute(async (trx) => {
    await deleteMembership(trx, target.id);
    if (target.user.currentOrganizationId === organization.id) {
      const other = await trx
        .selectFrom('organization_memberships')
        .select('organization_id')
        .where('user_id', '=', target.user.id)
        .orderBy('joined_at')
        .limit(1)
        .executeTakeFirst();
      const orgId = other?.organization_id ?? null;
      await updateUser(trx, target.user.id, { currentOrganizationId: orgId, currentTeamId: orgId ? await firstTeamOf(trx, orgId) : null });
    }
  });
}

/** `send_email` (write-only, default true): false keeps the invite a link to hand over yourself. */
function readSendEmail(value: unknown): boolean {
  if (value === undefined) return true;
  try {
    return parseBoolean(value);
  } catch (error) {
    if (error instanceof FieldError) throw validationError(error.detail, 'send_email', error.code);
    throw error;
  }
}

function readInviteBody(data: Record<string, unknown>) {
  const targetEmail = readEmail(data, 'target_email');
  const at = targetEmail.lastIndexOf('@');
  const first = readName(data, 'first_name', { required: false, maxLength: 30 }) ?? '';
  const level = data.level === undefined ? LEVELS.member : readLevel(data.level);
  let message: string | null = null;
  if (data.message !== undefined && data.message !== null) {
    try {
      message = parseString(data.message, { allowBlank: true, maxLength: 1000 }) || null;
    } catch (error) {
      if (error instanceof FieldError) throw validationError(error.detail, 'message', error.code);
      throw error;
    }
  }
  // PostHog lower-cases the domain only: the local part may be case-sensitive.
  const sendEmail = readSendEmail(data.send_email);
  return {
    targetEmail: `${targetEmail.slice(0, at)}@${targetEmail.slice(at + 1).toLowerCase()}`,
    firstName: first,
    level,
    message,
    sendEmail,
  };
}

export function inviteLink(siteUrl: string, invite: Invite): string {
  return `${siteUrl}/signup/${invite.id}`;
}

type InviteFields = ReturnType<typeof readInviteBody>;

/** PostHog's bulk limit (OrganizationInviteViewSet.bulk). */
export const MAX_BULK_INVITES = 20;

/** POST of an invite: replaces earlier invites to the address; e-mailed when SMTP is configured. */
export async function createInvite(
  ctx: AppContext,
  mailer: Mailer,
  organization: Organization,
  inviter: { user: User; level: number },
  body: unknown,
  siteUrl: string,
): Promise<Invite> {
  const fields = await checkedInvite(ctx, organization, inviter.level, readInviteBody(serializerData(body)));
  const [invite] = await saveInvites(ctx, mailer, organization, inviter.user, [fields], siteUrl);
  return invite!;
}

/**
 * `POST …/invites/bulk/`: up to 20 invites, all checked before any is saved, saved together. An
 * item's error names it by position (`attr` "1__target_email").
 */
export async function createInvites(
  ctx: AppContext,
  mailer: Mailer,
  organization: Organization,
  inviter: { user: User; level: number },
  body: unknown,
  siteUrl: string,
): Promise<Invite[]> {
  if (!Array.isArray(body)) throw validationError('This endpoint needs an array of data for bulk invite creation.');
  if (body.length > MAX_BULK_INVITES) {
    throw validationError(`A maximum of ${MAX_BULK_INVITES} invites can be sent in a single request.`, null, 'max_length');
  }
  const all: InviteFields[] = [];
  for (const [i, item] of body.entries()) {
    try {
      all.push(await checkedInvite(ctx, organization, inviter.level, readInviteBody(serializerData(item))));
    } catch (error) {
      if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
      throw validationError(error.detail, error.attr === null ? String(i) : `${i}__${error.attr}`, error.code);
    }
  }
  // The last invite to an address wins, as sending them one by one would leave it.
  const byEmail = new Map(all.map((fields) => [fields.targetEmail, fields]));
  return saveInvites(ctx, mailer, organization, inviter.user, [...byEmail.values()], siteUrl);
}

async function checkedInvite(
  ctx: AppContext,
  organization: Organization,
  inviterLevel: number,
  fields: InviteFields,
): Promise<InviteFields> {
  const refusal = inviteRefusal(inviterLevel, fields.level);
  if (refusal) throw permissionDenied(refusal);
  if (await isMemberByEmail(ctx.database.db, organization.id, fields.targetEmail)) {
    throw validationError('A user with this email address already belongs to the organization.');
  }
  return fields;
}

async function saveInvites(
  ctx: AppContext,
  mailer: Mailer,
  organization: Organization,
  inviter: User,
  all: InviteFields[],
  siteUrl: string,
): Promise<Invite[]> {
  const now = new Date().toISOString();
  const invites = all.map(({ sendEmail: _sendEmail, ...fields }): Invite => ({
    // A random (v4) uuid: the link is the invite's only secret.
    id: randomUUID(),
    organizationId: organization.id,
    ...fields,
    emailingAttemptMade: false,
    createdById: inviter.id,
    createdAt: now,
    updatedAt: now,
  }));
  await ctx.database.db.transaction().execute(async (trx) => {
    for (const invite of invites) {
      await deleteInvitesTo(trx, organization.id, invite.targetEmail);
      await insertInvite(trx, invite);
    }
  });
  if (mailer.configured) {
    for (const [i, invite] of invites.entries()) {
      if (!all[i]!.sendEmail) continue;
      await markInviteEmailed(ctx.database.db, invite.id);
      invite.emailingAttemptMade = true;
      void sendInvite(ctx, mailer, organization, inviter, invite, siteUrl);
    }
  }
  return invites;
}

async function sendInvite(ctx: AppContext, mailer: Mailer, organization: Organization, inviter: User, invite: Invite, siteUrl: string) {
  const link = inviteLink(siteUrl, invite);
  const who = inviter.firstName || inviter.email;
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const note = invite.message ? `\n\n${who} wrote: ${invite.message}` : '';
  try {
    await mailer.send({
      to: invite.targetEmail,
      subject: `${who} invited you to join ${organization.name} on Hoglet`,
      text: `${who} invited you to join the organization ${organization.name} on Hoglet.${note}\n\nAccept the invite: ${link}\n\nThe link works for three days.`,
      html:
        `<p>${escape(who)} invited you to join the organization <b>${escape(organization.name)}</b> on Hoglet.</p>` +
        (invite.message ? `<p>${escape(who)} wrote: ${escape(invite.message)}</p>` : '') +
        `<p><a href="${escape(link)}">Accept the invite</a></p><p>The link works for three days.</p>`,
      attachments: [],
    });
  } catch (error) {
    ctx.log.warn({ err: { message: (error as Error).message }, invite: invite.id }, 'invite e-mail not sent');
  }
}

/** The invite a sign-up link names, checked as PostHog's OrganizationInvite.validate does. */
export async function validInvite(ctx: AppContext, inviteId: string, user: User | undefined): Promise<Invite> {
  const invite = UUID.test(inviteId) ? await getInvite(ctx.database.db, inviteId.toLowerCase()) : undefined;
  if (!invite) throw validationError('The provided invite ID is not valid.');
  if (user && user.email.toLowerCase() !== invite.targetEmail.toLowerCase()) {
    throw validationError('This invite is intended for another email address.', null, 'invalid_recipient');
  }
  if (inviteExpired(invite.createdAt, new Date())) {
    throw validationError('This invite has expired. Please ask your admin for a new one.', null, 'expired');
  }
  const { db } = ctx.database;
  if (!user && (await emailTaken(db, invite.targetEmail))) {
    throw validationError(`/login?next=/signup/${invite.id}`, null, 'account_exists');
  }
  if (user && (await getMemberByUserId(db, invite.organizationId, user.id))) {
    throw validationError('You already are a member of this organization.', null, 'user_already_member');
  }
  if (await isMemberByEmail(db, invite.organizationId, invite.targetEmail)) {
    throw validationError('Another user with this email address already belongs to this organization.', null, 'existing_email_address');
  }
  return invite;
}

/**
 * POST `/api/signup/<id>/`: signed in, the user joins; otherwise a new account is made with the
 * invite's address, `first_name` and `password`. The invite (and others to the address) ends.
 */
export async function acceptInvite(ctx: AppContext, inviteId: string, signedIn: User | undefined, body: unknown): Promise<User> {
  const data = serializerData(body);
  const invite = await validInvite(ctx, inviteId, signedIn);
  let firstName: string | undefined;
  let password: string | undefined;
  if (!signedIn) {
    for (const attr of ['first_name', 'password']) {
      if (data[attr] === undefined || data[attr] === null || data[attr] === '')
        throw validationError(DRF_MESSAGES.required, attr, 'required');
    }
    firstName = readName(data, 'first_name', { required: true, maxLength: 128 });
    password = readNewPassword(data);
  }
  const hash = password === undefined ? undefined : await hashPassword(password);
  const { db } = ctx.database;
  const teamId = await firstTeamOf(db, invite.organizationId);
  return db.transaction().execute(async (trx) => {
    let user = signedIn;
    if (!user) {
      user = await insertUser(trx, {
        email: invite.targetEmail,
        firstName: firstName ?? '',
        currentOrganizationId: invite.organizationId,
        currentTeamId: teamId ?? 0,
      });
      if (teamId === null) user = (await updateUser(trx, user.id, { currentTeamId: null })) ?? user;
      await setPasswordHash(trx, user.id, hash!);
    } else {
      user = (await updateUser(trx, user.id, { currentOrganizationId: invite.organizationId, currentTeamId: teamId })) ?? user;
    }
    await insertMembership(trx, invite.organizationId, user.id, invite.level);
    await deleteInvitesTo(trx, invite.organizationId, invite.targetEmail);
    return user;
  });
}

export { INVITE_VALIDITY_MS };
