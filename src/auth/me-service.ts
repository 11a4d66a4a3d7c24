/**
 * `/api/users/@me/`: PostHog's UserSerializer, read and partially updated. Writable here: names,
 * e-mail, the password (with `current_password` when one is set), `set_current_organization` and
 * `set_current_team`. An e-mail change is applied at once (PostHog without e-mail verification).
 */
import type { AppContext } from '../context.js';
import type { User } from '../environments/models.js';
import { serializeOrganizationBasic, serializeTeamBasic, serializeUserBasic } from '../environments/serializers.js';
import { getOrganization, getTeam, listOrganizationsOfUser } from '../environments/tenancy-store.js';
import { validationError } from '../posthog/errors.js';
import { serializerData } from '../posthog/fields.js';
import { DRF_MESSAGES } from '../posthog/drf-fields.js';
import { readEmail, readName, readNewPassword } from './account-fields.js';
import { canSeeTeam, type Principal } from './guard.js';
import { PasswordRefused, setPassword } from './password-service.js';
import { verifyPassword } from './passwords.js';
import { getPasswordHash } from './sessions-store.js';
import { emailTaken, firstTeamOf, hasPassword, updateUser, type UserChanges } from './users-store.js';

export async function serializeMe(ctx: AppContext, principal: Principal, user: User = principal.user) {
  const { db } = ctx.database;
  const organizations = await listOrganizationsOfUser(db, user.id);
  let currentTeam = user.currentTeamId === null ? undefined : await getTeam(db, user.currentTeamId);
  // A key limited to some projects must not reveal another one, even the user's current one.
  if (currentTeam && !canSeeTeam(principal, currentTeam)) currentTeam = undefined;
  const currentOrg = user.currentOrganizationId ? await getOrganization(db, user.currentOrganizationId) : undefined;
  return {
    date_joined: user.dateJoined,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    pending_email: null,
    is_email_verified: user.isEmailVerified,
    notification_settings: {},
    anonymize_data: false,
    toolbar_mode: 'toolbar',
    has_password: await hasPassword(db, user.id),
    id: user.id,
    is_staff: user.isStaff,
    is_impersonated: false,
    is_impersonated_until: null,
    sensitive_session_expires_at: null,
    team: currentTeam ? serializeTeamBasic(currentTeam) : null,
    organization: currentOrg
      ? { ...serializeOrganizationBasic(currentOrg, principal.memberships.get(currentOrg.id) ?? 1), created_at: currentOrg.createdAt }
      : null,
    organizations: organizations.map((o) =>
      serializeOrganizationBasic(
        { id: o.id, name: o.name, slug: o.slug, createdAt: o.created_at, updatedAt: o.created_at },
        Number(o.level),
      ),
    ),
    events_column_config: { active: 'DEFAULT' },
    is_2fa_enabled: false,
    has_social_auth: false,
    has_sso_enforcement: false,
    has_seen_product_intro_for: null,
    scene_personalisation: [],
    theme_mode: null,
    hedgehog_config: serializeUserBasic(user).hedgehog_config,
    role_at_organization: user.roleAtOrganization,
  };
}

const doesNotExist = (attr: string, value: unknown) =>
  validationError(`Object with id=${String(value)} does not exist.`, attr, 'does_not_exist');

/** PATCH `@me`: the user as it is after the change. */
export async function updateMe(ctx: AppContext, principal: Principal, body: unknown): Promise<User> {
  const { db } = ctx.database;
  const data = serializerData(body);
  const user = principal.user;
  const changes: UserChanges = {};
  const firstName = readName(data, 'first_name');
  if (firstName !== undefined) changes.firstName = firstName;
  const lastName = readName(data, 'last_name');
  if (lastName !== undefined) changes.lastName = lastName;
  if (data.email !== undefined) {
    const email = readEmail(data);
    if (email !== user.email) {
      if (await emailTaken(db, email, user.id))
        throw validationError('There is already an account with this email address.', 'email', 'unique');
      changes.email = email;
    }
  }
  if (data.set_current_organization !== undefined) {
    const id = String(data.set_current_organization);
    if (!principal.memberships.has(id)) throw doesNotExist('set_current_organization', data.set_current_organization);
    changes.currentOrganizationId = id;
    changes.currentTeamId = await firstTeamOf(db, id);
  }
  if (data.set_current_team !== undefined) {
    const raw = data.set_current_team;
    const team = /^\d{1,15}$/.test(String(raw)) ? await getTeam(db, Number(raw)) : undefined;
    if (!team || !canSeeTeam(principal, team)) throw doesNotExist('set_current_team', raw);
    if (changes.currentOrganizationId !== undefined && team.organizationId !== changes.currentOrganizationId) {
      throw validationError('Team must belong to the same organization in set_current_organization.', 'set_current_team', 'invalid');
    }
    changes.currentTeamId = team.id;
    changes.currentOrganizationId = team.organizationId;
  }
  let newPassword: string | undefined;
  if (data.password !== undefined && data.password !== null && data.password !== '') {
    newPassword = readNewPassword(data);
    const stored = await getPasswordHash(db, user.id);
    if (stored) {
      const current = data.current_password;
      if (typeof current !== 'string' || current === '') {
        throw validationError('This field is required when updating your password.', 'current_password', 'required');
      }
      if (current.length > 256 || !(await verifyPassword(current, stored))) {
        throw validationError('Your current password is incorrect.', 'current_password', 'incorrect_password');
      }
    }
  } else if (data.password === null) {
    throw validationError(DRF_MESSAGES.null, 'password', 'null');
  }
  const updated = await updateUser(db, user.id, changes);
  if (newPassword !== undefined) {
    try {
      // PostHog keeps the session that changed the password and ends the others.
      await setPassword(ctx.database, user.id, newPassword, principal.session?.tokenHash);
    } catch (error) {
      if (error instanceof PasswordRefused) throw validationError(error.message, 'password', 'invalid');
      throw error;
    }
  }
  return updated ?? user;
}
